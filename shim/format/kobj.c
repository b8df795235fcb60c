// SPDX-License-Identifier: MIT
/*
 * Kernel structures by reference. Those that are plain data print as the
 * kernel prints them: %ptR (struct rtc_time, laid out as the first nine
 * ints of struct tm) and %ptT (time64_t, UTC) with the d t r s letters;
 * %pr/%pR (struct resource: start, end, name, flags) and %pra (struct
 * range of two u64); %pks/%pus (a string). Those that need kernel objects
 * userspace does not have (%pd %pD dentries and files, %pC clocks, %pg
 * block devices, %pG flags, %pO device nodes, %pfw firmware nodes) print
 * "(null)" or "(efault)" for a bad pointer, as the kernel does, and
 * otherwise the hashed pointer, as for an unknown extension.
 *
 * Thread-safety: no state.
 */
#include "format/internal.h"
#include "base/digits.h"

#include <string.h>

#define DAY	86400		/* seconds */

struct rtc_time_k {		/* include/uapi/linux/rtc.h */
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year;
	int tm_wday, tm_yday, tm_isdst;
};

struct resource_k {		/* include/linux/ioport.h, leading part */
	uintptr_t start, end;	/* resource_size_t, as wide as a pointer */
	const char *name;
	unsigned long flags;
};

struct range_k {		/* include/linux/range.h */
	uint64_t start, end;
};

enum {				/* IORESOURCE_* */
	RES_IO = 0x100, RES_MEM = 0x200, RES_IRQ = 0x400, RES_DMA = 0x800,
	RES_BUS = 0x1000, RES_PREFETCH = 0x2000, RES_MEM_64 = 0x100000,
	RES_WINDOW = 0x200000, RES_DISABLED = 0x10000000,
	RES_UNSET = 0x20000000,
};

static void put_dec(struct pks_fmt_buf *b, long long v, int width)
{
	struct pks_fmt_spec sp = {
		.width = width, .prec = -1, .flags = PKS_FMT_ZEROPAD };

	pks_fmt_num(b, (unsigned long long)v, 10, sp);
}

static void time64_to_rtc(int64_t t, struct rtc_time_k *tm)
{
	long long days = t / DAY, secs = t % DAY;
	struct pks_date d;

	if (secs < 0) {
		secs += DAY;
		days--;
	}
	d = pks_civil_from_days(days);
	memset(tm, 0, sizeof(*tm));
	tm->tm_mday = d.mday;
	tm->tm_mon = d.mon - 1;			/* 0 to 11, as in struct tm */
	tm->tm_year = (int)(d.year - 1900);	/* years since 1900 */
	tm->tm_hour = secs / 3600;
	tm->tm_min = secs / 60 % 60;
	tm->tm_sec = secs % 60;
}

/* The kernel's rtc_str(): ext[2] may be d or t, then any of r and s. */
static void put_rtc(struct pks_fmt_buf *b, const struct rtc_time_k *tm,
		    const char *ext)
{
	const char *f = ext + 2;
	int date = *f != 't', time = *f != 'd', raw = 0, iso = 1;

	if (*f == 'd' || *f == 't')
		f++;
	for (; *f == 'r' || *f == 's'; f++) {
		if (*f == 'r')
			raw = 1;
		else
			iso = 0;
	}
	if (date) {
		put_dec(b, tm->tm_year + (raw ? 0 : 1900), 4);
		pks_fmt_putc(b, '-');
		put_dec(b, tm->tm_mon + (raw ? 0 : 1), 2);
		pks_fmt_putc(b, '-');
		put_dec(b, tm->tm_mday, 2);
	}
	if (date && time)
		pks_fmt_putc(b, iso ? 'T' : ' ');
	if (time) {
		put_dec(b, tm->tm_hour, 2);
		pks_fmt_putc(b, ':');
		put_dec(b, tm->tm_min, 2);
		pks_fmt_putc(b, ':');
		put_dec(b, tm->tm_sec, 2);
	}
}

void pks_fmt_ext_time(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		      struct pks_fmt_spec sp)
{
	struct rtc_time_k tm;
	int64_t t;

	if (ext[1] != 'R' && ext[1] != 'T') {
		pks_fmt_errstr(b, "(%pt?)", sp);
		return;
	}
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (ext[1] == 'R') {
		memcpy(&tm, ptr, sizeof(tm));
	} else {
		memcpy(&t, ptr, sizeof(t));
		time64_to_rtc(t, &tm);
	}
	put_rtc(b, &tm, ext);
}

