/* SHA-256 (FIPS 180-4), for content-addressed names of what the audit
 * log keeps beside itself: a name the sandbox cannot make two contents
 * share. Pure, no allocation. */
#ifndef WICKET_SHA256_H
#define WICKET_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The digest of DATA (LEN bytes) as 64 lower-case hex digits and a NUL. */
void wk_sha256_hex(const void *data, size_t len, char out[65]);

#endif
