# libwicket-preload.so: the LD_PRELOAD shim that explains sandbox denials
# (DESIGN §5, preload/README.md). Installed under $(pkglibdir); in the
# build tree a copy sits at preload/libwicket-preload.so, so the launcher
# and the tests can use it before `make install`.
pkglib_LTLIBRARIES = preload/libwicket-preload.la
preload_libwicket_preload_la_SOURCES = preload/preload.c preload/diag.c preload/diag.h \
	preload/fdguard.c preload/fdguard.h
preload_libwicket_preload_la_LIBADD = lib/libcore.la
# No fortified inline wrappers over the functions defined here; nothing
# exported but the interposed entry points; bound at load time; libc only
# (dlsym is in libc since glibc 2.34).
preload_libwicket_preload_la_CFLAGS = $(AM_CFLAGS) -U_FORTIFY_SOURCE -fvisibility=hidden \
	-fno-delete-null-pointer-checks
preload_libwicket_preload_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,-z,now -Wl,-z,relro -Wl,--as-needed
EXTRA_DIST += preload/README.md

noinst_DATA += preload/libwicket-preload.so
preload/libwicket-preload.so: preload/libwicket-preload.la
	$(AM_V_GEN)cp -f preload/.libs/libwicket-preload.so $@.tmp && mv -f $@.tmp $@
CLEANFILES += preload/libwicket-preload.so

# The shim's tests (tests/preload/*.bats, run by tests/run-tests): a probe
# that calls each interposed function, and one that does to inherited
# descriptors what programs do (fdguard.bats).
check_PROGRAMS += tests/preload/shimprobe tests/preload/fdprobe
tests_preload_shimprobe_SOURCES = tests/preload/shimprobe.c
tests_preload_fdprobe_SOURCES = tests/preload/fdprobe.c
tests_preload_fdprobe_LDADD = -lpthread
EXTRA_DIST += tests/preload/preload_helpers.bash tests/preload/diagnostics.bats \
	tests/preload/programs.bats tests/preload/fdguard.bats
