#!/usr/bin/env bats
# `wicket doctor`: what this kernel can enforce, as text and as JSON.

load ../lib/common
load integration_helpers
bats_require_minimum_version 1.5.0

teardown() { it_teardown; }

# The Landlock ABI the kernel reports, asked directly (0: none).
kernel_landlock_abi() {
	"$PY" -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # landlock_create_ruleset, VERSION
print(r if r > 0 else 0)'
}

@test "doctor: a readable report, exit 0, matching this kernel" {
	local abi
	abi=$(kernel_landlock_abi)
	run --separate-stderr wkb doctor
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_line "kernel:        $(uname -r)"
	if [ "$abi" -gt 0 ]; then
		assert_line "landlock:      ABI $abi"
	else
		assert_line --regexp '^landlock: +unavailable'
	fi
	if is_root; then
		assert_line --regexp '^running as: +root'
	else
		assert_line --regexp '^running as: +unprivileged user'
	fi
	local ns
	for ns in user mount pid network ipc; do
		assert_line --regexp "^namespace $ns +[^ ]"
	done
	assert_line --regexp '^mode workspace-write: '
	assert_line --regexp '^mode read-only: '
	assert_line --regexp '^mode workspace-write --net full: '
}

@test "doctor on this machine: every namespace works and every mode is fully enforced" {
	[ "$(kernel_landlock_abi)" -gt 0 ] || skip "this kernel has no Landlock: modes cannot be fully enforced"
	run --separate-stderr wkb doctor
	assert_equal "$status" 0
	local ns
	for ns in user mount pid network ipc; do
		assert_line --regexp "^namespace $ns +yes$"
	done
	assert_line "mode workspace-write: fully enforced"
	assert_line "mode read-only: fully enforced"
	assert_line "mode workspace-write --net full: fully enforced"
	refute_output --partial "weaker"
}

@test "doctor --json: valid JSON with landlock_abi, namespaces and modes" {
	local abi
	abi=$(kernel_landlock_abi)
	run --separate-stderr wkb doctor --json
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/doctor.json"
	"$PY" -m json.tool "$BATS_TEST_TMPDIR/doctor.json" >/dev/null
	local root=false
	is_root && root=true
	run "$PY" - "$BATS_TEST_TMPDIR/doctor.json" "$abi" "$root" "$(uname -r)" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
abi, root, release = int(sys.argv[2]), sys.argv[3] == "true", sys.argv[4]
errs = []
def check(cond, what):
    if not cond:
        errs.append(what)
check(isinstance(d, dict), "top level is an object")
check(type(d.get("landlock_abi")) is int, "landlock_abi is an integer")
check(d.get("landlock_abi") == abi, "landlock_abi %r == kernel's %d" % (d.get("landlock_abi"), abi))
check(d.get("kernel") == release, "kernel == uname -r")
check(d.get("root") is root, "root is %s" % root)
ns = d.get("namespaces")
check(isinstance(ns, dict), "namespaces is an object")
if isinstance(ns, dict):
    check(sorted(ns) == ["ipc", "mount", "network", "pid", "user"], "namespaces: user mount pid network ipc")
    for k, v in ns.items():
        check(v is True or isinstance(v, str), "namespaces.%s is true or a reason" % k)
modes = d.get("modes")
check(isinstance(modes, dict), "modes is an object")
if isinstance(modes, dict):
    check(set(modes) == {"workspace-write", "read-only", "workspace-write --net full"}, "modes: the three built-in modes")
    for k, v in modes.items():
        check(isinstance(v.get("enforced"), bool), "modes[%s].enforced is a boolean" % k)
        check(isinstance(v.get("weaker"), list), "modes[%s].weaker is a list" % k)
        check(v.get("enforced") == (v.get("weaker") == []), "modes[%s]: enforced iff nothing weaker" % k)
print("\n".join(errs) if errs else "ok")
EOF
	assert_equal "$output" ok
}

@test "doctor --json on this machine: all namespaces true, all modes enforced" {
	[ "$(kernel_landlock_abi)" -gt 0 ] || skip "this kernel has no Landlock: modes cannot be fully enforced"
	run --separate-stderr wkb doctor --json
	assert_equal "$status" 0
	run "$PY" -c '
import json, sys
d = json.loads(sys.stdin.read())
print(all(v is True for v in d["namespaces"].values()),
      all(m["enforced"] and m["weaker"] == [] for m in d["modes"].values()),
      d["landlock_abi"] >= 1)' <<<"$output"
	assert_equal "$output" "True True True"
}

@test "doctor text and --json agree" {
	run --separate-stderr wkb doctor
	local text=$output
	run --separate-stderr wkb doctor --json
	run "$PY" -c '
import json, sys, re
d = json.loads(open(sys.argv[1]).read())
text = sys.argv[2].splitlines()
out = []
for line in text:
    m = re.match(r"^namespace (\S+) +(.*)$", line)
    if m:
        out.append("%s %s" % (m.group(1), (d["namespaces"][m.group(1)] is True) == (m.group(2) == "yes")))
    m = re.match(r"^mode (.*): (fully enforced|weaker.*)$", line)
    if m:
        out.append("%s %s" % (m.group(1), d["modes"][m.group(1)]["enforced"] == (m.group(2) == "fully enforced")))
    m = re.match(r"^landlock: +ABI (\d+)$", line)
    if m:
        out.append("landlock %s" % (int(m.group(1)) == d["landlock_abi"]))
print("\n".join(out))' /dev/stdin "$text" <<<"$output"
	assert_equal "$status" 0
	refute_output --partial False
	assert_equal "${#lines[@]}" 9
}

@test "doctor --help: usage, exit 0" {
	run --separate-stderr wkb doctor --help
	assert_equal "$status" 0
	assert_equal "$stderr" ""
	assert_output --partial "wicket doctor [--json]"
}

@test "doctor with an unknown option: exit 125, one 'wicket:' line" {
	run --separate-stderr wkb doctor --bogus
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
}

@test "doctor with an unexpected argument: exit 125, one 'wicket:' line" {
	run --separate-stderr wkb doctor extra
	assert_equal "$status" 125
	assert_equal "$output" ""
	one_wicket_line
	assert_regex "$stderr" "extra"
}
