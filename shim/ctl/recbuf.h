/* SPDX-License-Identifier: MIT */
/*
 * The record buffer's layout (printk-shim(7) RECORD BUFFER), shared by the
 * module, which writes every line into it, and printk-shim --dmesg, which
 * reads it while the process runs or after it died. Pure: the layout, and
 * the reader's walk over a copy-safe view of it.
 */
#ifndef PKS_CTL_RECBUF_H
#define PKS_CTL_RECBUF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PKS_REC_MAGIC	0x6b726563u	/* "kcer" */
#define PKS_REC_VERSION	1
#define PKS_REC_HEAD	4096		/* the header's bytes; the ring follows */
#define PKS_REC_STAMP	0x9e3779b97f4a7c15ull	/* a record's stamp: its position ^ this */

struct pks_rec_head {
	uint32_t magic, version;
	int32_t pid;
	uint32_t uid;
	uint64_t start;			/* the process's start time, /proc/PID/stat field 22 */
	uint64_t size;			/* bytes of the ring, a power of two */
	_Atomic uint64_t head;		/* bytes reserved since the start */
	_Atomic uint64_t seq;		/* records reserved since the start */
	_Atomic int32_t exited;		/* 1: exit ran (a crash or SIGKILL leaves 0) */
	char program[64];
	uint64_t pidns;			/* the process's pid namespace (pks_ctl_pidns()); 0: unknown */
};

/*
 * One line in the ring, 8-byte aligned, its text after it. The stamp is
 * written last (release): a record is whole when its stamp is its own
 * position ^ PKS_REC_STAMP; a writer killed half-way leaves none.
 */
struct pks_rec {
	_Atomic uint64_t stamp;
	uint64_t seq;
	uint64_t t_ns;			/* CLOCK_MONOTONIC */
	uint64_t t_real_ns;		/* CLOCK_REALTIME */
	int32_t tid;
	uint32_t len;			/* bytes of text */
	uint16_t level;
	uint16_t flags;			/* PKS_REC_* */
	uint32_t pad;
};

#define PKS_REC_HIDDEN	1u	/* no output wrote it: the level or dynamic debug hid it */
#define PKS_REC_CONT	2u	/* begun by an orphan KERN_CONT: kmsg's "c" flag */

/** pks_rec_span() - Return: the ring bytes of a record with @len bytes of text. */
static inline uint64_t pks_rec_span(uint64_t len)
{
	return (sizeof(struct pks_rec) + len + 7) & ~(uint64_t)7;
}

/*
 * The fence each side puts between the record's head and its bytes. gcc
 * refuses atomic_thread_fence() under -fsanitize=thread, which models no
 * fence; in that build, for tests only, it is the compiler's barrier alone.
 * No pair: the definition; each use names its pair.
 */
#ifdef __SANITIZE_THREAD__
#define pks_rec_fence(order)	atomic_signal_fence(order)
#else
#define pks_rec_fence(order)	atomic_thread_fence(order)	/* no pair: as above */
#endif

#endif
