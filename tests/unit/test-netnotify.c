/* The supervisor's reports of seccomp's network refusals (netnotify.c):
 * the objects it names, the address text it shares with the shim
 * (lib/netfmt.c), when a session uses it, and -- run through a classic
 * BPF interpreter over many system calls -- that each notify program
 * decides exactly what its plain program decides, except that a network
 * refusal goes to the listener instead of failing with EPERM, and that
 * the sandbox may not make a listener of its own. */
#include "config.h"
#include "base/session.h"
#include "supervisor/netnotify.h"
#include "supervisor/notifyutil.h"
#include "child/seccomp-bpf.h"
#include "netfmt.h"
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>


#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static const char *obj(long nr, uint64_t a0, uint64_t a1, uint64_t a2, const void *addr,
		       size_t len)
{
	static char buf[160];
	uint64_t args[6] = {a0, a1, a2, 0, 0, 0};
	netnotify_object(buf, sizeof buf, nr, args, addr, len);
	return buf;
}

static const char *v6(const char *text)
{
	static char buf[NETFMT_IPV6_MAX];
	unsigned char a[16];
	inet_pton(AF_INET6, text, a);
	netfmt_ipv6(buf, a);
	return buf;
}

static void test_objects(void)
{
	is_str(obj(SYS_socket, AF_INET, SOCK_STREAM, 0, NULL, 0), "socket ipv4/tcp", "inet stream");
	is_str(obj(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP,
		   NULL, 0), "socket ipv4/tcp", "type flags ignored");
	is_str(obj(SYS_socket, AF_INET6, SOCK_DGRAM, 0, NULL, 0), "socket ipv6/udp", "inet6 dgram");
	is_str(obj(SYS_socket, AF_INET, SOCK_RAW, IPPROTO_UDP, NULL, 0), "socket ipv4/raw", "raw");
	is_str(obj(SYS_socket, AF_INET, SOCK_STREAM, IPPROTO_MPTCP, NULL, 0), "socket ipv4/mptcp",
	       "MPTCP is not called tcp");
	is_str(obj(SYS_socket, AF_INET6, SOCK_SEQPACKET, IPPROTO_SCTP, NULL, 0), "socket ipv6/sctp",
	       "SCTP");
	is_str(obj(SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, NULL, 0), "socket ipv4/icmp",
	       "ping socket");
	is_str(obj(SYS_socket, AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, NULL, 0),
	       "socket ipv4/udplite", "UDP-Lite");
	is_str(obj(SYS_socket, AF_INET, 9, 0, NULL, 0), "socket ipv4/socket", "unknown type");
	is_str(obj(SYS_socket, AF_NETLINK, SOCK_RAW, 0, NULL, 0), "socket netlink/raw", "netlink");
	is_str(obj(SYS_socket, AF_PACKET, SOCK_DGRAM, 768, NULL, 0), "socket packet/dgram", "packet");
	is_str(obj(SYS_socket, AF_VSOCK, SOCK_STREAM, 0, NULL, 0), "socket vsock/stream", "vsock");
	is_str(obj(SYS_socket, 99, SOCK_STREAM, 0, NULL, 0), "socket family 99/stream",
	       "unknown family");
	is_str(obj(SYS_socket, 0x100000000ULL | AF_INET, SOCK_STREAM, 0, NULL, 0), "socket ipv4/tcp",
	       "upper half ignored, as the kernel does");
	is_str(obj(SYS_socketpair, AF_INET, SOCK_STREAM, 0, NULL, 0), "socketpair ipv4/tcp",
	       "socketpair");

	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(443)};
	inet_pton(AF_INET, "10.1.2.3", &a4.sin_addr);
	is_str(obj(SYS_sendto, 3, 0, 0, &a4, sizeof a4), "sendto 10.1.2.3:443/tcp", "Fast Open v4");
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(80)};
	inet_pton(AF_INET6, "2001:db8::1", &a6.sin6_addr);
	is_str(obj(SYS_sendmsg, 3, 0, 0, &a6, sizeof a6), "sendmsg [2001:db8::1]:80/tcp",
	       "Fast Open v6");
	is_str(obj(SYS_sendmmsg, 3, 0, 0, &a6, sizeof a6), "sendmmsg [2001:db8::1]:80/tcp",
	       "sendmmsg");
	is_str(obj(SYS_sendto, 3, 0, 0, &a6, 8), "sendto with MSG_FASTOPEN", "a short address");
	is_str(obj(SYS_sendto, 3, 0, 0, NULL, 0), "sendto with MSG_FASTOPEN", "no address");
	struct sockaddr_un_like {
		sa_family_t f;
		char p[30];
	} un = {AF_UNIX, "/x"};
	is_str(obj(SYS_sendto, 3, 0, 0, &un, sizeof un), "sendto with MSG_FASTOPEN",
	       "not an inet address");
	is_str(obj(SYS_getpid, 0, 0, 0, NULL, 0), "system call 39", "anything else");
	char small[12];
	uint64_t args[6] = {AF_INET, SOCK_STREAM, 0, 0, 0, 0};
	size_t n = netnotify_object(small, sizeof small, SYS_socket, args, NULL, 0);
	ok(n == sizeof small - 1 && strcmp(small, "socket ipv4") == 0, "cut to the buffer: '%s'",
	   small);
}

