/* compat: system calls through the i386 (int 0x80) and x32 entry points,
 * which a filter written for x86_64 numbers would not recognise.
 *
 *   compat i386-getpid | x32-getpid    does this ABI exist here at all?
 *   compat i386-mkdir PATH | i386-creat PATH
 *   compat x32-mkdir PATH  | x32-creat PATH
 *   compat i386-tiocsti TEXT           ioctl(0, TIOCSTI) per character
 *
 * Prints "MODE: RESULT" (the raw return value, negative errno for i386).
 * Exit 0 when the call succeeded. Under the sandbox these are expected to
 * kill the process (bad-arch action): the tests judge the effect. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if !defined(__x86_64__)
int main(void)
{
	puts("compat: not x86_64");
	return 3;
}
#else

#define X32_BIT 0x40000000L
#define I386_creat 8
#define I386_getpid 20
#define I386_mkdir 39
#define I386_ioctl 54
#define TIOCSTI_NR 0x5412

static long int80(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	return r;
}

/* int 0x80 takes 32-bit pointers: copy the argument below 2 GiB. */
static long low_copy(const char *s)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		       -1, 0);
	if (p == MAP_FAILED)
		return 0;
	snprintf(p, 4096, "%s", s);
	return (long)(unsigned long)p;
}

static int show(const char *mode, long r)
{
	printf("%s: %ld\n", mode, r);
	fflush(stdout);
	return r >= 0 ? 0 : 1;
}

static long x32(long nr, long a, long b)
{
	long r = syscall(X32_BIT | nr, a, b);
	return r < 0 ? -errno : r;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: compat MODE [ARG]\n");
		return 2;
	}
	const char *m = argv[1];
	const char *arg = argc > 2 ? argv[2] : "";
	if (strcmp(m, "i386-getpid") == 0)
		return show(m, int80(I386_getpid, 0, 0, 0));
	if (strcmp(m, "x32-getpid") == 0)
		return show(m, x32(SYS_getpid, 0, 0));
	if (argc != 3) {
		fprintf(stderr, "compat %s: needs an argument\n", m);
		return 2;
	}
	if (strcmp(m, "i386-mkdir") == 0)
		return show(m, int80(I386_mkdir, low_copy(arg), 0755, 0));
	if (strcmp(m, "i386-creat") == 0)
		return show(m, int80(I386_creat, low_copy(arg), 0644, 0));
	if (strcmp(m, "x32-mkdir") == 0)
		return show(m, x32(SYS_mkdir, (long)arg, 0755));
	if (strcmp(m, "x32-creat") == 0)
		return show(m, x32(SYS_creat, (long)arg, 0644));
	if (strcmp(m, "i386-tiocsti") == 0) {
		long p = low_copy(arg);
		long r = 0;
		for (size_t i = 0; i < strlen(arg) && r >= 0; i++)
			r = int80(I386_ioctl, 0, TIOCSTI_NR, p + (long)i);
		return show(m, r);
	}
	fprintf(stderr, "compat: unknown mode %s\n", m);
	return 2;
}
#endif
