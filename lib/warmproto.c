/* Warm sessions' protocol (warmproto.h): the codec, pure. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "warmproto.h"

static const struct {
	const char *name;
	enum warm_verb verb;
} verbs[] = {
	{"exec", WARM_EXEC},       {"stop", WARM_STOP},   {"signal", WARM_SIGNAL},
	{"ready", WARM_READY},     {"started", WARM_STARTED}, {"exit", WARM_EXIT},
	{"error", WARM_ERROR},     {"event", WARM_EVENT},
};
#define N_VERBS (sizeof verbs / sizeof verbs[0])

/* A decimal number without sign or leading zero, at most MAX. */
static bool number(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	unsigned long long v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* Which fields each verb takes ('a' repeats), and which it needs. */
static bool field_allowed(enum warm_verb v, char key)
{
	switch (v) {
	case WARM_EXEC: return strchr("icfae", key) != NULL;
	case WARM_STOP: return key == 'f';
	case WARM_SIGNAL: return key == 'i' || key == 's';
	case WARM_STARTED: return key == 'i';
	case WARM_EXIT: return key == 'i' || key == 'x';
	case WARM_ERROR: return key == 'm' || key == 'x';
	case WARM_EVENT: return key == 'i' || key == 'j';
	default: return false;
	}
}

static bool fds_ok(const char *f)
{
	if (strlen(f) != 3)
		return false;
	for (int i = 0; i < 3; i++)
		if (f[i] != 'p' && f[i] != 'n')
			return false;
	return true;
}

bool warm_decode(const char *buf, size_t len, struct warm_msg *m, const char **err)
{
	memset(m, 0, sizeof *m);
	m->status = -1;
	if (len == 0 || len > WARM_MSG_MAX || buf[len - 1] != '\0') {
		*err = "malformed message: empty, too large or not NUL-terminated";
		return false;
	}
	const char *p = buf, *end = buf + len;
	for (size_t i = 0; i < N_VERBS; i++)
		if (strcmp(p, verbs[i].name) == 0)
			m->verb = verbs[i].verb;
	if (m->verb == WARM_NONE) {
		*err = "unknown verb";
		return false;
	}
	p += strlen(p) + 1;
	/* First pass: each field checked, the arguments counted. */
	unsigned seen = 0; /* bit per key letter but 'a' */
	size_t argc = 0;
	for (const char *q = p; q < end; q += strlen(q) + 1) {
		char key = q[0];
		const char *val = q + (key ? 1 : 0);
		if (!key || !field_allowed(m->verb, key)) {
			*err = "a field this message does not take";
			return false;
		}
		if (key == 'a') {
			if (++argc > WARM_ARGC_MAX) {
				*err = "too many arguments";
				return false;
			}
			continue;
		}
		unsigned bit = 1u << (key - 'a');
		if (seen & bit) {
			*err = "a field given twice";
			return false;
		}
		seen |= bit;
		unsigned long long n = 0;
		/* field_allowed let only these keys through. */
		switch (key) {
		case 'i':
			if (!number(val, WARM_ID_MAX, &n) || n == 0) {
				*err = "\"i\": not an exec number";
				return false;
			}
			m->id = n;
			break;
		case 'c':
			if (val[0] != '/' || strlen(val) >= WARM_TEXT_MAX) {
				*err = "\"c\": not an absolute directory";
				return false;
			}
			m->cwd = val;
			break;
		case 'f':
			if (!fds_ok(val)) {
				*err = "\"f\": three of p and n";
				return false;
			}
			m->fds = val;
			break;
		case 'e':
			if (strcmp(val, "1") != 0) {
				*err = "\"e\": not 1";
				return false;
			}
			m->events = true;
			break;
		case 'j':
			/* One line: a newline in it would make two. */
			if (!val[0] || strchr(val, '\n')) {
				*err = "\"j\": empty, or more than one line";
				return false;
			}
			m->json = val;
			break;
		case 'm':
			if (strlen(val) >= WARM_TEXT_MAX) {
				*err = "\"m\": too long";
				return false;
			}
			m->text = val;
			break;
		case 's':
			/* 0 stays "none": SIGNAL refuses it as missing. */
			if (!number(val, 64, &n)) {
				*err = "\"s\": not a signal number";
				return false;
			}
			m->sig = (int)n;
			break;
		case 'x':
			if (!number(val, 255, &n)) {
				*err = "\"x\": not an exit status";
				return false;
			}
			m->status = (int)n;
			break;
		}
	}
	/* What each verb needs. */
	bool ok = true;
	switch (m->verb) {
	case WARM_EXEC: ok = argc > 0 && m->fds != NULL; break;
	case WARM_SIGNAL: ok = m->sig != 0; break;
	case WARM_STARTED: ok = m->id != 0; break;
	case WARM_EXIT: ok = m->status >= 0; break;
	case WARM_ERROR: ok = m->text != NULL; break;
	case WARM_EVENT: ok = m->id != 0 && m->json != NULL; break;
	default: break;
	}
	if (!ok) {
		*err = "a field this message needs is missing";
		return false;
	}
	if (argc) {
		m->argv = xcalloc(argc + 1, sizeof *m->argv);
		for (const char *q = p; q < end; q += strlen(q) + 1)
			if (q[0] == 'a')
				m->argv[m->argc++] = q + 1;
		if (!m->argv[0][0]) {
			warm_msg_free(m);
			*err = "an empty command name";
			return false;
		}
	}
	return true;
}

void warm_msg_free(struct warm_msg *m)
{
	free(m->argv);
	m->argv = NULL;
	m->argc = 0;
}

static bool add(char **buf, size_t *len, size_t *cap, char key, const char *val)
{
	size_t n = strlen(val) + (key ? 1 : 0) + 1;
	if (*len + n > WARM_MSG_MAX)
		return false;
	if (*len + n > *cap) {
		*cap = (*len + n) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	if (key)
		(*buf)[(*len)++] = key;
	memcpy(*buf + *len, val, n - (key ? 1 : 0));
	*len += n - (key ? 1 : 0);
	return true;
}

char *warm_encode(const struct warm_msg *m, size_t *len)
{
	const char *name = NULL;
	for (size_t i = 0; i < N_VERBS; i++)
		if (verbs[i].verb == m->verb)
			name = verbs[i].name;
	if (!name)
		return NULL;
	char *buf = NULL, num[24];
	size_t cap = 0;
	*len = 0;
	bool ok = add(&buf, len, &cap, 0, name);
	if (ok && m->id) {
		snprintf(num, sizeof num, "%llu", m->id);
		ok = add(&buf, len, &cap, 'i', num);
	}
	if (ok && m->cwd)
		ok = add(&buf, len, &cap, 'c', m->cwd);
	if (ok && m->fds)
		ok = add(&buf, len, &cap, 'f', m->fds);
	if (ok && m->text)
		ok = add(&buf, len, &cap, 'm', m->text);
	if (ok && m->json)
		ok = add(&buf, len, &cap, 'j', m->json);
	if (ok && m->events)
		ok = add(&buf, len, &cap, 'e', "1");
	if (ok && m->sig) {
		snprintf(num, sizeof num, "%d", m->sig);
		ok = add(&buf, len, &cap, 's', num);
	}
	if (ok && m->status >= 0) {
		snprintf(num, sizeof num, "%d", m->status);
		ok = add(&buf, len, &cap, 'x', num);
	}
	for (size_t i = 0; ok && i < m->argc; i++)
		ok = add(&buf, len, &cap, 'a', m->argv[i]);
	/* What the decoder would refuse is not sent. */
	struct warm_msg back;
	const char *err;
	if (ok && warm_decode(buf, *len, &back, &err))
		warm_msg_free(&back);
	else
		ok = false;
	if (!ok) {
		free(buf);
		return NULL;
	}
	return buf;
}

bool warm_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > WARM_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}