static void test_netfmt(void)
{
	char b[NETFMT_IPV4_MAX];
	unsigned char q[4] = {255, 0, 10, 199};
	netfmt_ipv4(b, q);
	is_str(b, "255.0.10.199", "dotted quad");
	is_str(v6("::"), "::", "all zero");
	is_str(v6("::1"), "::1", "loopback");
	is_str(v6("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1", "first of two equal runs");
	is_str(v6("2001:db8:0:1:1:1:1:1"), "2001:db8:0:1:1:1:1:1", "a single zero group stays");
	is_str(v6("2001:0DB8::0001"), "2001:db8::1", "lower case, no leading zeros");
	is_str(v6("fe80::"), "fe80::", "run at the end");
	is_str(v6("::ffff:192.0.2.1"), "::ffff:192.0.2.1", "IPv4-mapped");
}

static void test_wanted(void)
{
	struct session s;
	memset(&s, 0, sizeof s);
	s.pol.sandbox = true;
	s.pol.net = NET_NONE;
	s.diagnostics = true;
	s.layers.seccomp = true;
	s.layers.pidns = true;
	s.layers.landlock_abi = 9; /* Landlock mediates unix sockets */
	bool k = netnotify_wanted(&s); /* what the kernel here can do */
	s.pol.net = NET_PORTS;
	ok(netnotify_wanted(&s) == k, "ports: as the kernel allows");
	/* From ABI 9 on, nothing to decide: a listener only to explain
	 * refusals, so none where the filter refuses nothing or nothing is
	 * explained. */
	s.pol.net = NET_FULL;
	ok(!netnotify_wanted(&s), "full with ABI 9: none (nothing refused)");
	s.pol.net = NET_NONE;
	s.diagnostics = false;
	ok(!netnotify_wanted(&s), "--no-diagnostics with ABI 9: none");
	ok(!netnotify_unix(&s), "ABI 9: unix sockets are Landlock's");
	/* Before ABI 9 the supervisor decides unix sockets: a listener in
	 * every network mode, with or without diagnostics. */
	s.layers.landlock_abi = 4;
	ok(netnotify_unix(&s), "ABI 4: the supervisor decides unix sockets");
	ok(netnotify_wanted(&s) == k, "--no-diagnostics before ABI 9: enforcement needs it");
	s.pol.net = NET_FULL;
	ok(netnotify_wanted(&s) == k, "full before ABI 9: enforcement needs it");
	s.pol.net = NET_NONE;
	s.diagnostics = true;
	s.layers.seccomp = false;
	ok(!netnotify_wanted(&s), "no seccomp layer: none");
	s.layers.seccomp = true;
	s.layers.pidns = false;
	ok(netnotify_wanted(&s) == k, "Landlock alone keeps the supervisor out of reach");
	s.layers.landlock_abi = 0;
	ok(!netnotify_wanted(&s), "neither Landlock nor a pid namespace: none");
}

/* --- the programs -------------------------------------------------------- */

static uint32_t run(const struct sock_filter *p, size_t len, const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = {0};
	const unsigned char *data = (const unsigned char *)d;
	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &p[pc];
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k + 4 > sizeof *d)
				return 0xdead;
			memcpy(&A, data + f->k, 4);
			break;
		case BPF_LD | BPF_IMM: A = f->k; break;
		case BPF_LDX | BPF_IMM: X = f->k; break;
		case BPF_LD | BPF_MEM: A = M[f->k & 15]; break;
		case BPF_LDX | BPF_MEM: X = M[f->k & 15]; break;
		case BPF_ST: M[f->k & 15] = A; break;
		case BPF_STX: M[f->k & 15] = X; break;
		case BPF_MISC | BPF_TAX: X = A; break;
		case BPF_MISC | BPF_TXA: A = X; break;
		case BPF_ALU | BPF_AND | BPF_K: A &= f->k; break;
		case BPF_ALU | BPF_AND | BPF_X: A &= X; break;
		case BPF_ALU | BPF_OR | BPF_K: A |= f->k; break;
		case BPF_ALU | BPF_ADD | BPF_K: A += f->k; break;
		case BPF_ALU | BPF_SUB | BPF_K: A -= f->k; break;
		case BPF_ALU | BPF_RSH | BPF_K: A >>= f->k; break;
		case BPF_ALU | BPF_LSH | BPF_K: A <<= f->k; break;
		case BPF_JMP | BPF_JA: pc += f->k; break;
		case BPF_JMP | BPF_JEQ | BPF_K: pc += A == f->k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGT | BPF_K: pc += A > f->k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_K: pc += A >= f->k ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JSET | BPF_K: pc += (A & f->k) ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JEQ | BPF_X: pc += A == X ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGT | BPF_X: pc += A > X ? f->jt : f->jf; break;
		case BPF_JMP | BPF_JGE | BPF_X: pc += A >= X ? f->jt : f->jf; break;
		case BPF_RET | BPF_K: return f->k;
		case BPF_RET | BPF_A: return A;
		default: return 0xbad;
		}
	}
	return 0xfa11;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct pair {
	const char *name;
	const struct sock_filter *plain, *notify;
	size_t plain_len, notify_len;
};

