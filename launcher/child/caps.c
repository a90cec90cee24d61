/* Capabilities: none survive into the sandbox. As root this is what keeps
 * uid 0 from being more than a uid; in a user namespace it takes away the
 * namespace-local powers (mount, sethostname, ...) the child held during
 * setup. */
#include "config.h"
#include "base/session.h"
#include "base/setupfail.h"
#include "child/caps.h"

#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int last_cap(void)
{
	/* Open-ended like the Landlock ABI: drop whatever the kernel knows. */
	int last = CAP_LAST_CAP;
	while (prctl(PR_CAPBSET_READ, last + 1, 0, 0, 0) >= 0)
		last++;
	return last;
}

/* Whether this process may shrink its bounding set (CAP_SETPCAP). */
static bool may_setpcap(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2] = {{0}};
	if (syscall(SYS_capget, &hdr, data) < 0)
		return true; /* then try, and fail loudly */
	return data[CAP_SETPCAP / 32].effective & (1u << (CAP_SETPCAP % 32));
}

int caps_drop_bounding(void)
{
	/* An unprivileged process outside any user namespace (no namespaces
	 * here, --best-effort) holds no capability and may not touch its
	 * bounding set; with no_new_privs, exec cannot raise anything. */
	if (geteuid() != 0 && !may_setpcap())
		return 0;
	int last = last_cap();
	for (int c = 0; c <= last; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return setup_fail(STAGE_CAPS, errno, "drop capability %d from bounding set", c);
	return 0;
}

int caps_drop_all(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2] = {{0}};
	if (syscall(SYS_capget, &hdr, data) < 0)
		return setup_fail(STAGE_CAPS, errno, "read capabilities");
	/* An unprivileged process outside any user namespace holds nothing and
	 * may not shrink its bounding set (that needs CAP_SETPCAP); with
	 * no_new_privs set next, exec cannot raise anything either. */
	if (geteuid() != 0 && !data[0].permitted && !data[1].permitted &&
	    !data[0].effective && !data[1].effective) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
			return setup_fail(STAGE_CAPS, errno, "clear ambient capabilities");
		return 0;
	}
	/* Usually init emptied the bounding set already (off the critical
	 * path); check instead of trusting it. */
	if (prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0 && caps_drop_bounding() < 0)
		return -1;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return setup_fail(STAGE_CAPS, errno, "clear ambient capabilities");
	/* uid 0 must not regain capabilities on exec, and nothing may undo it. */
	if (geteuid() == 0 &&
	    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
				     SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
				     SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
				     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0) < 0)
		return setup_fail(STAGE_CAPS, errno, "set securebits");
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) < 0)
		return setup_fail(STAGE_CAPS, errno, "clear capabilities");
	return 0;
}
