/* Denial diagnostics, the launcher's side: find the preload shim, tell it
 * the session's rules, give it a pipe back to the supervisor, and copy
 * what arrives there to the supervisor's stderr (DESIGN §5).
 *
 * The pipe is written by code running inside the sandbox, so nothing that
 * arrives is trusted: only lines that start with "sandbox: " are passed
 * on, control characters are replaced, and lines are cut at a fixed
 * length. The write end is non-blocking: a sandboxed program never waits
 * for the supervisor to read. */
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

#define SHIM_NAME "libwicket-preload.so"
#define DIAG_LINE_MAX 1024

/* The shim next to this wicket (a build tree: preload/.libs/ is where
 * libtool leaves it), else the installed one. */
static char *find_shim(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *dir = path_dirname(exe);
		static const char *const rel[] = {"../preload/.libs/" SHIM_NAME,
						  "../preload/" SHIM_NAME, NULL};
		for (size_t i = 0; rel[i]; i++) {
			char *j = path_join(dir, rel[i]);
			char *c = realpath(j, NULL);
			free(j);
			if (c && access(c, R_OK) == 0) {
				free(dir);
				return c;
			}
			free(c);
		}
		free(dir);
	}
	char *inst = realpath(PKGLIBDIR "/" SHIM_NAME, NULL);
	if (inst && access(inst, R_OK) == 0)
		return inst;
	free(inst);
	return NULL;
}

