# libFuzzer targets of the policy parser (tests/fuzz/policy-fuzz.c) and of
# the supervisor's control-socket packets (tests/fuzz/control-fuzz.c), built
# with clang straight from the sources it needs, under AddressSanitizer,
# LeakSanitizer and UBSan, every report fatal. Built by `make check` when
# configure found a clang that can link -fsanitize=fuzzer; tests/run-tests
# then runs it for WICKET_FUZZ_SECONDS (default 30). `make fuzz` runs it
# for FUZZ_SECONDS (default 60; `make fuzz FUZZ_SECONDS=600`). Both run on
# a copy of the seed corpus in a temporary directory (tests/fuzz/run-fuzz).
FUZZ_SECONDS = 60
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Wno-unused-parameter
FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/policy-fuzz.c \
	$(top_srcdir)/lib/policy.c \
	$(top_srcdir)/lib/grant.c \
	$(top_srcdir)/lib/askproto.c \
	$(top_srcdir)/lib/netdomain.c \
	$(top_srcdir)/lib/path.c \
	$(top_srcdir)/lib/realpath.c \
	$(top_srcdir)/lib/pathlex.c \
	$(top_srcdir)/lib/util.c
FUZZ_CORPUS = \
	tests/fuzz/corpus/bad-env-set.json \
	tests/fuzz/corpus/bad-env-unset-type.json \
	tests/fuzz/corpus/bad-env-unset.json \
	tests/fuzz/corpus/bad-escalation-approver.json \
	tests/fuzz/corpus/bad-escalation-argv.json \
	tests/fuzz/corpus/bad-escalation-mode.json \
	tests/fuzz/corpus/bad-escalation-no-approver.json \
	tests/fuzz/corpus/bad-extends-empty.json \
	tests/fuzz/corpus/bad-extends-file.json \
	tests/fuzz/corpus/bad-extends-type.json \
	tests/fuzz/corpus/bad-extends-unknown.json \
	tests/fuzz/corpus/bad-filesystem-type.json \
	tests/fuzz/corpus/bad-many-errors.json \
	tests/fuzz/corpus/bad-network-mode.json \
	tests/fuzz/corpus/bad-network-ports.json \
	tests/fuzz/corpus/bad-not-object.json \
	tests/fuzz/corpus/bad-path-relative.json \
	tests/fuzz/corpus/bad-path-types.json \
	tests/fuzz/corpus/bad-ports-without-mode.json \
	tests/fuzz/corpus/bad-sandbox-false-rules.json \
	tests/fuzz/corpus/bad-sandbox-type.json \
	tests/fuzz/corpus/bad-syntax-duplicate-key.json \
	tests/fuzz/corpus/bad-syntax-trailing-comma.json \
	tests/fuzz/corpus/bad-syntax-truncated.json \
	tests/fuzz/corpus/bad-udp-type.json \
	tests/fuzz/corpus/bad-unknown-key-suggestion.json \
	tests/fuzz/corpus/bad-unknown-key.json \
	tests/fuzz/corpus/bad-variables.json \
	tests/fuzz/corpus/bad-write-hidden.json \
	tests/fuzz/corpus/builtin-full-access.json \
	tests/fuzz/corpus/builtin-read-only.json \
	tests/fuzz/corpus/builtin-workspace-write-strict.json \
	tests/fuzz/corpus/builtin-workspace-write.json \
	tests/fuzz/corpus/example-audit.json \
	tests/fuzz/corpus/example-node.json \
	tests/fuzz/corpus/example-postgres.json \
	tests/fuzz/corpus/ok-empty.json \
	tests/fuzz/corpus/ok-escalation-grant.json \
	tests/fuzz/corpus/ok-extends-chain.json \
	tests/fuzz/corpus/ok-sandbox-false.json \
	tests/fuzz/corpus/ok-unicode.json
