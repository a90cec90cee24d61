# `make bench`: wicket's start-up cost against bare `true`, the floor
# (bench/floor) and bubblewrap, interleaved. Reports numbers; never part of
# `make check`. See bench/README.md.
EXTRA_PROGRAMS += bench/floor bench/spawnbench
bench_floor_SOURCES = bench/floor.c
bench_spawnbench_SOURCES = bench/spawnbench.c
EXTRA_DIST += bench/run-bench bench/README.md
CLEANFILES += bench/floor$(EXEEXT) bench/spawnbench$(EXEEXT)

.PHONY: bench
bench: launcher/wicket$(EXEEXT) bench/floor$(EXEEXT) bench/spawnbench$(EXEEXT)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" \
	BENCH_BINDIR="$(abs_top_builddir)/bench" \
	$(SHELL) $(top_srcdir)/bench/run-bench
# The round trip of an auto-approved `wicket ask -- true` (bench/askbench.sh).
EXTRA_DIST += bench/askbench.sh
.PHONY: bench-ask
bench: bench-ask
bench-ask: launcher/wicket$(EXEEXT)
	WICKET="$(abs_top_builddir)/launcher/wicket$(EXEEXT)" $(SHELL) $(top_srcdir)/bench/askbench.sh