#define PAIR(m) {#m, wk_bpf_##m, wk_bpf_notify_##m, sizeof wk_bpf_##m / sizeof wk_bpf_##m[0], \
		 sizeof wk_bpf_notify_##m / sizeof wk_bpf_notify_##m[0]}

static bool is_net(int nr)
{
	return nr == SYS_socket || nr == SYS_socketpair || nr == SYS_sendto || nr == SYS_sendmsg ||
	       nr == SYS_sendmmsg;
}

/* Flags of seccomp(SECCOMP_SET_MODE_FILTER) that make no listener. */
#define HARMLESS_FLAGS (SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_LOG | \
			SECCOMP_FILTER_FLAG_SPEC_ALLOW | (1U << 4) /* TSYNC_ESRCH */)

/* What the notify program must return where the plain one returns PLAIN. */
static uint32_t expected(const struct seccomp_data *d, uint32_t plain)
{
	if (d->arch == AUDIT_ARCH_X86_64 && d->nr < 0x40000000) {
		if (is_net(d->nr) && plain == (SECCOMP_RET_ERRNO | EPERM))
			return SECCOMP_RET_USER_NOTIF;
		if (d->nr == SYS_seccomp && ((uint32_t)d->args[1] & ~HARMLESS_FLAGS))
			return SECCOMP_RET_ERRNO | EPERM;
	}
	return plain;
}

static void check(const struct pair *p, const struct seccomp_data *d, unsigned *n, unsigned *bad,
		  unsigned *notified)
{
	uint32_t a = run(p->plain, p->plain_len, d), b = run(p->notify, p->notify_len, d);
	uint32_t want = expected(d, a);
	(*n)++;
	*notified += b == SECCOMP_RET_USER_NOTIF;
	if (b != want && (*bad)++ < 5)
		printf("#   %s: nr %d arch %#x args %#llx %#llx %#llx %#llx: plain %#x notify %#x, "
		       "want %#x\n", p->name, d->nr, d->arch, (unsigned long long)d->args[0],
		       (unsigned long long)d->args[1], (unsigned long long)d->args[2],
		       (unsigned long long)d->args[3], a, b, want);
}

