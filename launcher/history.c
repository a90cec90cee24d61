/* The interactive shell's history (wicket(1), THE INTERACTIVE SHELL).
 *
 * The sandbox may not write the user's history file (it lies outside the
 * writable roots), and must not: a file the host's shells read back is a
 * way out if the sandbox chooses what is in it. So the shell gets a
 * history file of the session's own, in a directory the supervisor makes
 * (mode 0700) and adds as a writable root, named by WICKET_HISTFILE; the
 * hooks read the real history for recall, point HISTFILE at the session
 * file and append to it (bash histappend; zsh appends by default), so it
 * holds this session's commands only. At the end the supervisor appends
 * them to the real file, which it alone names ($HISTFILE as wicket was
 * started, else ~/.bash_history or ~/.zsh_history): never a file the
 * sandbox names.
 *
 * Everything in the session file was written by the sandbox: it is read
 * as data only, through the directory the supervisor holds open, with
 * O_NOFOLLOW and O_NONBLOCK, a regular file of the user's with one link
 * (not a symlink, a FIFO or a hard link to a file the supervisor could
 * read and the sandbox not), at most HIST_READ_MAX bytes (its end); a
 * line with a control character (an escape sequence, a carriage return
 * that hides what follows it), or longer than HIST_LINE_MAX, is dropped. */
#include "config.h"
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

#define HIST_READ_MAX (256 * 1024) /* the end of the session file, at most */
#define HIST_LINE_MAX 4096
/* Lines one session adds to the user's file, at most (its last ones):
 * the user's shell keeps only the newest HISTFILESIZE lines (bash: 500),
 * so a session that added more would push the user's own history out
 * and put commands of its choosing first in recall. */
#define HIST_LINES_MAX 100

/* --- pure ------------------------------------------------------------------ */

/* A line fit to keep: no C0 control but TAB, no DEL, no C1 control in
 * UTF-8 (U+0080..U+009F, which some terminals obey as ESC [ ...). */
static bool line_ok(const char *p, size_t n)
{
	if (n == 0 || n > HIST_LINE_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return false;
		if (c == 0xc2 && i + 1 < n && (unsigned char)p[i + 1] >= 0x80 &&
		    (unsigned char)p[i + 1] <= 0x9f)
			return false;
	}
	return true;
}

size_t history_filter(const char *in, size_t n, char *out, bool partial_first)
{
	size_t w = 0, i = 0;
	if (partial_first) {
		/* Read from the middle of a line: that line is not whole. */
		while (i < n && in[i] != '\n')
			i++;
		i++;
	}
	while (i < n) {
		const char *nl = memchr(in + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : n - i;
		if (line_ok(in + i, len)) {
			memcpy(out + w, in + i, len);
			w += len;
			out[w++] = '\n';
		}
		i += len + 1;
	}
	return w;
}

/* --- the session's history file ------------------------------------------ */

void history_plan(struct session *s, const char *want, const struct passwd *pw)
{
	s->hist_dirfd = -1;
	/* A read-only session changes nothing outside, its history neither. */
	if (!s->pol.sandbox || !s->homes[0] || s->read_only || s->pol.write.n == 0)
		return;
	char *sh = shell_path(want, pw);
	const char *base = strrchr(sh, '/') ? strrchr(sh, '/') + 1 : sh;
	bool bash = strcmp(base, "bash") == 0, zsh = strcmp(base, "zsh") == 0;
	free(sh);
	if (!bash && !zsh)
		return;
	const char *hf = getenv("HISTFILE");
	char *target;
	if (hf && hf[0] == '/') {
		target = path_normalize(hf);
	} else if (hf && hf[0]) {
		return; /* relative: the shell's current directory decides; not ours to guess */
	} else {
		const char *z = zsh ? getenv("ZDOTDIR") : NULL;
		target = path_join(z && z[0] == '/' ? z : s->homes[0],
				   zsh ? ".zsh_history" : ".bash_history");
	}
	/* Where the sandbox may write it, the shell does so itself. */
	char *dir = path_dirname(target), *rdir = realpath(dir, NULL);
	free(dir);
	if (!rdir || writable_root_of(&s->pol, rdir)) {
		free(rdir);
		free(target);
		return;
	}
	free(rdir);
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/wicket-history-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	char *made = mkdtemp(tmpl) ? realpath(tmpl, NULL) : NULL;
	if (!made) {
		warnmsg("no history file for the session (%s: %s): commands typed in it are not kept",
			tmpl, strerror(errno));
		free(tmpl);
		free(target);
		return;
	}
	free(tmpl);
	s->hist_dirfd = open(made, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->hist_dirfd < 0) {
		rmdir(made);
		free(made);
		free(target);
		return;
	}
	s->hist_dir = made;
	s->hist_target = target;
	strv_push(&s->pol.write, xstrdup(made));
	strv_push(&s->shell_env, xasprintf("WICKET_HISTFILE=%s/history", made));
}

/* What the sandbox wrote into the session file, read as described above;
 * NULL when there is nothing to take. */
static char *read_session_file(int dirfd, size_t *len, bool *partial)
{
	int fd = openat(dirfd, "history", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1 || st.st_size <= 0) {
		close(fd);
		return NULL;
	}
	off_t from = st.st_size > HIST_READ_MAX ? st.st_size - HIST_READ_MAX : 0;
	char *buf = xmalloc(HIST_READ_MAX);
	size_t n = 0;
	while (n < HIST_READ_MAX) {
		ssize_t r = pread(fd, buf + n, HIST_READ_MAX - n, from + (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	*partial = from > 0;
	return buf;
}

void history_merge(struct session *s)
{
	if (!s->hist_dir || s->hist_dirfd < 0)
		return;
	size_t n = 0;
	bool partial = false;
	char *in = read_session_file(s->hist_dirfd, &n, &partial);
	close(s->hist_dirfd);
	s->hist_dirfd = -1;
	if (!in)
		return;
	char *out = xmalloc(n + 1);
	size_t m = history_filter(in, n, out, partial);
	free(in);
	size_t keep_from = 0, lines = 0;
	for (size_t i = m; i > 0; i--)
		if (out[i - 1] == '\n' && i != m && ++lines == HIST_LINES_MAX) {
			keep_from = i;
			break;
		}
	if (keep_from) {
		memmove(out, out + keep_from, m - keep_from);
		m -= keep_from;
	}
	if (m) {
		/* The user's own file: not a symlink, not a device or FIFO. */
		int fd = open(s->hist_target, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
				  O_CLOEXEC | O_NOCTTY, 0600);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			warnmsg("%s: the session's history is not kept (%s)", s->hist_target,
				fd < 0 ? strerror(errno) : "not a regular file of yours");
		} else if (!write_all(fd, out, m)) {
			warnmsg("%s: the session's history is not all kept (%s)", s->hist_target,
				strerror(errno));
		}
		if (fd >= 0)
			close(fd);
	}
	free(out);
}