# The supervisor's handling of control-socket packets (launcher/supervisor/control.c).
CONTROL_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/control-fuzz.c \
	$(top_srcdir)/launcher/supervisor/control.c \
	$(top_srcdir)/launcher/supervisor/events.c \
	$(top_srcdir)/launcher/supervisor/watch.c \
	$(top_srcdir)/launcher/supervisor/notifyutil.c \
	$(top_srcdir)/launcher/supervisor/closer.c \
	$(top_srcdir)/launcher/base/state.c \
	$(top_srcdir)/launcher/plan/autorun.c \
	$(top_srcdir)/launcher/plan/walkidx.c \
	$(top_srcdir)/launcher/plan/plan.c \
	$(top_srcdir)/launcher/base/mountops.c \
	$(top_srcdir)/lib/envscrub.c \
	$(top_srcdir)/lib/askproto.c \
	$(top_srcdir)/lib/grant.c \
	$(top_srcdir)/lib/grantderive.c \
	$(top_srcdir)/lib/utf8.c \
	$(top_srcdir)/lib/path.c \
	$(top_srcdir)/lib/realpath.c \
	$(top_srcdir)/lib/runslater.c \
	$(top_srcdir)/lib/view.c \
	$(top_srcdir)/lib/netdomain.c \
	$(top_srcdir)/lib/pathlex.c \
	$(top_srcdir)/lib/classify.c \
	$(top_srcdir)/lib/dac.c \
	$(top_srcdir)/lib/rules.c \
	$(top_srcdir)/lib/denialpkt-json.c \
	$(top_srcdir)/lib/util.c \
	$(top_srcdir)/lib/fdpass.c \
	$(top_srcdir)/lib/fdspec.c \
	$(top_srcdir)/lib/ackpage.c \
	$(top_srcdir)/lib/netfmt.c
CONTROL_CORPUS = \
	tests/fuzz/control-corpus/denial-net \
	tests/fuzz/control-corpus/denial-protect \
	tests/fuzz/control-corpus/denial-read \
	tests/fuzz/control-corpus/denial-udp \
	tests/fuzz/control-corpus/denial-write \
	tests/fuzz/control-corpus/truncated \
	tests/fuzz/control-corpus/unknown \
	tests/fuzz/control-corpus/why
# The denial packet (lib/denialpkt.c, lib/denialpkt-json.c): what the shim
# encodes decodes to the same fields in the supervisor.
DENIALPKT_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/denialpkt-fuzz.c \
	$(top_srcdir)/lib/denialpkt.c \
	$(top_srcdir)/lib/denialpkt-json.c \
	$(top_srcdir)/lib/netfmt.c
DENIALPKT_CORPUS = \
	tests/fuzz/denialpkt-corpus/fields-net \
	tests/fuzz/denialpkt-corpus/fields-odd \
	tests/fuzz/denialpkt-corpus/fields-write \
	tests/fuzz/denialpkt-corpus/packet
EXTRA_DIST += tests/fuzz/denialpkt-fuzz.c tests/fuzz/denialpkt.dict $(DENIALPKT_CORPUS)
CLEANFILES += tests/fuzz/denialpkt-fuzz
# The `wicket ask` request parser (lib/askproto.c).
ASK_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/ask-fuzz.c \
	$(top_srcdir)/lib/askproto.c \
	$(top_srcdir)/lib/grant.c \
	$(top_srcdir)/lib/netdomain.c \
	$(top_srcdir)/lib/path.c \
	$(top_srcdir)/lib/realpath.c \
	$(top_srcdir)/lib/pathlex.c \
	$(top_srcdir)/lib/util.c
ASK_CORPUS = \
	tests/fuzz/ask-corpus/bad \
	tests/fuzz/ask-corpus/controls \
	tests/fuzz/ask-corpus/grant \
	tests/fuzz/ask-corpus/nul \
	tests/fuzz/ask-corpus/ok \
	tests/fuzz/ask-corpus/outside \
	tests/fuzz/ask-corpus/signal \
	tests/fuzz/ask-corpus/trailing-dots
EXTRA_DIST += tests/fuzz/ask-fuzz.c tests/fuzz/ask.dict $(ASK_CORPUS)
CLEANFILES += tests/fuzz/ask-fuzz
# The question `wicket ask` draws (lib/askrender.c): it reads back as the
# command it stands for.
ASKRENDER_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/askrender-fuzz.c \
	$(top_srcdir)/lib/askrender.c \
	$(top_srcdir)/lib/util.c
