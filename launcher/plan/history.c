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
 * that hides what follows it), a character that is not printable UTF-8
 * (a raw C1 byte, a bidi control), or longer than HIST_LINE_MAX, is
 * dropped. Nothing of the shells' own metadata is taken from the
 * sandbox: bash's time stamps (#1600000000, which also join the lines
 * between two of them into one entry) and zsh's (": 1600000000:0;") are
 * the supervisor's own, the time of the merge; a zsh line is checked as
 * zsh reads it back (its "metafied" bytes decoded: 0x83 then c is
 * c ^ 0x20, an ESC or a newline), and a zsh entry of more than one line
 * (each but the last ending in a backslash) is dropped whole, so that no
 * recalled entry holds a line that was not on the screen. */
#include "config.h"
#include "base/session.h"
#include "plan/history.h"
#include "plan/plan.h"
#include "plan/shell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "askproto.h"
#include "path.h"
#include "realpath.h"

#define HIST_READ_MAX (256 * 1024) /* the end of the session file, at most */
#define HIST_LINE_MAX 4096
/* Lines one session adds to the user's file, at most (its last ones):
 * the user's shell keeps only the newest HISTFILESIZE lines (bash: 500),
 * so a session that added more would push the user's own history out
 * and put commands of its choosing first in recall. */
#define HIST_LINES_MAX 100

/* --- pure ------------------------------------------------------------------ */

/* A line fit to keep: printable UTF-8 and TAB only (text_utf8_len: no C0
 * or C1 control, no DEL, no bidi control, nothing invalid). */
static bool line_ok(const char *p, size_t n)
{
	if (n == 0 || n > HIST_LINE_MAX)
		return false;
	for (size_t i = 0; i < n;) {
		size_t k = p[i] == '\t' ? 1 : text_utf8_len((const unsigned char *)p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

/* zsh's line as zsh reads it back: Meta (0x83) then c stands for
 * c ^ 0x20. Decoded into OUT (room for N); false when a Meta ends it. */
static bool zsh_unmetafy(const char *p, size_t n, char *out, size_t *m)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)p[i] == 0x83) {
			if (++i == n)
				return false;
			out[w++] = (char)(p[i] ^ 0x20);
		} else {
			out[w++] = p[i];
		}
	}
	*m = w;
	return true;
}

/* The length of zsh's extended-history prefix ": 1600000000:0;" at P,
 * or 0. */
static size_t zsh_stamp_len(const char *p, size_t n)
{
	size_t i = 0;
	if (n < 2 || p[0] != ':' || p[1] != ' ')
		return 0;
	i = 2;
	size_t d = i;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == d || i == n || p[i] != ':')
		return 0;
	d = ++i;
	while (i < n && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == d || i == n || p[i] != ';')
		return 0;
	return i + 1;
}

/* A line bash reads as a time stamp: "#" and a digit, whatever follows
 * (its HIST_TIMESTAMP_START). Once a file has one, bash joins the lines
 * up to the next into one entry, so "#1x" before "ls" and a hidden
 * command would make `!ls` run both. */
static bool bash_stamp(const char *p, size_t n)
{
	return n >= 2 && p[0] == '#' && p[1] >= '0' && p[1] <= '9';
}

