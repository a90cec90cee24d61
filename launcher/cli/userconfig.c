/* The user's configuration, $XDG_CONFIG_HOME/wicket/config.json: which
 * policy a session gets in which directory, as direnv and Codex choose
 * per directory.
 *
 *   {"directories": [{"path": "~/src/work", "policy": "workspace-write-strict"},
 *                    {"path": "~/src/play", "policy": "./play.json"}]}
 *
 * The entry whose directory holds the workspace wins, the deepest one
 * when several do (compared by whole path components: where the workspace
 * really is, symbolic links resolved, against the entry as written, none
 * followed). --policy on the command line comes first. The file lives
 * outside every workspace, in the directory policy_protect_sources keeps
 * read-only in every session, and is refused when someone else could have
 * written it (as a policy file is).
 *
 * No session may choose the policy of the next. An entry's directory may
 * lie in a session's writable roots (~/src/tool, below a workspace ~/src):
 * were its symbolic links followed, the session could make it a link to
 * / and every later session anywhere would get that entry's policy. So
 * entries are compared as written. And an entry's policy file may lie
 * there too, and so may the files it extends: policy_protect_sources
 * keeps every one read-only in every session (one that does not exist
 * yet is moved aside if made). */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "cli/userconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

#define CONFIG_MAX (1 << 20)
#define ENTRIES_MAX 1000

char *wicket_config_dir(const char *home)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		return path_join(xdg, "wicket");
	return home && home[0] == '/' ? path_join(home, ".config/wicket") : NULL;
}

static void err(struct userconfig *c, const char *ptr, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void err(struct userconfig *c, const char *ptr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	strv_push(&c->errors, xasprintf("%s%s%s: %s", c->file, ptr ? ": " : "",
					ptr ? (ptr[0] ? ptr : "(top level)") : "", m));
	free(m);
}

/* The file's text, or NULL (no file: no error; otherwise an error). */
static char *read_config(struct userconfig *c, size_t *len)
{
	int fd = open(c->file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT)
			err(c, NULL, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err(c, NULL, "not a regular file");
	} else if (st.st_uid != getuid() && st.st_uid != 0) {
		/* As for a policy file: what someone else could write is not
		 * your configuration. */
		err(c, NULL, "owned by uid %u, not by you or root; refusing it", (unsigned)st.st_uid);
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		err(c, NULL, "writable by %s (mode %04o); refusing it (fix: chmod go-w %s)",
		    (st.st_mode & S_IWOTH) ? "everyone" : "its group",
		    (unsigned)(st.st_mode & 07777), c->file);
	} else if (st.st_size > CONFIG_MAX) {
		err(c, NULL, "larger than %d bytes", CONFIG_MAX);
	} else {
		buf = xmalloc((size_t)st.st_size + 1);
		*len = 0;
		for (;;) {
			ssize_t n = read(fd, buf + *len, (size_t)st.st_size + 1 - *len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				err(c, NULL, "cannot read: %s", strerror(errno));
				free(buf);
				buf = NULL;
				break;
			}
			if (n == 0)
				break;
			*len += (size_t)n;
			if (*len > (size_t)st.st_size) {
				err(c, NULL, "grew while it was read");
				free(buf);
				buf = NULL;
				break;
			}
		}
	}
	close(fd);
	return buf;
}

static void parse(struct userconfig *c, const char *data, size_t len, const char *home)
{
	json_error_t je;
	json_t *doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		err(c, NULL, "line %d, column %d: %s", je.line, je.column, je.text);
		return;
	}
	const char *key;
	json_t *val;
	if (!json_is_object(doc)) {
		err(c, "", "expected an object ({\"directories\": [...]})");
		goto out;
	}
	json_object_foreach(doc, key, val)
		if (strcmp(key, "directories") != 0)
			err(c, "", "unknown key \"%s\" (known: directories)", key);
	json_t *dirs = json_object_get(doc, "directories");
	if (!dirs)
		goto out;
	if (!json_is_array(dirs)) {
		err(c, "/directories", "expected an array of {\"path\": ..., \"policy\": ...}");
		goto out;
	}
	if (json_array_size(dirs) > ENTRIES_MAX) {
		err(c, "/directories", "more than %d entries", ENTRIES_MAX);
		goto out;
	}
	c->entries = xcalloc(json_array_size(dirs) + 1, sizeof *c->entries);
	size_t i;
	json_t *e;
	json_array_foreach(dirs, i, e) {
		char ptr[64];
		snprintf(ptr, sizeof ptr, "/directories/%zu", i);
		if (!json_is_object(e)) {
			err(c, ptr, "expected {\"path\": ..., \"policy\": ...}");
			continue;
		}
		bool ok = true;
		json_object_foreach(e, key, val)
			if (strcmp(key, "path") != 0 && strcmp(key, "policy") != 0) {
				err(c, ptr, "unknown key \"%s\" (known: path, policy)", key);
				ok = false;
			}
		const char *p = json_string_value(json_object_get(e, "path"));
		const char *pol = json_string_value(json_object_get(e, "policy"));
		if (!p || !p[0]) {
			err(c, ptr, "\"path\": expected a directory (absolute, or ~/...)");
			ok = false;
		}
		if (!pol || !pol[0]) {
			err(c, ptr, "\"policy\": expected a policy name or file");
			ok = false;
		}
		if (!ok)
			continue;
		char *x = path_expand_home(p, home);
		if (x[0] != '/') {
			err(c, ptr, "\"path\": %s is not absolute (write it from / or ~/)", p);
			free(x);
			continue;
		}
		/* As written: see the top of this file. */
		char *canon = path_normalize(x);
		free(x);
		for (size_t k = 0; k < c->n; k++)
			if (strcmp(c->entries[k].path, canon) == 0) {
				err(c, ptr, "\"path\": the same directory as /directories/%zu (%s)",
				    c->entries[k].index, canon);
				ok = false;
			}
		if (!ok) {
			free(canon);
			continue;
		}
		struct userconfig_entry *ue = &c->entries[c->n++];
		ue->path = canon;
		ue->index = i;
		ue->where = xasprintf("%s: %s", c->file, ptr);
		/* A relative policy file is the config directory's. */
		if (!wk_policy_is_name(pol) && pol[0] != '/' && pol[0] != '~') {
			char *dir = path_dirname(c->file);
			ue->policy = path_join(dir, pol);
			free(dir);
		} else {
			ue->policy = path_expand_home(pol, home);
		}
	}
out:
	json_decref(doc);
}

