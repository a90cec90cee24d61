/* libFuzzer target: the question `wicket ask` draws on the terminal
 * (lib/askrender.c). The input is a terminal size and a command: byte 0
 * the width, byte 1 the rows, then the arguments, NUL-separated (the
 * first is also the program's path). Whatever they hold, the question
 * is printable ASCII and newlines, no line is wider than the terminal,
 * and read back it gives the program and every argument exactly, or
 * says where and how much it cut or left out (askr_check); the CAREFUL
 * line and the reason cannot change that. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "askrender.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 65536)
		return 0;
	unsigned width = data[0] * 2u, rows = data[1];
	char *buf = malloc(size - 1);
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';
	char *argv[256];
	size_t argc = 0;
	for (char *p = buf; argc < 256;) {
		argv[argc++] = p;
		char *e = memchr(p, '\0', (size_t)(buf + size - 2 - p));
		if (!e || e == buf + size - 2)
			break;
		p = e + 1;
	}
	struct askr_question q = {.comm = argv[argc - 1], .pid = (long)size, .cwd = argv[0],
				  .path = argv[0], .argv = argv, .argc = argc,
				  .reason = argc > 1 ? argv[1] : NULL,
				  .careful = argc > 2 ? argv[2] : NULL};
	char *t = askr_render(&q, width, rows);
	const char *why = askr_check(&q, t, width);
	if (why) {
		fprintf(stderr, "askr_check: %s\n%s\n", why, t);
		abort();
	}
	free(t);
	free(buf);
	return 0;
}
