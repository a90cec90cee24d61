/* The failure of a layer in the child, kept for the supervisor: the layer
 * code (caps.c, landlock.c, mounts.c, ...) fills setup_err through
 * setup_fail, and supervisor.c sends it up the error pipe. */
#include "config.h"
#include "base/setupfail.h"

#include <stdarg.h>
#include <stdio.h>

struct setup_error setup_err;

int setup_fail(int stage, int err, const char *fmt, ...)
{
	setup_err.stage = stage;
	setup_err.err = err;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(setup_err.detail, sizeof setup_err.detail, fmt, ap);
	va_end(ap);
	return -1;
}
