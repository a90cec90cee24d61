# Adversarial escape suite: bats files plus small C probes for the attacks
# a shell cannot make. The probes are check programs: built by `make check`
# (or one by one: make tests/escape/probes/NAME) and found by the suite at
# $WICKET_TEST_BINDIR/escape/probes/NAME.
check_PROGRAMS += \
	tests/escape/probes/compat \
	tests/escape/probes/fsprobe \
	tests/escape/probes/ipcprobe \
	tests/escape/probes/memprobe \
	tests/escape/probes/notifyprobe \
	tests/escape/probes/sysprobe \
	tests/escape/probes/tiocsti \
	tests/escape/probes/uring \
	tests/escape/probes/unixprobe \
	tests/escape/probes/rmrace \
	tests/escape/probes/forkchain
tests_escape_probes_forkchain_SOURCES = tests/escape/probes/forkchain.c
tests_escape_probes_compat_SOURCES = tests/escape/probes/compat.c
tests_escape_probes_fsprobe_SOURCES = tests/escape/probes/fsprobe.c
tests_escape_probes_ipcprobe_SOURCES = tests/escape/probes/ipcprobe.c
tests_escape_probes_memprobe_SOURCES = tests/escape/probes/memprobe.c
tests_escape_probes_notifyprobe_SOURCES = tests/escape/probes/notifyprobe.c
tests_escape_probes_sysprobe_SOURCES = tests/escape/probes/sysprobe.c
tests_escape_probes_tiocsti_SOURCES = tests/escape/probes/tiocsti.c
tests_escape_probes_uring_SOURCES = tests/escape/probes/uring.c
tests_escape_probes_rmrace_SOURCES = tests/escape/probes/rmrace.c
tests_escape_probes_unixprobe_SOURCES = tests/escape/probes/unixprobe.c
tests_escape_probes_unixprobe_LDADD = -lpthread
EXTRA_DIST += \
	tests/escape/escape_helpers.bash \
	tests/escape/fs.bats \
	tests/escape/git.bats \
	tests/escape/git-nested.bats \
	tests/escape/grant-push.bats \
	tests/escape/grant-race.bats \
	tests/escape/planted.bats \
	tests/escape/redteam.bats \
	tests/escape/redteam3.bats \
	tests/escape/redteam4.bats \
	tests/escape/shared.bats \
	tests/escape/ipc.bats \
	tests/escape/kernel.bats \
	tests/escape/mounts.bats \
	tests/escape/net.bats \
	tests/escape/domains.bats \
	tests/escape/notify.bats \
	tests/escape/policy-enforce.bats \
	tests/escape/procs.bats \
	tests/escape/secrets.bats \
	tests/escape/tty.bats \
	tests/escape/resources.bats \
	tests/escape/ask.bats \
	tests/escape/ask-careful.bats \
	tests/escape/grant.bats \
	tests/escape/view.bats \
	tests/escape/unixsock.bats \
	tests/escape/loopback.bats \
	tests/escape/ask-terminal.bats
