#include "config.h"
#define WK_UTIL_C /* defines the allocators util.h declares */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

const char *wicket_progname = "wicket";

__attribute__((format(printf, 1, 0)))
static void vmsg(const char *fmt, va_list ap, int err)
{
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "%s: ", wicket_progname);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = 0;
	int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
	if (m > 0)
		n = (size_t)(n + m) >= sizeof buf ? (int)sizeof buf - 1 : n + m;
	if (err && (size_t)n < sizeof buf - 1) {
		int k = snprintf(buf + n, sizeof buf - (size_t)n, ": %s", strerror(err));
		if (k > 0)
			n = (size_t)(n + k) >= sizeof buf ? (int)sizeof buf - 1 : n + k;
	}
	if ((size_t)n >= sizeof buf - 1)
		n = (int)sizeof buf - 2;
	/* A message may name what the sandbox chose (a path it made): none
	 * of its control bytes reaches the terminal, which would act on an
	 * escape sequence (set the clipboard, fake a question). */
	for (int i = 0; i < n; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' && buf[i] != '\t') || buf[i] == 0x7f)
			buf[i] = '?';
	buf[n++] = '\n';
	if (wk_before_message)
		wk_before_message();
	/* One write so concurrent messages never interleave mid-line. */
	ssize_t r = write(STDERR_FILENO, buf, (size_t)n);
	(void)r;
}

void (*wk_before_message)(void);

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(EXIT_WICKET);
}

void die_errno(const char *fmt, ...)
{
	int err = errno;
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, err);
	va_end(ap);
	exit(EXIT_WICKET);
}

void die_code(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
	exit(code);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap, 0);
	va_end(ap);
}

static noreturn void oom(void)
{
	static const char msg[] = "wicket: out of memory\n";
	ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
	(void)r;
	_exit(EXIT_WICKET);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void bytes_add(char **b, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*b = xrealloc(*b, *cap);
	}
	memcpy(*b + *len, p, n);
	*len += n;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *p;
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void strv_push(struct strv *sv, char *owned)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
	}
	sv->v[sv->n++] = owned;
	sv->v[sv->n] = NULL;
}

void strv_add(struct strv *sv, const char *s)
{
	strv_push(sv, xstrdup(s));
}

bool strv_contains(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

int exit_code_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return exit_code_of_signal(WTERMSIG(st));
	return EXIT_WICKET;
}

bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

ssize_t read_text_at(int dir, const char *path, char *buf, size_t size)
{
	if (size == 0)
		return -1;
	buf[0] = '\0';
	/* host: read_text_at's callers each say whose path it is */
	int fd = openat(dir, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}

bool write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_link(const char *link, char *buf, size_t size)
{
	/* host: /proc/self's own links */
	ssize_t n = readlink(link, buf, size);
	if (n <= 0 || (size_t)n >= size)
		return false;
	buf[n] = '\0';
	return true;
}

bool self_exe(char *buf, size_t size)
{
	return read_link("/proc/self/exe", buf, size);
}

bool path_of_fd(int fd, char *buf, size_t size)
{
	char link[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	return read_link(link, buf, size);
}

char *self_relative(const char *rel)
{
	char exe[PATH_MAX];
	if (!self_exe(exe, sizeof exe))
		return NULL;
	char *slash = strrchr(exe, '/');
	if (!slash || (size_t)(slash - exe) + 1 + strlen(rel) + 1 > sizeof exe)
		return NULL;
	strcpy(slash + 1, rel);
	/* host: our own executable */
	return realpath(exe, NULL);
}

DIR *opendir_dup(int dfd)
{
	int fd = dup(dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	if (d)
		rewinddir(d); /* the offset is shared with DFD and earlier streams */
	return d;
}

/* Everything below the directory open at dfd, each level opened relative
 * to its parent with O_NOFOLLOW: a path string through directories
 * someone else can write (a sandbox that outlives its session) could be
 * turned into a symbolic link between a walk and its unlink. */
static void rm_below(int dfd, int depth)
{
	for (int pass = 0; pass < 4; pass++) {
		DIR *d = opendir_dup(dfd);
		if (!d)
			return;
		bool left = false;
		struct dirent *e;
		while ((e = readdir(d))) {
			const char *n = e->d_name;
			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if (unlinkat(dfd, n, 0) == 0 || errno == ENOENT)
				continue;
			/* host: rm_tree walks the supervisor's own directories, links not followed */
			int sub = openat(dfd, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				if (depth < 64)
					rm_below(sub, depth + 1);
				close(sub);
			}
			if (unlinkat(dfd, n, AT_REMOVEDIR) < 0 && errno != ENOENT)
				left = true;
		}
		closedir(d);
		if (!left)
			return;
	}
}

void rm_tree(const char *path)
{
	/* host: a directory the supervisor made (rm_tree) */
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	rm_below(fd, 0);
	close(fd);
	rmdir(path);
}

long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

struct timespec monotonic_after_ms(long ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += ms % 1000 * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}