ASKRENDER_CORPUS = \
	tests/fuzz/askrender-corpus/attack \
	tests/fuzz/askrender-corpus/long \
	tests/fuzz/askrender-corpus/many
EXTRA_DIST += tests/fuzz/askrender-fuzz.c tests/fuzz/askrender.dict $(ASKRENDER_CORPUS)
CLEANFILES += tests/fuzz/askrender-fuzz
# The proxy's request parsers of network mode "domains" (lib/proxyparse.c)
# and its names and patterns (lib/netdomain.c).
PROXY_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/proxy-fuzz.c \
	$(top_srcdir)/lib/proxyparse.c \
	$(top_srcdir)/lib/netdomain.c \
	$(top_srcdir)/lib/netfmt.c
PROXY_CORPUS = \
	tests/fuzz/proxy-corpus/connect \
	tests/fuzz/proxy-corpus/get \
	tests/fuzz/proxy-corpus/pattern \
	tests/fuzz/proxy-corpus/smuggle \
	tests/fuzz/proxy-corpus/socks-name \
	tests/fuzz/proxy-corpus/socks-v6 \
	tests/fuzz/proxy-corpus/tls-hello
EXTRA_DIST += tests/fuzz/proxy-fuzz.c tests/fuzz/proxy.dict $(PROXY_CORPUS)
CLEANFILES += tests/fuzz/proxy-fuzz
# Warm sessions' protocol (lib/warmproto.c): what `wicket exec` and the
# server inside the sandbox send the supervisor.
WARM_FUZZ_SRCS = \
	$(top_srcdir)/tests/fuzz/warm-fuzz.c \
	$(top_srcdir)/lib/warmproto.c \
	$(top_srcdir)/lib/util.c
WARM_CORPUS = \
	tests/fuzz/warm-corpus/bad-twice \
	tests/fuzz/warm-corpus/error \
	tests/fuzz/warm-corpus/exec \
	tests/fuzz/warm-corpus/exec-empty-arg \
	tests/fuzz/warm-corpus/exit \
	tests/fuzz/warm-corpus/ready \
	tests/fuzz/warm-corpus/signal \
	tests/fuzz/warm-corpus/started \
	tests/fuzz/warm-corpus/stop
EXTRA_DIST += tests/fuzz/warm-fuzz.c tests/fuzz/warm.dict $(WARM_CORPUS)
CLEANFILES += tests/fuzz/warm-fuzz
EXTRA_DIST += tests/fuzz/policy-fuzz.c tests/fuzz/run-fuzz tests/fuzz/policy.dict \
	$(FUZZ_CORPUS) tests/fuzz/control-fuzz.c tests/fuzz/control.dict $(CONTROL_CORPUS)
CLEANFILES += tests/fuzz/policy-fuzz tests/fuzz/control-fuzz

.PHONY: fuzz
if HAVE_FUZZER
check_SCRIPTS = tests/fuzz/policy-fuzz tests/fuzz/control-fuzz tests/fuzz/ask-fuzz \
	tests/fuzz/askrender-fuzz tests/fuzz/denialpkt-fuzz tests/fuzz/proxy-fuzz tests/fuzz/warm-fuzz
tests/fuzz/warm-fuzz: $(WARM_FUZZ_SRCS) $(top_srcdir)/lib/warmproto.h $(top_srcdir)/lib/util.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib \
		-o $@ $(WARM_FUZZ_SRCS)
tests/fuzz/denialpkt-fuzz: $(DENIALPKT_FUZZ_SRCS) $(top_srcdir)/lib/denialpkt.h \
		$(top_srcdir)/lib/netfmt.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib $(JANSSON_CFLAGS) \
		-o $@ $(DENIALPKT_FUZZ_SRCS) $(JANSSON_LIBS)
