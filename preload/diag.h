/* The reporting half of libwicket-preload: classifying a failed call
 * against the session's rules and writing one line for a sandbox denial.
 *
 * Everything here runs only after an interposed call has failed. It never
 * allocates, never uses stdio, never takes a lock, and leaves errno as it
 * found it. The session's rules come from WICKET_RULES (see diag.c). */
#ifndef WICKET_PRELOAD_DIAG_H
#define WICKET_PRELOAD_DIAG_H

#include <stdbool.h>
#include <sys/socket.h>

/* What a failed file system call tried to do (flags of diag_fs). */
#define DF_WRITE 0x01u  /* changes the file system: "write blocked" */
#define DF_READ 0x02u   /* reads (or opens for reading): "read blocked" */
#define DF_EXEC 0x04u   /* executes: "read blocked", checked with X_OK */
#define DF_META 0x08u   /* metadata only (chmod, chown, times, xattrs):
			 * denied by read-only mounts (EROFS), not Landlock */
#define DF_PARENT 0x10u /* creates or removes an entry: the parent
			 * directory is what permissions are checked on */
#define DF_XDEV 0x20u   /* rename/link: EXDEV can be Landlock's refusal */
#define DF_BUSY 0x40u   /* rename/unlink/rmdir: EBUSY on a protected mount */
#define DF_CREAT 0x80u  /* open with O_CREAT: "create" when the file is
			 * absent (then checked like DF_PARENT) */

/* A failed call on PATH relative to DIRFD (AT_FDCWD; or, with PATH NULL or
 * empty, DIRFD itself), which set ERR. Reports it when the sandbox caused
 * it. WHAT names the operation ("open for writing", "mkdir" ...). Returns
 * true when it was a sandbox denial (reported now or before). */
bool diag_fs(int dirfd, const char *path, int err, unsigned flags, const char *what);

/* Would diag_fs call this a sandbox denial? (No report.) */
bool diag_fs_denied(int dirfd, const char *path, int err, unsigned flags);

/* socket(DOMAIN, TYPE, ...) failed with ERR. */
void diag_socket(int domain, int type, int err);

/* OP ("connect", "bind", "sendto", "sendmsg") on FD towards ADDR failed
 * with ERR. FLAGS: the send flags (MSG_FASTOPEN matters), else 0. */
void diag_net(const char *op, int fd, const struct sockaddr *addr, socklen_t len, int flags,
	      int err);

/* An open of "/dev/fd/NUM" is about to happen: when NUM is the shell
 * hooks' status file (WICKET_STATUS_FD), waits (bounded) until the
 * supervisor has taken every denial reported before. */
void diag_status_sync(const char *num);

#endif
