/* tiocsti: push characters into a terminal's input queue.
 *
 *   tiocsti REQUEST TEXT [DEVICE]
 *
 * REQUEST is the full 64-bit ioctl request in hex (e.g. 0x5412 or
 * 0xffffffff00005412: the kernel only looks at the low 32 bits). DEVICE
 * defaults to standard input. Prints "tiocsti: OK" or "tiocsti: ERRNAME";
 * exit 0 when every character was pushed. The tests judge what the outer
 * shell reads after the sandbox exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: tiocsti REQUEST TEXT [DEVICE]\n");
		return 2;
	}
	unsigned long req = strtoul(argv[1], NULL, 16);
	int fd = 0;
	if (argc == 4 && (fd = open(argv[3], O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
		printf("open: %s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
		return 1;
	}
	for (const char *c = argv[2]; *c; c++) {
		/* The raw system call, so the full 64-bit request reaches the
		 * kernel (and the filter) unchanged. */
		if (syscall(SYS_ioctl, fd, req, c) < 0) {
			const char *n = strerrorname_np(errno);
			printf("tiocsti: %s\n", n ? n : "E?");
			return 1;
		}
	}
	printf("tiocsti: OK\n");
	return 0;
}