static void test_programs(void)
{
	const struct pair pairs[] = {PAIR(net_none), PAIR(net_full), PAIR(net_ports),
				     PAIR(net_ports_udp)};
	static const uint64_t fams[] = {0, AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET,
					AF_VSOCK, AF_KEY, AF_ALG, AF_XDP, 99,
					0x100000000ULL | AF_INET, 0xffffffffULL, ~0ULL};
	static const uint64_t types[] = {0, SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET,
					 SOCK_RDM, SOCK_PACKET, 15,
					 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
					 SOCK_DGRAM | SOCK_CLOEXEC, 0x100000000ULL | SOCK_STREAM};
	static const uint64_t protos[] = {0, IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMPV6,
					  IPPROTO_SCTP, IPPROTO_UDPLITE, IPPROTO_RAW, IPPROTO_MPTCP,
					  0x100000000ULL | IPPROTO_TCP, 768};
	static const uint64_t sflags[] = {0, MSG_FASTOPEN, MSG_FASTOPEN | MSG_DONTWAIT,
					  MSG_DONTWAIT | MSG_NOSIGNAL, 0xffffffffULL,
					  0xffffffff00000000ULL};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		const struct pair *p = &pairs[i];
		unsigned n = 0, bad = 0, notified = 0;
		struct seccomp_data d;
		/* Every call of both architectures, x32 numbers too: zero and
		 * random arguments. */
		static const uint32_t arches[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386};
		for (size_t a = 0; a < 2; a++)
			for (int nr = 0; nr < 600; nr++)
				for (int r = 0; r < 24; r++) {
					memset(&d, 0, sizeof d);
					d.arch = arches[a];
					d.nr = nr | (r == 23 ? 0x40000000 : 0);
					for (int k = 0; k < 6 && r; k++)
						d.args[k] = r & 1 ? rnd() : rnd() & 0xff;
					check(p, &d, &n, &bad, &notified);
				}
		/* The network calls across the values that matter. */
		memset(&d, 0, sizeof d);
		d.arch = AUDIT_ARCH_X86_64;
		for (int which = 0; which < 2; which++)
			for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++)
				for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
					for (size_t q = 0; q < sizeof protos / sizeof protos[0]; q++) {
						d.nr = which ? SYS_socketpair : SYS_socket;
						d.args[0] = fams[f];
						d.args[1] = types[t];
						d.args[2] = protos[q];
						check(p, &d, &n, &bad, &notified);
					}
		for (size_t f = 0; f < sizeof sflags / sizeof sflags[0]; f++) {
			memset(d.args, 0, sizeof d.args);
			d.nr = SYS_sendto;
			d.args[3] = sflags[f];
			check(p, &d, &n, &bad, &notified);
			d.nr = SYS_sendmmsg;
			check(p, &d, &n, &bad, &notified);
			d.args[3] = 0;
			d.args[2] = sflags[f];
			d.nr = SYS_sendmsg;
			check(p, &d, &n, &bad, &notified);
		}
		/* seccomp(): every flag bit, and the upper half the kernel
		 * ignores. */
		d.nr = SYS_seccomp;
		for (uint64_t op = 0; op < 4; op++)
			for (int bit = -1; bit < 64; bit++) {
				memset(d.args, 0, sizeof d.args);
				d.args[0] = op;
				d.args[1] = bit < 0 ? 0 : 1ULL << bit;
				check(p, &d, &n, &bad, &notified);
			}
		/* net_full refuses nothing, so it sends nothing either. */
		bool full = strcmp(p->name, "net_full") == 0;
		ok(bad == 0 && (full ? notified == 0 : notified > 0),
		   "%s: the notify program decides as the plain one, refusals to the listener "
		   "(%u inputs, %u notified, %u wrong)", p->name, n, notified, bad);
	}
}

int main(void)
{
	test_objects();
	test_netfmt();
	test_wanted();
	test_programs();
	return done_testing();
}