/* The kernel's hex_range(): one number when start and end agree. */
static void put_range(struct pks_fmt_buf *l, unsigned long long start,
		      unsigned long long end, int base, struct pks_fmt_spec sp)
{
	pks_fmt_num(l, start, base, sp);
	if (start == end)
		return;
	pks_fmt_putc(l, '-');
	pks_fmt_num(l, end, base, sp);
}

struct res_kind {
	unsigned long bit;
	const char *name;	/* 4 characters, padded */
	int base;
	struct pks_fmt_spec sp;
};

#define HEX0X(w)	{ .width = (w), .prec = -1, .flags = PKS_FMT_SPECIAL | \
			  PKS_FMT_SMALL | PKS_FMT_ZEROPAD }

static const struct res_kind res_kinds[] = {
	{ RES_IO, "io  ", 16, HEX0X(6) },
	{ RES_MEM, "mem ", 16, HEX0X(10) },
	{ RES_IRQ, "irq ", 10, { .prec = -1 } },
	{ RES_DMA, "dma ", 10, { .prec = -1 } },
	{ RES_BUS, "bus ", 16, { .width = 2, .prec = -1,
				 .flags = PKS_FMT_SMALL | PKS_FMT_ZEROPAD } },
	{ 0, "??? ", 16, HEX0X(10) },
};

static const struct { unsigned long bit; const char *name; } res_decoded[] = {
	{ RES_MEM_64, " 64bit" }, { RES_PREFETCH, " pref" },
	{ RES_WINDOW, " window" }, { RES_DISABLED, " disabled" },
};

static void put_resource(struct pks_fmt_buf *l, const struct resource_k *r,
			 int decode)
{
	const struct res_kind *k = res_kinds;
	struct pks_fmt_spec flag_sp = {
		.prec = -1, .flags = PKS_FMT_SPECIAL | PKS_FMT_SMALL };

	while (k->bit && !(r->flags & k->bit))
		k++;
	decode = decode && k->bit;
	pks_fmt_putc(l, '[');
	pks_fmt_put(l, k->name, 4);
	if (decode && (r->flags & RES_UNSET)) {
		pks_fmt_put(l, "size ", 5);
		pks_fmt_num(l, r->end - r->start + 1, k->base, k->sp);
	} else {
		put_range(l, r->start, r->end, k->base, k->sp);
	}
	for (size_t i = 0; decode && i < sizeof(res_decoded) / sizeof(res_decoded[0]); i++)
		if (r->flags & res_decoded[i].bit)
			pks_fmt_put(l, res_decoded[i].name,
				    strlen(res_decoded[i].name));
	if (!decode) {
		pks_fmt_put(l, " flags ", 7);
		pks_fmt_num(l, r->flags, 16, flag_sp);
	}
	pks_fmt_putc(l, ']');
}

void pks_fmt_ext_resource(struct pks_fmt_buf *b, const void *ptr,
			  const char *ext, struct pks_fmt_spec sp)
{
	struct pks_fmt_spec range_sp = HEX0X(18);
	char s[96];
	struct pks_fmt_buf l = { .buf = s, .size = sizeof(s) };
	struct resource_k res;
	struct range_k range;

	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (ext[1] == 'a') {
		memcpy(&range, ptr, sizeof(range));
		pks_fmt_put(&l, "[range ", 7);
		put_range(&l, range.start, range.end, 16, range_sp);
		pks_fmt_putc(&l, ']');
	} else {
		memcpy(&res, ptr, sizeof(res));
		put_resource(&l, &res, ext[0] == 'R');
	}
	pks_fmt_str(b, pks_fmt_terminate(&l), sp);
}

/* Objects userspace does not have: checked like the kernel, then hashed. */
void pks_fmt_ext_kobj(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		      struct pks_fmt_spec sp)
{
	if (!pks_fmt_bad_ptr(b, ptr, sp))
		pks_fmt_ext_hashed(b, ptr, ext, sp);
}

/* %pks and %pus are %s; any other %pk/%pu is "(einval)". */
void pks_fmt_ext_kstr(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		      struct pks_fmt_spec sp)
{
	if (ext[1] != 's')
		pks_fmt_errstr(b, "(einval)", sp);
	else if (!pks_fmt_bad_ptr(b, ptr, sp))
		pks_fmt_str(b, ptr, sp);
}
