/* ipcprobe: System V and POSIX IPC objects by name, for the host side and
 * the sandbox side of the IPC isolation tests.
 *
 *   ipcprobe shm-create KEY TEXT | shm-write KEY TEXT | shm-read KEY | shm-rm KEY
 *   ipcprobe msg-create KEY | msg-send KEY TEXT | msg-count KEY | msg-rm KEY
 *   ipcprobe sem-create KEY | sem-add KEY | sem-value KEY | sem-rm KEY
 *   ipcprobe mq-create NAME | mq-send NAME TEXT | mq-count NAME | mq-rm NAME
 *
 * KEY is a decimal System V key, NAME a POSIX queue name ("/..."). Reads
 * print "value: ..."; the rest print "OP: OK" or "OP: ERRNAME". Exit 0 on
 * success. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>

struct wk_msg {
	long mtype;
	char mtext[128];
};

static int rep(const char *op, int ok)
{
	if (ok) {
		printf("%s: OK\n", op);
	} else {
		const char *n = strerrorname_np(errno);
		printf("%s: %s\n", op, n ? n : "E?");
	}
	fflush(stdout);
	return ok ? 0 : 1;
}

static int shm_op(const char *op, key_t key, const char *text)
{
	int create = strcmp(op, "shm-create") == 0;
	int id = shmget(key, 4096, create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	if (id < 0)
		return rep(op, 0);
	if (strcmp(op, "shm-rm") == 0)
		return rep(op, shmctl(id, IPC_RMID, NULL) == 0);
	char *p = shmat(id, NULL, 0);
	if (p == (void *)-1)
		return rep(op, 0);
	if (text) {
		snprintf(p, 4096, "%s", text);
		shmdt(p);
		return rep(op, 1);
	}
	printf("value: %.200s\n", p);
	shmdt(p);
	return 0;
}

static int msg_op(const char *op, key_t key, const char *text)
{
	int create = strcmp(op, "msg-create") == 0;
	int id = msgget(key, create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	if (id < 0)
		return rep(op, 0);
	if (create)
		return rep(op, 1);
	if (strcmp(op, "msg-rm") == 0)
		return rep(op, msgctl(id, IPC_RMID, NULL) == 0);
	if (strcmp(op, "msg-send") == 0) {
		struct wk_msg m = {1, ""};
		snprintf(m.mtext, sizeof m.mtext, "%s", text ? text : "");
		return rep(op, msgsnd(id, &m, strlen(m.mtext) + 1, IPC_NOWAIT) == 0);
	}
	struct msqid_ds ds;
	if (msgctl(id, IPC_STAT, &ds) < 0)
		return rep(op, 0);
	printf("value: %lu\n", (unsigned long)ds.msg_qnum);
	return 0;
}

static int sem_op(const char *op, key_t key)
{
	int create = strcmp(op, "sem-create") == 0;
	int id = semget(key, 1, create ? IPC_CREAT | IPC_EXCL | 0600 : 0);
	if (id < 0)
		return rep(op, 0);
	if (create)
		return rep(op, 1);
	if (strcmp(op, "sem-rm") == 0)
		return rep(op, semctl(id, 0, IPC_RMID) == 0);
	if (strcmp(op, "sem-add") == 0) {
		struct sembuf sb = {0, 1, IPC_NOWAIT};
		return rep(op, semop(id, &sb, 1) == 0);
	}
	int v = semctl(id, 0, GETVAL);
	if (v < 0)
		return rep(op, 0);
	printf("value: %d\n", v);
	return 0;
}

static int mq_op(const char *op, const char *name, const char *text)
{
	if (strcmp(op, "mq-rm") == 0)
		return rep(op, mq_unlink(name) == 0);
	int create = strcmp(op, "mq-create") == 0;
	struct mq_attr at = {.mq_maxmsg = 4, .mq_msgsize = 128};
	mqd_t q = create ? mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &at)
			 : mq_open(name, O_RDWR | O_NONBLOCK);
	if (q == (mqd_t)-1)
		return rep(op, 0);
	if (create)
		return rep(op, 1);
	if (strcmp(op, "mq-send") == 0)
		return rep(op, mq_send(q, text ? text : "", strlen(text ? text : "") + 1, 0) == 0);
	if (mq_getattr(q, &at) < 0)
		return rep(op, 0);
	printf("value: %ld\n", (long)at.mq_curmsgs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: ipcprobe OP KEY|NAME [TEXT]\n");
		return 2;
	}
	const char *op = argv[1];
	const char *text = argc == 4 ? argv[3] : NULL;
	if (strncmp(op, "mq-", 3) == 0)
		return mq_op(op, argv[2], text);
	key_t key = (key_t)strtol(argv[2], NULL, 10);
	if (strncmp(op, "shm-", 4) == 0)
		return shm_op(op, key, strcmp(op, "shm-read") == 0 || strcmp(op, "shm-rm") == 0 ? NULL
					  : text ? text : "");
	if (strncmp(op, "msg-", 4) == 0)
		return msg_op(op, key, text);
	if (strncmp(op, "sem-", 4) == 0)
		return sem_op(op, key);
	fprintf(stderr, "ipcprobe: unknown operation %s\n", op);
	return 2;
}
