/* libFuzzer target of the policy parser (lib/policy.c): arbitrary bytes
 * as a policy file. No file-system access: "extends" may name the
 * built-ins only (follow_files is false) and no owner check is made; the
 * variables have fixed values. Built and run by `make fuzz` and by
 * tests/run-tests, with AddressSanitizer, LeakSanitizer and UBSan; see
 * tests/fuzz/local.mk. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wk_policy_ctx ctx = {
		.vars = {.cwd = "/work/proj", .home = "/home/u", .tmpdir = "/tmp",
			 .runtime_dir = "/run/user/1000"},
		.search = NULL,
		.check_owner = false,
		.follow_files = false,
	};
	struct wk_policy p;
	wk_policy_load_buffer(&ctx, "fuzz.json", (const char *)data, size, &p);
	/* On failure the loader has already freed and zeroed P: freeing it
	 * again must be harmless, and is checked here too. */
	wk_policy_free(&p);
	wk_policy_ctx_free(&ctx);
	return 0;
}
