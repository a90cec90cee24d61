# Integration suite (bats): the promises of wicket(1) checked end to end
# against the built launcher. Run by tests/run-tests from `make check`.
EXTRA_DIST += \
	tests/integration/integration_helpers.bash \
	tests/integration/cli.bats \
	tests/integration/exec.bats \
	tests/integration/policy-default.bats \
	tests/integration/policy.bats \
	tests/integration/diagnostics-launcher.bats \
	tests/integration/why.bats \
	tests/integration/ask.bats \
	tests/integration/hooks.bats \
	tests/integration/completion.bats \
	tests/integration/shell.bats \
	tests/integration/terminal.bats \
	tests/integration/denials.bats \
	tests/integration/doctor.bats \
	tests/integration/unixsock.bats \
	tests/integration/tools.bats \
	tests/integration/inside.bats \
	tests/integration/cli-policy.bats \
	tests/integration/why-fixes.bats \
	tests/integration/userconfig.bats \
	tests/integration/domains.bats \
	tests/integration/supervisor-fds.bats \
	tests/integration/approver-link.bats \
	tests/integration/events.bats \
	tests/integration/warm.bats \
	tests/integration/harness.bats

# Network calls as programs the preload shim cannot see make them (the
# supervisor reports those, launcher/supervisor/netnotify.c): raw system calls from a
# dynamic program, and a static build where the C library allows it.
check_PROGRAMS += tests/integration/netprobe
tests_integration_netprobe_SOURCES = tests/integration/netprobe.c
if HAVE_STATIC_LIBC
check_PROGRAMS += tests/integration/netprobe-static
tests_integration_netprobe_static_SOURCES = tests/integration/netprobe.c
tests_integration_netprobe_static_LDFLAGS = -all-static
endif
EXTRA_DIST += tests/integration/netnotify.bats
