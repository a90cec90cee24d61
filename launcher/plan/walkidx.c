/* The index of a writable root's directories (walkidx.h). */
#include "config.h"
#include "base/state.h"
#include "plan/walkidx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "util.h"

uint32_t widx_add(struct widx *x, uint32_t parent, const char *name, const struct stat *st)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->v = xrealloc(x->v, x->cap * sizeof *x->v);
	}
	size_t nl = strlen(name) + 1;
	if (x->names_len + nl > x->names_cap) {
		while (x->names_len + nl > x->names_cap)
			x->names_cap = x->names_cap ? x->names_cap * 2 : 4096;
		x->names = xrealloc(x->names, x->names_cap);
	}
	memcpy(x->names + x->names_len, name, nl);
	x->v[x->n] = (struct widx_node){
		.parent = parent, .first_child = WIDX_NONE, .next_sibling = WIDX_NONE,
		.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino,
		.ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec,
		.name = x->names_len,
	};
	x->names_len += nl;
	return (uint32_t)x->n++;
}

const char *widx_name(const struct widx *x, uint32_t id)
{
	return x->names + x->v[id].name;
}

void widx_link(struct widx *x)
{
	for (size_t i = 0; i < x->n; i++)
		x->v[i].first_child = x->v[i].next_sibling = WIDX_NONE;
	for (size_t i = x->n; i-- > 1;) {
		uint32_t p = x->v[i].parent;
		x->v[i].next_sibling = x->v[p].first_child;
		x->v[p].first_child = (uint32_t)i;
	}
}

static const struct widx *sorting;

static int by_name(const void *a, const void *b)
{
	return strcmp(widx_name(sorting, *(const uint32_t *)a),
		      widx_name(sorting, *(const uint32_t *)b));
}

