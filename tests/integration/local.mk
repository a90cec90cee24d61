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
	tests/integration/hooks.bats \
	tests/integration/completion.bats \
	tests/integration/shell.bats \
	tests/integration/terminal.bats \
	tests/integration/doctor.bats
