# C unit tests of the pure logic (TAP).
UNIT_CPPFLAGS = $(AM_CPPFLAGS)
check_PROGRAMS += tests/unit/test-path tests/unit/test-runslater tests/unit/test-envscrub tests/unit/test-plan \
	tests/unit/test-layers tests/unit/test-policy tests/unit/test-pty
EXTRA_DIST += tests/unit/tap.h
tests_unit_test_path_SOURCES = tests/unit/test-path.c
# wk_realpath against realpath() on a real tree.
check_PROGRAMS += tests/unit/test-realpath
tests_unit_test_realpath_SOURCES = tests/unit/test-realpath.c
tests_unit_test_realpath_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_realpath_LDADD = lib/libwicket.la $(JANSSON_LIBS)
tests_unit_test_path_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_path_LDADD = lib/libwicket.la $(JANSSON_LIBS)
tests_unit_test_runslater_SOURCES = tests/unit/test-runslater.c
tests_unit_test_runslater_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_runslater_LDADD = lib/libwicket.la $(JANSSON_LIBS)
tests_unit_test_envscrub_SOURCES = tests/unit/test-envscrub.c
tests_unit_test_envscrub_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_envscrub_LDADD = lib/libwicket.la $(JANSSON_LIBS)
tests_unit_test_plan_SOURCES = tests/unit/test-plan.c
tests_unit_test_plan_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_plan_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# The planner on a real tree: the plan, its refusals, what is done after.
check_PROGRAMS += tests/unit/test-planner tests/unit/test-walkidx
tests_unit_test_walkidx_SOURCES = tests/unit/test-walkidx.c
tests_unit_test_walkidx_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_walkidx_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
tests_unit_test_planner_SOURCES = tests/unit/test-planner.c
tests_unit_test_planner_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_planner_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# The Landlock plan (launcher/plan/llplan.c): every right and rule.
check_PROGRAMS += tests/unit/test-llplan
tests_unit_test_llplan_SOURCES = tests/unit/test-llplan.c
tests_unit_test_llplan_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_llplan_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
tests_unit_test_layers_SOURCES = tests/unit/test-layers.c
tests_unit_test_layers_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_layers_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
tests_unit_test_policy_SOURCES = tests/unit/test-policy.c
tests_unit_test_policy_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_policy_LDADD = lib/libwicket.la $(JANSSON_LIBS)
tests_unit_test_pty_SOURCES = tests/unit/test-pty.c
tests_unit_test_pty_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_pty_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# The notify programs against the plain ones, and what the supervisor says
# of a refused network call (netnotify.c); seccomp-bpf.h is generated.
check_PROGRAMS += tests/unit/test-netnotify
tests_unit_test_netnotify_SOURCES = tests/unit/test-netnotify.c
tests_unit_test_netnotify_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_netnotify_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# Which /proc entry `wicket ask` takes for its requester's (ask.c).
check_PROGRAMS += tests/unit/test-ask
tests_unit_test_ask_SOURCES = tests/unit/test-ask.c
tests_unit_test_ask_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_ask_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# Escalation rules (exact, "*", "**", escapes) and the CAREFUL decision
# (lib/careful.c) on a small tree with git repositories.
check_PROGRAMS += tests/unit/test-careful
tests_unit_test_careful_SOURCES = tests/unit/test-careful.c
tests_unit_test_careful_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_careful_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# The question `wicket ask` draws on the terminal (lib/askrender.c).
check_PROGRAMS += tests/unit/test-askrender
tests_unit_test_askrender_SOURCES = tests/unit/test-askrender.c
tests_unit_test_askrender_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_askrender_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# What of the sandbox's history file is kept (history.c).
check_PROGRAMS += tests/unit/test-history
tests_unit_test_history_SOURCES = tests/unit/test-history.c
tests_unit_test_history_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_history_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
# Descriptors over unix sockets (lib/fdpass.c), as the shim and the
# supervisor pass them.
check_PROGRAMS += tests/unit/test-fdpass
tests_unit_test_fdpass_SOURCES = tests/unit/test-fdpass.c
tests_unit_test_fdpass_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_fdpass_LDADD = lib/libcore.la
# What wicket exits with for a wait status (lib/util.c).
check_PROGRAMS += tests/unit/test-util
tests_unit_test_util_SOURCES = tests/unit/test-util.c
tests_unit_test_util_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_util_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# The WICKET_RULES codec (lib/rules.c): the launcher writes, the shim reads.
check_PROGRAMS += tests/unit/test-rules
tests_unit_test_rules_SOURCES = tests/unit/test-rules.c
tests_unit_test_rules_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_rules_LDADD = lib/libcore.la
# What the sandbox does to a path (lib/classify.c): one decision for the
# shim, `wicket why`, the plan, Landlock's unix rules and CAREFUL.
check_PROGRAMS += tests/unit/test-classify
tests_unit_test_classify_SOURCES = tests/unit/test-classify.c
tests_unit_test_classify_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_classify_LDADD = lib/libcore.la
# The permission bits' answer (lib/dac.c), which the shim asks where a
# read-only mount answers first.
check_PROGRAMS += tests/unit/test-dac
tests_unit_test_dac_SOURCES = tests/unit/test-dac.c
tests_unit_test_dac_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_dac_LDADD = lib/libcore.la
# The denial packet (lib/denialpkt.c, lib/denialpkt-json.c): the shim
# encodes, the supervisor decodes.
check_PROGRAMS += tests/unit/test-denialpkt
tests_unit_test_denialpkt_SOURCES = tests/unit/test-denialpkt.c
tests_unit_test_denialpkt_CPPFLAGS = $(UNIT_CPPFLAGS) $(JANSSON_CFLAGS)
tests_unit_test_denialpkt_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# The acknowledgement page (lib/ackpage.c): the supervisor writes, the
# shim waits on it.
check_PROGRAMS += tests/unit/test-ackpage
tests_unit_test_ackpage_SOURCES = tests/unit/test-ackpage.c
tests_unit_test_ackpage_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_ackpage_LDADD = lib/libcore.la
# The WICKET_FD format (lib/fdspec.c): control.c writes, the shim and
# `wicket why`/`ask` read.
check_PROGRAMS += tests/unit/test-fdspec
tests_unit_test_fdspec_SOURCES = tests/unit/test-fdspec.c
tests_unit_test_fdspec_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_fdspec_LDADD = lib/libcore.la
# Network mode "domains": names, patterns, addresses (lib/netdomain.c) and
# the proxy's HTTP and SOCKS5 parsers (lib/proxyparse.c).
check_PROGRAMS += tests/unit/test-proxy
tests_unit_test_proxy_SOURCES = tests/unit/test-proxy.c
tests_unit_test_proxy_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_proxy_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# Grants (lib/grant.c): canonical items, refusals, coverage.
check_PROGRAMS += tests/unit/test-grant
tests_unit_test_grant_SOURCES = tests/unit/test-grant.c
tests_unit_test_grant_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_grant_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# A refusal's grant and command (lib/grantderive.c): what `wicket why` and
# the shell hooks' `ask` offer.
check_PROGRAMS += tests/unit/test-utf8
tests_unit_test_utf8_SOURCES = tests/unit/test-utf8.c
tests_unit_test_utf8_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_utf8_LDADD = lib/libwicket.la $(JANSSON_LIBS)
check_PROGRAMS += tests/unit/test-grantderive
tests_unit_test_grantderive_SOURCES = tests/unit/test-grantderive.c
tests_unit_test_grantderive_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_grantderive_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# Warm sessions' protocol: `wicket exec`'s requests, the server's answers
# (lib/warmproto.c).
check_PROGRAMS += tests/unit/test-warmproto
tests_unit_test_warmproto_SOURCES = tests/unit/test-warmproto.c
tests_unit_test_warmproto_CPPFLAGS = $(UNIT_CPPFLAGS)
tests_unit_test_warmproto_LDADD = lib/libwicket.la $(JANSSON_LIBS)
