# `make bench`: wicket's start-up cost against bare `true`, the floor
# (bench/floor) and bubblewrap, and the preload shim's overhead against the
# same sandbox without it (a create loop, a parallel build, a storm of
# denials), interleaved. Reports numbers; never part of `make check`.
# See bench/README.md.
EXTRA_PROGRAMS += bench/floor bench/spawnbench bench/workload bench/autorunbench \
	bench/seccompcost bench/layerwrap bench/warmcall bench/notifyrtt
# A tool call through a warm session's socket, as a harness speaking its
# protocol makes it, against a bare spawn (the warm section).
bench_warmcall_SOURCES = bench/warmcall.c
bench_warmcall_LDADD = lib/libwicket.la $(JANSSON_LIBS)
# The instructions each seccomp program runs per system call (README.md,
# "Where the time goes"): reads the generated launcher/child/seccomp-bpf.h.
bench_seccompcost_SOURCES = bench/seccompcost.c
nodist_EXTRA_bench_seccompcost_SOURCES = launcher/child/seccomp-bpf.h
# One kernel layer alone (Landlock, seccomp) for the same breakdown.
# bench/layers.c: the layers of a session as layerwrap and floor apply them.
bench_layerwrap_SOURCES = bench/layerwrap.c bench/layers.c bench/layers.h
nodist_EXTRA_bench_layerwrap_SOURCES = launcher/child/seccomp-bpf.h
# The floor's -c empties the bounding set with the launcher's own code.
bench_floor_SOURCES = bench/floor.c bench/layers.c bench/layers.h \
	launcher/child/caps.c launcher/base/setupfail.c
nodist_EXTRA_bench_floor_SOURCES = launcher/child/seccomp-bpf.h
bench_autorunbench_SOURCES = bench/autorunbench.c
bench_autorunbench_LDADD = launcher/libwicketcore.la $(JANSSON_LIBS)
bench_spawnbench_SOURCES = bench/spawnbench.c
bench_workload_SOURCES = bench/workload.c
# The floor of any supervisor of sendmsg by seccomp notification (README.md,
# "Messages and connections over sockets").
bench_notifyrtt_SOURCES = bench/notifyrtt.c
EXTRA_DIST += bench/run-bench bench/README.md bench/gen-project bench/quantile.awk bench/pairstat.awk bench/insidestat.awk bench/hookbench.py bench/grantbench.py \
	bench/ipcstat.awk bench/ipcbench.py
CLEANFILES += bench/floor$(EXEEXT) bench/spawnbench$(EXEEXT) bench/workload$(EXEEXT) \
	bench/autorunbench$(EXEEXT) bench/seccompcost$(EXEEXT) \
	bench/layerwrap$(EXEEXT) bench/warmcall$(EXEEXT) bench/notifyrtt$(EXEEXT)

BENCH_DEPS = launcher/wicket$(EXEEXT) bench/floor$(EXEEXT) bench/spawnbench$(EXEEXT) \
	bench/workload$(EXEEXT) bench/warmcall$(EXEEXT) bench/layerwrap$(EXEEXT) \
	bench/seccompcost$(EXEEXT) bench/notifyrtt$(EXEEXT) preload/libwicket-preload.so

.PHONY: bench
bench: $(BENCH_DEPS)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" \
	BENCH_BINDIR="$(abs_top_builddir)/bench" \
	$(SHELL) $(top_srcdir)/bench/run-bench
# The round trip of an auto-approved `wicket ask -- true` (bench/askbench.sh).
EXTRA_DIST += bench/askbench.sh
.PHONY: bench-ask
bench: bench-ask
bench-ask: launcher/wicket$(EXEEXT)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" $(SHELL) $(top_srcdir)/bench/askbench.sh
# Network mode "domains": the proxy's throughput, latency and start-up
# cost against a minimal splice relay and srt's proxy (SRT_DIR: where
# @anthropic-ai/sandbox-runtime is installed; bench/domainsbench.sh).
EXTRA_DIST += bench/domainsbench.sh
.PHONY: bench-domains
bench: bench-domains
bench-domains: launcher/wicket$(EXEEXT) bench/splicerelay$(EXEEXT)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" \
	BENCH_BINDIR="$(abs_top_builddir)/bench" SRT_DIR="$(SRT_DIR)" \
	$(SHELL) $(top_srcdir)/bench/domainsbench.sh
# What the check of the files that run code (launcher/plan/autorun.c) costs a
# session, on a root of 100 000 files without and with a .git.
.PHONY: bench-autorun
bench-autorun: bench/autorunbench$(EXEEXT) launcher/wicket$(EXEEXT)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" \
	$(SHELL) $(top_srcdir)/bench/autorun-bench bench/autorunbench$(EXEEXT)
EXTRA_DIST += bench/autorun-bench
# The floor of any proxy (bench/proxybench.sh): a minimal splice relay.
EXTRA_PROGRAMS += bench/splicerelay
bench_splicerelay_SOURCES = bench/splicerelay.c
bench_splicerelay_LDADD = -lpthread
CLEANFILES += bench/splicerelay$(EXEEXT)
