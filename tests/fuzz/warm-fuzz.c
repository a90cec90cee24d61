/* libFuzzer target: warm sessions' protocol (lib/warmproto.c), which
 * the supervisor reads from any client of the user's and from the
 * server inside the sandbox: no crash, no leak, no undefined behaviour;
 * what decodes is within its bounds and encodes back to a message that
 * decodes to the same fields. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "warmproto.h"

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct warm_msg m, back;
	const char *err = NULL;
	if (size <= WARM_NAME_MAX + 1) {
		char name[WARM_NAME_MAX + 2];
		memcpy(name, data, size);
		name[size] = '\0';
		if (warm_name_ok(name) && (strchr(name, '/') || name[0] == '.' || name[0] == '-'))
			abort();
	}
	if (!warm_decode((const char *)data, size, &m, &err)) {
		if (!err)
			abort();
		return 0;
	}
	if (m.argc > WARM_ARGC_MAX || (m.argc && (!m.argv[0][0] || m.argv[m.argc])) ||
	    (m.fds && strlen(m.fds) != 3) || (m.cwd && m.cwd[0] != '/') || m.status > 255 ||
	    m.status < -1 || m.sig < 0 || m.sig > 64 || m.id > WARM_ID_MAX)
		abort();
	size_t len;
	char *buf = warm_encode(&m, &len);
	if (!buf || len > size || !warm_decode(buf, len, &back, &err))
		abort();
	if (back.verb != m.verb || back.id != m.id || back.sig != m.sig || back.status != m.status ||
	    !same(back.cwd, m.cwd) || !same(back.fds, m.fds) || !same(back.text, m.text) ||
	    back.argc != m.argc)
		abort();
	for (size_t i = 0; i < m.argc; i++)
		if (strcmp(back.argv[i], m.argv[i]) != 0)
			abort();
	warm_msg_free(&back);
	warm_msg_free(&m);
	free(buf);
	return 0;
}
