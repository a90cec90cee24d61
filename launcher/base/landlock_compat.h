/* Landlock UAPI, carried here because distribution headers lag the kernels
 * wicket runs on. Values are the kernel's ABI and never change. */
#ifndef WICKET_LANDLOCK_COMPAT_H
#define WICKET_LANDLOCK_COMPAT_H

#include <linux/types.h>
#include <sys/syscall.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define WK_LL_CREATE_RULESET_VERSION (1U << 0)
#define WK_LL_RULE_PATH_BENEATH 1
#define WK_LL_RULE_NET_PORT 2

#define WK_LL_FS_EXECUTE (1ULL << 0)
#define WK_LL_FS_WRITE_FILE (1ULL << 1)
#define WK_LL_FS_READ_FILE (1ULL << 2)
#define WK_LL_FS_READ_DIR (1ULL << 3)
#define WK_LL_FS_REMOVE_DIR (1ULL << 4)
#define WK_LL_FS_REMOVE_FILE (1ULL << 5)
#define WK_LL_FS_MAKE_CHAR (1ULL << 6)
#define WK_LL_FS_MAKE_DIR (1ULL << 7)
#define WK_LL_FS_MAKE_REG (1ULL << 8)
#define WK_LL_FS_MAKE_SOCK (1ULL << 9)
#define WK_LL_FS_MAKE_FIFO (1ULL << 10)
#define WK_LL_FS_MAKE_BLOCK (1ULL << 11)
#define WK_LL_FS_MAKE_SYM (1ULL << 12)
#define WK_LL_FS_REFER (1ULL << 13)       /* ABI 2 */
#define WK_LL_FS_TRUNCATE (1ULL << 14)    /* ABI 3 */
#define WK_LL_FS_IOCTL_DEV (1ULL << 15)   /* ABI 5 */
#define WK_LL_FS_RESOLVE_UNIX (1ULL << 16) /* ABI 9 */

#define WK_LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define WK_LL_NET_CONNECT_TCP (1ULL << 1)

#define WK_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define WK_LL_SCOPE_SIGNAL (1ULL << 1)

struct wk_landlock_ruleset_attr {
	__u64 handled_access_fs;
	__u64 handled_access_net;
	__u64 scoped;
};

struct wk_landlock_path_beneath_attr {
	__u64 allowed_access;
	__s32 parent_fd;
} __attribute__((packed));

struct wk_landlock_net_port_attr {
	__u64 allowed_access;
	__u64 port;
};

#endif