tests/fuzz/proxy-fuzz: $(PROXY_FUZZ_SRCS) $(top_srcdir)/lib/proxyparse.h \
		$(top_srcdir)/lib/netdomain.h $(top_srcdir)/lib/netfmt.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib \
		-o $@ $(PROXY_FUZZ_SRCS)
tests/fuzz/askrender-fuzz: $(ASKRENDER_FUZZ_SRCS) $(top_srcdir)/lib/askrender.h \
		$(top_srcdir)/lib/util.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib \
		-o $@ $(ASKRENDER_FUZZ_SRCS)
tests/fuzz/ask-fuzz: $(ASK_FUZZ_SRCS) $(top_srcdir)/lib/askproto.h $(top_srcdir)/lib/util.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib $(JANSSON_CFLAGS) \
		-o $@ $(ASK_FUZZ_SRCS) $(JANSSON_LIBS)
tests/fuzz/control-fuzz: $(CONTROL_FUZZ_SRCS) $(top_srcdir)/launcher/base/session.h \
		$(top_srcdir)/launcher/supervisor/control.h $(top_srcdir)/launcher/supervisor/watch.h \
		$(top_srcdir)/launcher/base/user.h $(top_srcdir)/launcher/base/state.h \
		$(top_srcdir)/launcher/supervisor/notifyutil.h \
		$(top_srcdir)/lib/path.h $(top_srcdir)/lib/util.h $(top_srcdir)/lib/classify.h \
		$(top_srcdir)/lib/denialpkt.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib -I$(top_srcdir)/launcher \
		$(JANSSON_CFLAGS) -o $@ $(CONTROL_FUZZ_SRCS) $(JANSSON_LIBS)
tests/fuzz/policy-fuzz: $(FUZZ_SRCS) lib/policy-builtins.c $(top_srcdir)/lib/policy.h \
		$(top_srcdir)/lib/path.h $(top_srcdir)/lib/util.h config.h
	$(AM_V_CCLD)$(MKDIR_P) tests/fuzz && \
	$(FUZZ_CC) $(FUZZ_CFLAGS) -I$(top_builddir) -I$(top_srcdir)/lib $(JANSSON_CFLAGS) \
		-o $@ $(FUZZ_SRCS) lib/policy-builtins.c $(JANSSON_LIBS)
fuzz: tests/fuzz/policy-fuzz tests/fuzz/control-fuzz tests/fuzz/ask-fuzz tests/fuzz/askrender-fuzz \
		tests/fuzz/denialpkt-fuzz tests/fuzz/proxy-fuzz tests/fuzz/warm-fuzz
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/policy-fuzz \
		$(top_srcdir)/tests/fuzz/corpus $(FUZZ_SECONDS) $(top_srcdir)/tests/fuzz/policy.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/control-fuzz \
		$(top_srcdir)/tests/fuzz/control-corpus $(FUZZ_SECONDS) $(top_srcdir)/tests/fuzz/control.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/ask-fuzz \
		$(top_srcdir)/tests/fuzz/ask-corpus $(FUZZ_SECONDS) $(top_srcdir)/tests/fuzz/ask.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/askrender-fuzz \
		$(top_srcdir)/tests/fuzz/askrender-corpus $(FUZZ_SECONDS) \
		$(top_srcdir)/tests/fuzz/askrender.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/denialpkt-fuzz \
		$(top_srcdir)/tests/fuzz/denialpkt-corpus $(FUZZ_SECONDS) \
		$(top_srcdir)/tests/fuzz/denialpkt.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/proxy-fuzz \
		$(top_srcdir)/tests/fuzz/proxy-corpus $(FUZZ_SECONDS) $(top_srcdir)/tests/fuzz/proxy.dict
	$(SHELL) $(top_srcdir)/tests/fuzz/run-fuzz tests/fuzz/warm-fuzz \
		$(top_srcdir)/tests/fuzz/warm-corpus $(FUZZ_SECONDS) $(top_srcdir)/tests/fuzz/warm.dict
else
fuzz:
	@echo "make fuzz: skipped: configure found no clang that can link -fsanitize=fuzzer" \
		"(Debian: apt-get install clang libclang-rt-dev, then run configure again)"
endif