size_t history_filter(const char *in, size_t n, char *out, bool partial_first, bool zsh,
		      bool *stamped)
{
	size_t w = 0, i = 0;
	char *dec = zsh ? xmalloc(n + 1) : NULL;
	bool joined = false; /* the line before ended in a backslash (zsh) */
	*stamped = false;
	if (partial_first) {
		/* Read from the middle of a line: that line is not whole. */
		while (i < n && in[i] != '\n')
			i++;
		i++;
	}
	while (i < n) {
		const char *line = in + i, *nl = memchr(line, '\n', n - i);
		size_t len = nl ? (size_t)(nl - line) : n - i;
		i += len + 1;
		if (!zsh) {
			if (bash_stamp(line, len)) {
				*stamped = true;
				continue;
			}
			if (line_ok(line, len)) {
				memcpy(out + w, line, len);
				w += len;
				out[w++] = '\n';
			}
			continue;
		}
		/* zsh: an entry of several lines goes whole, this one too. */
		bool cont = len && line[len - 1] == '\\', part = joined;
		joined = cont;
		if (part || cont)
			continue;
		size_t sl = zsh_stamp_len(line, len), m;
		if (sl)
			*stamped = true;
		else if (len >= 2 && line[0] == ':' && line[1] == ' ')
			continue; /* zsh reads any ": " as a stamp, ":  1500000000:0;" too */
		if (zsh_unmetafy(line + sl, len - sl, dec, &m) && line_ok(dec, m)) {
			memcpy(out + w, line + sl, len - sl);
			w += len - sl;
			out[w++] = '\n';
		}
	}
	free(dec);
	return w;
}

/* The user's own bash history file has time stamps: its end holds a line
 * like #1600000000 (then every line appended gets one, or bash would
 * join them into the entry before). */
static bool file_stamped(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return false;
	struct stat st;
	char buf[4096];
	ssize_t r = -1;
	off_t from = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		from = st.st_size > (off_t)sizeof buf ? st.st_size - (off_t)sizeof buf : 0;
		r = pread(fd, buf, sizeof buf, from);
	}
	close(fd);
	for (ssize_t j = 0; j < r;) {
		const char *nl = memchr(buf + j, '\n', (size_t)(r - j));
		size_t len = nl ? (size_t)(nl - (buf + j)) : (size_t)(r - j);
		/* Read from the middle of the file, the first line is cut. */
		if ((j > 0 || from == 0) && bash_stamp(buf + j, len))
			return true;
		j += (ssize_t)len + 1;
	}
	return false;
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
	s->hist_zsh = zsh;
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
	char *dir = path_dirname(target), *rdir = wk_realpath(dir);
	free(dir);
	if (!rdir || writable_root_of(&s->pol, rdir)) {
		free(rdir);
		free(target);
		return;
	}
	free(rdir);
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/wicket-history-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	char *made = mkdtemp(tmpl) ? wk_realpath(tmpl) : NULL;
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
	bool zsh = s->hist_zsh, stamped = false;
	size_t m = history_filter(in, n, out, partial, zsh, &stamped);
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
	/* The block begins with a line of the supervisor's saying whose it
	 * is: a comment, an entry both shells keep and show in recall. */
	if (m) {
		char when[32] = "";
		time_t t = time(NULL);
		struct tm tm;
		if (localtime_r(&t, &tm))
			strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
		char *mark = xasprintf("# wicket: the commands of sandbox session %s, %s\n",
				       s->session_id ? s->session_id : "?", when);
		size_t ml = strlen(mark);
		char *both = xmalloc(ml + m + 1);
		memcpy(both, mark, ml);
		memcpy(both + ml, out, m);
		free(mark);
		free(out);
		out = both;
		m += ml;
	}
	/* The time stamps are the supervisor's: zsh's when the session's
	 * lines had them (extended history), bash's when the user's file has
	 * them. */
	if (m && ((zsh && stamped) || (!zsh && file_stamped(s->hist_target)))) {
		char *st = xmalloc(m + (HIST_LINES_MAX + 2) * 32);
		long long now = (long long)time(NULL);
		size_t w = 0;
		for (size_t j = 0; j < m;) {
			const char *nl = memchr(out + j, '\n', m - j);
			size_t len = (size_t)(nl - (out + j)) + 1;
			w += (size_t)sprintf(st + w, zsh ? ": %lld:0;" : "#%lld\n", now);
			memcpy(st + w, out + j, len);
			w += len;
			j += len;
		}
		free(out);
		out = st;
		m = w;
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
