/* memprobe: reading, writing and signalling another process.
 *
 *   memprobe victim FILE SECRET SECS
 *       holds SECRET in a buffer, writes the buffer's address to FILE and,
 *       on SIGUSR1, the buffer's current contents to FILE.dump; exits
 *       after SECS seconds. Run by the host as the target of the attacks.
 *   memprobe mem-write PID ADDR DATA      pwrite /proc/PID/mem
 *   memprobe mem-read PID ADDR LEN        pread /proc/PID/mem, print it
 *   memprobe vm-write PID ADDR DATA       process_vm_writev
 *   memprobe vm-read PID ADDR LEN         process_vm_readv, print it
 *   memprobe ptrace-poke PID ADDR DATA    PTRACE_ATTACH + POKEDATA
 *   memprobe ptrace-seize PID SECS        PTRACE_SEIZE, hold it SECS seconds
 *   memprobe pidfd-kill PID               pidfd_open + pidfd_send_signal(SIGKILL)
 *
 * Prints "MODE: OK" or "MODE: ERRNAME"; exit 0 only when the attack call
 * itself succeeded. The tests judge the victim, not this output. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char victim_buf[64];
static volatile sig_atomic_t want_dump;

static void on_usr1(int sig)
{
	(void)sig;
	want_dump = 1;
}

static int report(const char *mode, int ok, int err)
{
	if (ok)
		printf("%s: OK\n", mode);
	else
		printf("%s: %s\n", mode, strerrorname_np(err) ? strerrorname_np(err) : "E?");
	fflush(stdout);
	return ok ? 0 : 1;
}

static int write_file_atomic(const char *path, const char *text, size_t len)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -1;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, len);
	close(fd);
	if (n != (ssize_t)len)
		return -1;
	return rename(tmp, path);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int victim(const char *file, const char *secret, int secs)
{
	char line[64];
	char dump[4096];
	snprintf(victim_buf, sizeof victim_buf, "%s", secret);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	int n = snprintf(line, sizeof line, "%lx\n", (unsigned long)(uintptr_t)victim_buf);
	if (write_file_atomic(file, line, (size_t)n) < 0)
		return 2;
	if (snprintf(dump, sizeof dump, "%s.dump", file) >= (int)sizeof dump)
		return 2;
	for (int i = 0; i < secs * 10; i++) {
		sleep_ms(100);
		if (want_dump) {
			want_dump = 0;
			/* Read through a volatile pointer: the buffer may have been
			 * changed behind the compiler's back, which is the point. */
			char copy[sizeof victim_buf + 1];
			volatile char *v = victim_buf;
			for (size_t k = 0; k < sizeof victim_buf; k++)
				copy[k] = v[k];
			copy[sizeof victim_buf] = '\0';
			size_t len = strnlen(copy, sizeof victim_buf);
			copy[len] = '\n';
			write_file_atomic(dump, copy, len + 1);
		}
	}
	return 0;
}

static unsigned long parse_addr(const char *s)
{
	return strtoul(s, NULL, 16);
}

static int ptrace_poke(pid_t pid, unsigned long addr, const char *data)
{
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0)
		return report("ptrace-poke", 0, errno);
	int st;
	if (waitpid(pid, &st, __WALL) < 0)
		return report("ptrace-poke", 0, errno);
	size_t len = strlen(data) + 1;
	int ok = 1, err = 0;
	for (size_t off = 0; off < len; off += sizeof(long)) {
		errno = 0;
		long word = ptrace(PTRACE_PEEKDATA, pid, (void *)(addr + off), NULL);
		if (errno) {
			ok = 0, err = errno;
			break;
		}
		size_t chunk = len - off < sizeof(long) ? len - off : sizeof(long);
		memcpy(&word, data + off, chunk);
		if (ptrace(PTRACE_POKEDATA, pid, (void *)(addr + off), (void *)word) < 0) {
			ok = 0, err = errno;
			break;
		}
	}
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	return report("ptrace-poke", ok, err);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: memprobe MODE ARGS... (see the source)\n");
		return 2;
	}
	const char *mode = argv[1];
	if (strcmp(mode, "victim") == 0 && argc == 5)
		return victim(argv[2], argv[3], atoi(argv[4]));

	pid_t pid = (pid_t)atoi(argv[2]);
	if (strcmp(mode, "pidfd-kill") == 0) {
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pfd < 0)
			return report(mode, 0, errno);
		if (syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) < 0)
			return report(mode, 0, errno);
		return report(mode, 1, 0);
	}
	if (strcmp(mode, "ptrace-seize") == 0 && argc == 4) {
		if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0)
			return report(mode, 0, errno);
		report(mode, 1, 0);
		sleep_ms(1000L * atoi(argv[3]));
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "memprobe %s: wrong number of arguments\n", mode);
		return 2;
	}
	unsigned long addr = parse_addr(argv[3]);
	if (strcmp(mode, "ptrace-poke") == 0)
		return ptrace_poke(pid, addr, argv[4]);
	if (strcmp(mode, "mem-write") == 0 || strcmp(mode, "mem-read") == 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/%d/mem", (int)pid);
		int wr = mode[4] == 'w';
		int fd = open(path, (wr ? O_RDWR : O_RDONLY) | O_CLOEXEC);
		if (fd < 0)
			return report(mode, 0, errno);
		if (wr) {
			size_t len = strlen(argv[4]) + 1;
			if (pwrite(fd, argv[4], len, (off_t)addr) != (ssize_t)len)
				return report(mode, 0, errno);
			return report(mode, 1, 0);
		}
		char buf[256] = "";
		size_t len = (size_t)atoi(argv[4]);
		if (len >= sizeof buf)
			len = sizeof buf - 1;
		ssize_t n = pread(fd, buf, len, (off_t)addr);
		if (n < 0)
			return report(mode, 0, errno);
		buf[n] = '\0';
		printf("read: %s\n", buf);
		return report(mode, 1, 0);
	}
	if (strcmp(mode, "vm-write") == 0) {
		size_t len = strlen(argv[4]) + 1;
		struct iovec local = {argv[4], len};
		struct iovec remote = {(void *)addr, len};
		if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
			return report(mode, 0, errno);
		return report(mode, 1, 0);
	}
	if (strcmp(mode, "vm-read") == 0) {
		char buf[256] = "";
		size_t len = (size_t)atoi(argv[4]);
		if (len >= sizeof buf)
			len = sizeof buf - 1;
		struct iovec local = {buf, len};
		struct iovec remote = {(void *)addr, len};
		ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n < 0)
			return report(mode, 0, errno);
		buf[n] = '\0';
		printf("read: %s\n", buf);
		return report(mode, 1, 0);
	}
	fprintf(stderr, "memprobe: unknown mode %s\n", mode);
	return 2;
}