bool userconfig_load(struct userconfig *c, const char *home)
{
	memset(c, 0, sizeof *c);
	char *dir = wicket_config_dir(home);
	if (!dir)
		return true;
	c->file = path_join(dir, "config.json");
	free(dir);
	size_t len = 0;
	char *data = read_config(c, &len);
	if (data) {
		c->found = true;
		parse(c, data, len, home);
		free(data);
	}
	return c->errors.n == 0;
}

const struct userconfig_entry *userconfig_pick(const struct userconfig *c, const char *workspace)
{
	const struct userconfig_entry *best = NULL;
	for (size_t i = 0; i < c->n; i++)
		if (path_is_under(workspace, c->entries[i].path) &&
		    (!best || strlen(c->entries[i].path) > strlen(best->path)))
			best = &c->entries[i];
	return best;
}

void userconfig_load_or_die(struct userconfig *c, const char *home)
{
	if (userconfig_load(c, home))
		return;
	for (size_t i = 0; i < c->errors.n; i++)
		fprintf(stderr, "%s: %s\n", wicket_progname, c->errors.v[i]);
	die("%s: %zu error%s; nothing started (see wicket(1), FILES)", c->file, c->errors.n,
	    c->errors.n == 1 ? "" : "s");
}

void userconfig_free(struct userconfig *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->entries[i].path);
		free(c->entries[i].policy);
		free(c->entries[i].where);
	}
	free(c->entries);
	free(c->file);
	strv_free(&c->errors);
	memset(c, 0, sizeof *c);
}