uint32_t widx_child(const struct widx *x, uint32_t p, const char *name, uint32_t **sorted,
		    size_t *ns)
{
	if (p == WIDX_NONE)
		return WIDX_NONE;
	if (!*sorted) {
		size_t k = 0;
		for (uint32_t c = x->v[p].first_child; c != WIDX_NONE; c = x->v[c].next_sibling)
			k++;
		*sorted = xmalloc((k ? k : 1) * sizeof **sorted);
		k = 0;
		for (uint32_t c = x->v[p].first_child; c != WIDX_NONE; c = x->v[c].next_sibling)
			(*sorted)[k++] = c;
		sorting = x;
		qsort(*sorted, k, sizeof **sorted, by_name);
		*ns = k;
	}
	size_t lo = 0, hi = *ns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(widx_name(x, (*sorted)[mid]), name);
		if (c == 0)
			return (*sorted)[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return WIDX_NONE;
}

void widx_free(struct widx *x)
{
	free(x->v);
	free(x->names);
	memset(x, 0, sizeof *x);
}

/* --- kept between sessions ------------------------------------------------- */

static const char magic[8] = "WKIDX1\n";

/* STATE/walk/HASH, HASH of ROOT (FNV-1a); the file names ROOT as well. */
static char *index_path(const char *root, bool make)
{
	char *state = wicket_state_dir();
	if (!state)
		return NULL;
	char *dir = path_join(state, "walk");
	free(state);
	if (make && !wicket_state_dir_make(dir)) {
		free(dir);
		return NULL;
	}
	uint64_t h = 1469598103934665603ULL;
	for (const char *p = root; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	char name[20];
	snprintf(name, sizeof name, "%016llx", (unsigned long long)h);
	char *p = path_join(dir, name);
	free(dir);
	return p;
}

struct rec {
	uint32_t parent, flags;
	uint64_t dev, ino;
	int64_t ctime_ns;
	uint32_t name_len, pad;
};

/* The indexes kept: the roots used last (by the time their index was
 * saved); a workspace gone leaves its index until this many newer ones. */
#define WIDX_KEEP 64

struct kept_file {
	long long mtime;
	char name[20];
};

static int older_first(const void *a, const void *b)
{
	const struct kept_file *x = a, *y = b;
	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* The oldest indexes in DIR past WIDX_KEEP removed (names of 16 hex
 * digits only: nothing else of the state directory's). */
static void prune(const char *dir)
{
	/* host: the user's own state directory */
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	struct kept_file *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		struct stat st;
		if (strlen(e->d_name) != 16 || strspn(e->d_name, "0123456789abcdef") != 16 ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 128;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n].mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		memcpy(v[n].name, e->d_name, 17);
		n++;
	}
	if (n > WIDX_KEEP) {
		qsort(v, n, sizeof *v, older_first);
		for (size_t i = 0; i < n - WIDX_KEEP; i++)
			unlinkat(dirfd(d), v[i].name, 0);
	}
	free(v);
	closedir(d);
}

/* One buffer, one write: the walk's cost is what it looks at. */
void widx_save(const char *root, const struct widx *x)
{
	char *p = index_path(root, true);
	if (!p)
		return;
	uint64_t rl = strlen(root), n = x->n;
	size_t cap = sizeof magic + 3 * sizeof(uint64_t) + rl + x->n * sizeof(struct rec) +
		     x->names_len;
	char *buf = xmalloc(cap), *w = buf;
#define PUT(src, len) (memcpy(w, (src), (len)), w += (len))
	PUT(magic, sizeof magic);
	PUT(&x->made_ns, sizeof x->made_ns);
	PUT(&rl, sizeof rl);
	PUT(root, rl);
	PUT(&n, sizeof n);
	for (size_t i = 0; i < x->n; i++) {
		const struct widx_node *v = &x->v[i];
		const char *nm = widx_name(x, (uint32_t)i);
		struct rec r = {v->parent, v->flags, v->dev, v->ino, v->ctime_ns,
				(uint32_t)strlen(nm), 0};
		PUT(&r, sizeof r);
		PUT(nm, r.name_len);
	}
#undef PUT
	char *tmp = xasprintf("%s.%ld", p, (long)getpid());
	/* host: the user's own state directory, never a session's */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		bool ok = write_all(fd, buf, (size_t)(w - buf));
		if (close(fd) != 0 || !ok || rename(tmp, p) != 0)
			unlink(tmp);
	}
	char *dir = path_dirname(p);
	prune(dir);
	free(dir);
	free(tmp);
	free(buf);
	free(p);
}

void widx_touch(const char *root)
{
	char *p = index_path(root, false);
	/* host: the user's own state directory */
	if (p)
		utimensat(AT_FDCWD, p, NULL, AT_SYMLINK_NOFOLLOW);
	free(p);
}

/* The next LEN bytes of the buffer (*AT, END), or NULL. */
static const char *take(const char **at, const char *end, size_t len)
{
	if ((size_t)(end - *at) < len)
		return NULL;
	const char *p = *at;
	*at += len;
	return p;
}

void widx_load(const char *root, struct widx *x)
{
	memset(x, 0, sizeof *x);
	char *p = index_path(root, false);
	/* host: the user's own state directory */
	int fd = p ? open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	free(p);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (1LL << 30)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	size_t size = (size_t)st.st_size, got = 0;
	char *buf = xmalloc(size + 1);
	ssize_t r;
	while (got < size && (r = read(fd, buf + got, size - got)) > 0)
		got += (size_t)r;
	close(fd);
	const char *at = buf, *end = buf + got, *q;
	uint64_t rl = 0, n = 0;
	bool ok = (q = take(&at, end, sizeof magic)) && memcmp(q, magic, sizeof magic) == 0 &&
		  (q = take(&at, end, sizeof x->made_ns)) && memcpy(&x->made_ns, q, sizeof x->made_ns) &&
		  (q = take(&at, end, sizeof rl)) && memcpy(&rl, q, sizeof rl) && rl == strlen(root) &&
		  (q = take(&at, end, rl)) && memcmp(q, root, rl) == 0 &&
		  (q = take(&at, end, sizeof n)) && memcpy(&n, q, sizeof n) && n < WIDX_NONE;
	if (ok && n) {
		x->cap = (size_t)n;
		x->v = xmalloc(x->cap * sizeof *x->v);
		x->names_cap = size + 1;
		x->names = xmalloc(x->names_cap);
	}
	char name[4096];
	for (uint64_t i = 0; ok && i < n; i++) {
		struct rec rc;
		ok = (q = take(&at, end, sizeof rc)) != NULL;
		if (!ok)
			break;
		memcpy(&rc, q, sizeof rc);
		ok = rc.name_len < sizeof name && (i == 0 ? rc.parent == WIDX_NONE : rc.parent < i) &&
		     (q = take(&at, end, rc.name_len)) != NULL;
		if (!ok)
			break;
		memcpy(name, q, rc.name_len);
		name[rc.name_len] = '\0';
		ok = strlen(name) == rc.name_len && (i == 0 || (rc.name_len && !strchr(name, '/')));
		if (!ok)
			break;
		struct stat ns = {0};
		ns.st_dev = (dev_t)rc.dev;
		ns.st_ino = (ino_t)rc.ino;
		ns.st_ctim.tv_sec = rc.ctime_ns / 1000000000LL;
		ns.st_ctim.tv_nsec = rc.ctime_ns % 1000000000LL;
		uint32_t id = widx_add(x, rc.parent, name, &ns);
		x->v[id].flags = rc.flags;
	}
	free(buf);
	if (!ok || x->n != n || at != end) {
		widx_free(x);
		return;
	}
	widx_link(x);
}
