/* SPDX-License-Identifier: MIT */
/*
 * Inside the syslog output: the connection (syslog-conn.c) and the wall
 * clock of its headers (syslog-time.c). What sink.c sees of it is
 * syslog.h; the message and the fallback policy are syslog.c's.
 */
#ifndef PKS_SINK_SYSLOG_IMPL_H
#define PKS_SINK_SYSLOG_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

/* syslog-conn.c */
struct pks_slsock {
	int fd;
	bool stream;		/* SOCK_STREAM: each message ends with a NUL */
	bool own;		/* a socket of this line only, closed after it */
	bool hasty;		/* never waits: a full socket or backlog is an error */
	unsigned int gen;	/* which connection: a later one has a larger number */
	bool calm;		/* an ordinary call's, not a handler's (pks_slconn_get()) */
};

int pks_slconn_get(const char *path, struct pks_slsock *s, bool calm);
int pks_slconn_send(const struct pks_slsock *s, const struct iovec *iov, int n, int cancel);
int pks_slconn_send_many(const struct pks_slsock *s, struct mmsghdr *v, unsigned int k,
			 unsigned int *sent);
bool pks_slconn_put(struct pks_slsock *s, int err);
unsigned int pks_slconn_gen(void);
void pks_slconn_gone(void);
void pks_slconn_setup(void);

/* syslog-time.c */
struct pks_sltime {
	int year;
	int mon;		/* 1..12 */
	int mday, hour, min, sec;
	long usec;
	long off;		/* seconds east of UTC */
};

void pks_sltime_prepare(bool may_ask);
void pks_sltime_at(const struct timespec *ts, bool may_ask, struct pks_sltime *t);
size_t pks_sltime_3164(char *buf, const struct pks_sltime *t);
size_t pks_sltime_5424(char *buf, const struct pks_sltime *t);

#endif