void diag_plan(struct session *s)
{
	s->diag_rd = s->diag_wr = -1;
	if (!s->diagnostics || !s->pol.sandbox)
		return;
	char *shim = find_shim();
	/* A shim the sandbox cannot see (under the private /tmp or the
	 * covered /run) would only make the dynamic loader complain. */
	if (!shim || plan_covered(&s->plan, shim)) {
		free(shim);
		return;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		free(shim);
		return;
	}
	/* Never one of 0..2 (a caller may have closed them). */
	for (int i = 0; i < 2; i++) {
		if (p[i] > 2)
			continue;
		int hi = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
		close(p[i]);
		p[i] = hi;
	}
	if (p[0] < 0 || p[1] < 0) {
		if (p[0] >= 0)
			close(p[0]);
		if (p[1] >= 0)
			close(p[1]);
		free(shim);
		return;
	}
	/* Never block a sandboxed program on a full pipe: a line that does
	 * not fit is dropped. */
	fcntl(p[1], F_SETFL, fcntl(p[1], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	s->diag_rd = p[0];
	s->diag_wr = p[1];
	s->shim_path = shim;
}

static void rules_add(char **buf, size_t *len, size_t *cap, char kind, const char *v)
{
	size_t need = strlen(v) + 3;
	while (*len + need + 1 > *cap)
		*buf = xrealloc(*buf, *cap = *cap ? *cap * 2 : 1024);
	(*buf)[(*len)++] = kind;
	(*buf)[(*len)++] = ' ';
	memcpy(*buf + *len, v, strlen(v));
	*len += strlen(v);
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
}

/* The environment the shim reads: LD_PRELOAD (appended to the caller's
 * own), WICKET_RULES and WICKET_DIAG_FD. Returns how many it added to
 * ENV (which has room), replacing any inherited ones. */
size_t diag_env(const struct session *s, char **env, size_t w)
{
	if (s->diag_wr < 0)
		return w;
	const char *pre = NULL;
	size_t k = 0;
	for (size_t r = 0; r < w; r++) {
		if (strncmp(env[r], "LD_PRELOAD=", 11) == 0)
			pre = env[r] + 11;
		else if (strncmp(env[r], "WICKET_RULES=", 13) == 0 ||
			 strncmp(env[r], "WICKET_DIAG_FD=", 15) == 0)
			continue;
		else
			env[k++] = env[r];
	}
	w = k;
	if (pre && pre[0])
		env[w++] = xasprintf("LD_PRELOAD=%s:%s", pre, s->shim_path);
	else
		env[w++] = xasprintf("LD_PRELOAD=%s", s->shim_path);

	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (size_t i = 0; i < s->pol.read.n; i++)
		rules_add(&buf, &len, &cap, 'r', s->pol.read.v[i]);
	for (size_t i = 0; i < s->pol.write.n; i++)
		rules_add(&buf, &len, &cap, 'w', s->pol.write.v[i]);
	if (s->layers.mntns)
		rules_add(&buf, &len, &cap, 'w', "/tmp");
	/* Canonical where they exist, as written where they do not. */
	for (size_t i = 0; i < s->plan.protect.n; i++)
		rules_add(&buf, &len, &cap, 'p', s->plan.protect.v[i]);
	for (size_t i = 0; i < s->pol.protect.n; i++)
		if (!strv_contains(&s->plan.protect, s->pol.protect.v[i]))
			rules_add(&buf, &len, &cap, 'p', s->pol.protect.v[i]);
	for (size_t i = 0; i < s->plan.hide.n; i++)
		rules_add(&buf, &len, &cap, 'h', s->plan.hide.v[i]);
	for (size_t i = 0; i < s->pol.hide.n; i++)
		if (!strv_contains(&s->plan.hide, s->pol.hide.v[i]))
			rules_add(&buf, &len, &cap, 'h', s->pol.hide.v[i]);
	rules_add(&buf, &len, &cap, 'n',
		  s->pol.net == NET_FULL ? "full" : s->pol.net == NET_PORTS ? "ports" : "none");
	char port[8];
	for (size_t i = 0; s->pol.net == NET_PORTS && i < s->pol.connect.n; i++) {
		snprintf(port, sizeof port, "%u", s->pol.connect.v[i]);
		rules_add(&buf, &len, &cap, 'c', port);
	}
	for (size_t i = 0; s->pol.net == NET_PORTS && i < s->pol.bind.n; i++) {
		snprintf(port, sizeof port, "%u", s->pol.bind.v[i]);
		rules_add(&buf, &len, &cap, 'b', port);
	}
	if (s->pol.net == NET_PORTS && s->pol.udp)
		rules_add(&buf, &len, &cap, 'u', "1");
	env[w++] = xasprintf("WICKET_RULES=%s", buf ? buf : "");
	free(buf);
	/* With the pipe's identity: a process that closed the descriptor and
	 * reused its number must not get our lines in its own pipe. */
	struct stat st;
	if (fstat(s->diag_wr, &st) == 0)
		env[w++] = xasprintf("WICKET_DIAG_FD=%d:%llu:%llu", s->diag_wr,
				     (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
	else
		env[w++] = xasprintf("WICKET_DIAG_FD=%d", s->diag_wr);
	env[w] = NULL;
	return w;
}

/* --- the supervisor's end ---------------------------------------------- */

static char line[DIAG_LINE_MAX + 2];
static size_t line_len;
static bool line_skip; /* the rest of an overlong line */
static unsigned counts[3]; /* write, read, network */

/* Length of the UTF-8 sequence at P (N bytes left) if it is a valid one
 * that a terminal shows as text, else 0: no C1 controls (U+0080-U+009F),
 * no bidirectional overrides or isolates, nothing overlong or invalid. */
static size_t utf8_text(const unsigned char *p, size_t n)
{
	unsigned cp;
	size_t len;
	if (p[0] < 0x80)
		return p[0] >= 0x20 && p[0] != 0x7f ? 1 : 0;
	if ((p[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const unsigned min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp <= 0x9f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
	    cp == 0x200e || cp == 0x200f || cp == 0x061c)
		return 0;
	return len;
}

static void emit(void)
{
	static const char prefix[] = "sandbox: ";
	if (line_len < sizeof prefix - 1 || memcmp(line, prefix, sizeof prefix - 1) != 0)
		return;
	/* No terminal control from inside the sandbox: printable text is
	 * kept (file names may be UTF-8), anything else becomes '?'. */
	for (size_t i = 0; i < line_len;) {
		size_t k = utf8_text((const unsigned char *)line + i, line_len - i);
		if (k) {
			i += k;
		} else {
			line[i++] = '?';
		}
	}
	const char *kinds[] = {"write blocked:", "read blocked:", "network blocked:"};
	for (int k = 0; k < 3; k++)
		if (strncmp(line + sizeof prefix - 1, kinds[k], strlen(kinds[k])) == 0)
			counts[k]++;
	line[line_len++] = '\n';
	ssize_t r = write(STDERR_FILENO, line, line_len);
	(void)r;
}

/* Take what the pipe holds now (non-blocking). */
void diag_drain(struct session *s)
{
	if (s->diag_rd < 0)
		return;
	char buf[4096];
	int reads = 0;
	for (;;) {
		ssize_t n = read(s->diag_rd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (ssize_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)buf[i];
			if (c == '\n') {
				if (!line_skip)
					emit();
				line_len = 0;
				line_skip = false;
			} else if (line_len >= DIAG_LINE_MAX) {
				line_skip = true;
			} else {
				line[line_len++] = (char)c;
			}
		}
		if (++reads >= 16)
			return; /* a flood must not starve the other relays */
	}
}

/* The end of the session: what is left in the pipe, then one summary
 * line when anything was blocked. */
void diag_finish(struct session *s)
{
	if (s->diag_rd < 0)
		return;
	diag_drain(s);
	close(s->diag_rd);
	s->diag_rd = -1;
	unsigned total = counts[0] + counts[1] + counts[2];
	if (!total)
		return;
	char msg[256];
	size_t n = 0;
	const char *what[] = {"write", "read", "network use"};
	for (int k = 0; k < 3; k++) {
		if (!counts[k])
			continue;
		n += (size_t)snprintf(msg + n, sizeof msg - n, "%s%u %s%s", n ? ", " : "", counts[k],
				      what[k], counts[k] == 1 ? "" : "s");
	}
	warnmsg("the sandbox blocked %s (one line each above)", msg);
}
