/* SPDX-License-Identifier: MIT */
/*
 * printk for ported kernel code: the entry points printk-shim interposes,
 * the pr_* family (with pr_fmt, DEBUG, _once and _ratelimited variants, and
 * the old pr_warning), printk_ratelimit() and printk_timed_ratelimit(),
 * dump_stack(), struct va_format (%pV), the marker helpers, and the hex dumps (hex_dump_to_buffer,
 * print_hex_dump) with the output format of the kernel's lib/hexdump.c.
 * Everything that needs code is static inline, so a port links against
 * nothing but the library that defines printk; printk_deferred, a weak
 * reference, is printk where that library has none.
 *
 * Unlike kernels since v5.15, printk is a real function here, not a macro
 * over _printk: code built with these headers calls the symbol "printk"
 * (through the index's macro of the same name, under GNU C).
 * _printk and _printk_deferred are declared for code that names them.
 *
 * Every printk() call site with a literal format is recorded for the
 * printk index, as with CONFIG_PRINTK_INDEX=y (below); printk is then a
 * macro over the function, as in the kernel.
 * pr_debug, pr_debug_ratelimited and print_hex_dump_debug use dynamic debug
 * (<linux/dynamic_debug.h>), as with CONFIG_DYNAMIC_DEBUG=y: DEBUG sets
 * their default, printk-shim's PRINTK_SHIM_DYNDBG changes it per call site.
 * pr_devel and pr_debug_once follow DEBUG alone, as in the kernel.
 * Not provided: console and printk_safe control.
 * Thread-safety: the _once and _ratelimited state is shared safely by threads;
 * printk_timed_ratelimit()'s state is its caller's to guard.
 */
#ifndef _LINUX_PRINTK_H
#define _LINUX_PRINTK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<execinfo.h>)
#include <execinfo.h>
#define PKS_HAVE_BACKTRACE	1
#endif
#endif
#include <linux/kern_levels.h>
#include <linux/dynamic_debug.h>
#include <linux/pks_byteorder.h>
#include <linux/hex.h>
#include <linux/once_lite.h>
#include <linux/ratelimit_types.h>

#define PRINTK_MAX_SINGLE_HEADER_LEN	2

/* The kernel's defaults, for code that compares against them. */
#define CONSOLE_LOGLEVEL_SILENT		0
#define CONSOLE_LOGLEVEL_MIN		1
#define CONSOLE_LOGLEVEL_DEBUG		10
#define CONSOLE_LOGLEVEL_MOTORMOUTH	15
#define CONSOLE_LOGLEVEL_DEFAULT	7
#define CONSOLE_LOGLEVEL_QUIET		4
#define MESSAGE_LOGLEVEL_DEFAULT	4

/*
 * What %pV prints: @fmt formatted with *@va, inside the outer format, as
 * the kernel's; needs printk-shim's engine (the module or libprintk-port).
 */
struct va_format {
	const char *fmt;
	va_list *va;
};

#ifdef __cplusplus
extern "C" {
#endif

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int _printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list args) __attribute__((format(printf, 1, 0)));
int printk_deferred(const char *fmt, ...) __attribute__((weak, format(printf, 1, 2)));
int _printk_deferred(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Return: the character after KERN_SOH if @buffer starts with a v5.1+ marker, else 0. */
static inline int printk_get_level(const char *buffer)
{
	char c;

	if (buffer[0] != KERN_SOH_ASCII)
		return 0;
	c = buffer[1];
	if ((c >= '0' && c <= '7') || c == 'c')
		return c;
	return 0;
}

static inline const char *printk_skip_level(const char *buffer)
{
	return printk_get_level(buffer) ? buffer + 2 : buffer;
}

static inline const char *printk_skip_headers(const char *buffer)
{
	while (printk_get_level(buffer))
		buffer = printk_skip_level(buffer);
	return buffer;
}

#ifdef __cplusplus
}
#endif

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

/*
 * The printk index (printk-shim(7) PRINTK INDEX), as the kernel's
 * CONFIG_PRINTK_INDEX keeps it: one record per call site whose format is a
 * literal, in section .printk_index, read back by printk-shim --index. The
 * records are the entries themselves, not pointers to them; each is
 * aligned to a pointer so that the compiler pads none apart. @level is
 * NULL when the level, if any, leads @fmt; @subsys_fmt_prefix is the
 * format of the prefix the dev_* and netdev_* families print before @fmt.
 * GNU C only, not C++: a C++ inline function's static would be defined in
 * every translation unit that emits it, and the link fails. Defining
 * PKS_NO_PRINTK_INDEX before the first include leaves printk() a plain call.
 */
struct pi_entry {
	const char *fmt;
	const char *func;
	const char *file;
	unsigned int line;
	const char *level;
	const char *subsys_fmt_prefix;
};

/* The format is the first argument; taken apart so that ISO C's -pedantic sees no empty "...". */
#define pks_pi_fmt(...)		pks_pi_first(__VA_ARGS__, 0)
#define pks_pi_first(fmt, ...)	fmt

#if defined(__GNUC__) && !defined(__cplusplus) && !defined(PKS_NO_PRINTK_INDEX)
#define __printk_index_emit(_fmt, _level, _subsys_fmt_prefix)		\
	do {								\
		if (__builtin_constant_p(_fmt) && __builtin_constant_p(_level)) { \
			static const struct pi_entry pks_pi_entry	\
			__attribute__((used, section(".printk_index"),	\
				       aligned(sizeof(void *)))) = {	\
				__builtin_constant_p(_fmt) ? (_fmt) : (const char *)0, \
				__func__, __FILE__, __LINE__,		\
				__builtin_constant_p(_level) ? (_level) : (const char *)0, \
				_subsys_fmt_prefix			\
			};						\
		}							\
	} while (0)

#define printk_index_wrap(_p_func, ...)				\
	__extension__ ({						\
		__printk_index_emit(pks_pi_fmt(__VA_ARGS__), (const char *)0, (const char *)0); \
		_p_func(__VA_ARGS__);					\
	})

#define printk(...)		printk_index_wrap(printk, __VA_ARGS__)
#define printk_deferred(...)	printk_index_wrap(pks_printk_deferred, __VA_ARGS__)
#else
#define __printk_index_emit(_fmt, _level, _subsys_fmt_prefix) do { } while (0)
#define printk_deferred(...)	pks_printk_deferred(__VA_ARGS__)
#endif

/* For a family that prints a prefix of its own before @fmt, at @level. */
#define printk_index_subsys_emit(subsys_fmt_prefix, level, ...)	\
	__printk_index_emit(pks_pi_fmt(__VA_ARGS__), level, subsys_fmt_prefix)

/* Type-checks the format and arguments, evaluates nothing, yields 0; not indexed. */
#define no_printk(fmt, ...)						\
	__extension__ ({						\
		if (0)							\
			(printk)(fmt, ##__VA_ARGS__);			\
		0;							\
	})

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)

/* The spelling kernels before v5.5 had; ported code still uses it. */
#define pr_warning pr_warn

/* No pr_fmt: a continuation must not repeat the line's prefix. */
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)

/* DEBUG must be defined before this header is included, as in the kernel. */
#ifdef DEBUG
#define pr_devel(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_devel(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif

/* A statement, as the kernel's dynamic one; DEBUG gives its default. */
#define pr_debug(fmt, ...)	dynamic_pr_debug(fmt, ##__VA_ARGS__)

/* Once per call site; the value is true, as in v5.13+. */
#define printk_once(fmt, ...)						\
	DO_ONCE_LITE(printk, fmt, ##__VA_ARGS__)
#define printk_deferred_once(fmt, ...)					\
	DO_ONCE_LITE(printk_deferred, fmt, ##__VA_ARGS__)

#define pr_emerg_once(fmt, ...)	printk_once(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert_once(fmt, ...)	printk_once(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit_once(fmt, ...)	printk_once(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err_once(fmt, ...)	printk_once(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	printk_once(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice_once(fmt, ...) printk_once(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_once(fmt, ...)	printk_once(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
/* The kernel applies pr_fmt here, unlike pr_cont; kept. */
#define pr_cont_once(fmt, ...)	printk_once(KERN_CONT pr_fmt(fmt), ##__VA_ARGS__)

#ifdef DEBUG
#define pr_devel_once(fmt, ...)	printk_once(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug_once(fmt, ...)	printk_once(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_devel_once(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug_once(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif

/* One ratelimit state per call site: 10 lines per 5 s; no value. */
#define printk_ratelimited(fmt, ...)					\
	__extension__ ({						\
		static DEFINE_RATELIMIT_STATE(pks_rs,			\
					      DEFAULT_RATELIMIT_INTERVAL, \
					      DEFAULT_RATELIMIT_BURST);	\
									\
		if (__ratelimit(&pks_rs))				\
			printk(fmt, ##__VA_ARGS__);			\
	})

#define pr_emerg_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)

#ifdef DEBUG
#define pr_devel_ratelimited(fmt, ...)					\
	printk_ratelimited(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_devel_ratelimited(fmt, ...)					\
	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif

/*
 * _dynamic_func_call() under a ratelimit state of the site's own; the
 * kernel's rule: the limit counts only the calls of an enabled site.
 */
#define pks_dynamic_call_ratelimited(fmt, func, ...)			\
	do {								\
		static DEFINE_RATELIMIT_STATE(pks_rs,			\
					      DEFAULT_RATELIMIT_INTERVAL, \
					      DEFAULT_RATELIMIT_BURST);	\
		DEFINE_DYNAMIC_DEBUG_METADATA(pks_ddebug, fmt);		\
									\
		if (DYNAMIC_DEBUG_BRANCH(pks_ddebug) && __ratelimit(&pks_rs)) \
			func(&pks_ddebug, ##__VA_ARGS__);		\
	} while (0)

/* Its site's format has pr_fmt applied, unlike pr_debug's: the kernel's does so. */
#define pr_debug_ratelimited(fmt, ...)					\
	pks_dynamic_call_ratelimited(pr_fmt(fmt), __dynamic_pr_debug, pr_fmt(fmt), ##__VA_ARGS__)

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The old global limit behind printk_ratelimit(); with a header-only
 * implementation there is one state per translation unit, not per program.
 */
static inline int __printk_ratelimit(const char *func)
{
	static DEFINE_RATELIMIT_STATE(pks_printk_rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);

	return ___ratelimit(&pks_printk_rs, func);
}
#define printk_ratelimit() __printk_ratelimit(__func__)

/**
 * printk_timed_ratelimit() - at most one true per @interval_msecs
 * @caller_jiffies: the caller's state: 0 at first, then the jiffies of the
 *	last true; the kernel's rule, so a start at jiffies 0 looks unused
 * Return: true, and @caller_jiffies updated, if it is 0 or more than
 * @interval_msecs (rounded up to whole jiffies) have passed since.
 */
static inline bool printk_timed_ratelimit(unsigned long *caller_jiffies,
					  unsigned int interval_msecs)
{
	unsigned long now = PKS_RATELIMIT_NOW();
	unsigned long interval = (unsigned long)
		(((unsigned long long)interval_msecs * PKS_HZ + 999) / 1000);

	if (*caller_jiffies && now - *caller_jiffies <= interval)
		return false;
	*caller_jiffies = now;
	return true;
}

#define PKS_DUMP_STACK_DEPTH	64	/* frames dump_stack() prints at most */

/*
 * Where @ra, a caller's return address, is among the @n frames of a
 * backtrace(), or -1: a runtime that intercepts backtrace() (a sanitizer's)
 * puts frames of its own first, which the traces leave out.
 */
static inline int pks_stack_find(void *const *frames, int n, const void *ra)
{
	int i;

	for (i = 0; i < n; i++)
		if (frames[i] == ra)
			return i;
	return -1;
}

/*
 * "Call Trace:" at @lvl, then the frames of the function this is inlined
 * into, outwards: from its own frame when @own, else from the return
 * address into its caller. always_inline, so that backtrace() and
 * __builtin_return_address() are that function's.
 */
static inline __attribute__((always_inline))
void pks_stack_trace(const char *lvl, int own)
{
#ifdef PKS_HAVE_BACKTRACE
	void *frames[PKS_DUMP_STACK_DEPTH];
	int n = backtrace(frames, PKS_DUMP_STACK_DEPTH);
	int i = pks_stack_find(frames, n, __builtin_return_address(0));

	printk("%sCall Trace:\n", lvl);
	for (i = i > 0 ? i - own : !own; i < n; i++)
		printk("%s %pB\n", lvl, frames[i]);
#else
	printk("%sCall Trace:\n", lvl);
	printk("%s %pB\n", lvl, __builtin_return_address(0));
#endif
}

/**
 * dump_stack_lvl() - the caller's backtrace, one line per frame at @log_lvl
 *
 * "Call Trace:", then " <function>+0x<offset>/0x<size>" for each return
 * address from the caller outwards, as x86 kernels print it: printk's %pB,
 * which printk-shim resolves to the function's symbol and a " [module]"
 * for a shared object, else "0x<address>". The kernel's CPU/PID/Comm and
 * "Hardware name" lines and x86's <TASK> markers are not printed. A C
 * library without backtrace() gives one frame, the one the caller returns to.
 */
static inline __attribute__((always_inline))
void dump_stack_lvl(const char *log_lvl)
{
	pks_stack_trace(log_lvl, 1);
}

/* dump_stack_lvl() at KERN_DEFAULT, as the kernel's: each line a new one. */
static inline __attribute__((always_inline))
void dump_stack(void)
{
	dump_stack_lvl(PKS_KERN_NEWLINE);
}

enum {
	DUMP_PREFIX_NONE,
	DUMP_PREFIX_ADDRESS,
	DUMP_PREFIX_OFFSET
};

/* Appends @c if it and a NUL fit; else ends the string (hexdump "overflow2"). */
static inline bool pks_hd_put(char *lb, size_t lbl, size_t *lx, char c)
{
	if (lbl < *lx + 2) {
		lb[(*lx)++] = '\0';
		return false;
	}
	lb[(*lx)++] = c;
	return true;
}

/* One group in host byte order, like the kernel's get_unaligned(). */
static inline unsigned long long pks_hd_load(const unsigned char *p, int gs)
{
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (gs) {
	case 2:
		memcpy(&v2, p, sizeof(v2));
		return v2;
	case 4:
		memcpy(&v4, p, sizeof(v4));
		return v4;
	default:
		memcpy(&v8, p, sizeof(v8));
		return v8;
	}
}

static inline bool pks_hd_groups(const unsigned char *p, size_t ngroups,
				 int gs, char *lb, size_t lbl, size_t *lx)
{
	size_t j;

	for (j = 0; j < ngroups; j++) {
		/* (snprintf): the C library's, also after <linux/sprintf.h> */
		int n = (snprintf)(lb + *lx, lbl - *lx, "%s%0*llx", j ? " " : "",
				 gs * 2, pks_hd_load(p + j * (size_t)gs, gs));

		if (n < 0 || (size_t)n >= lbl - *lx)
			return false;
		*lx += (size_t)n;
	}
	return true;
}

static inline bool pks_hd_bytes(const unsigned char *p, size_t len,
				char *lb, size_t lbl, size_t *lx)
{
	size_t j;

	/* The space after the last byte must fit too, then it is taken back. */
	for (j = 0; j < len; j++) {
		if (!pks_hd_put(lb, lbl, lx, hex_asc_hi(p[j])) ||
		    !pks_hd_put(lb, lbl, lx, hex_asc_lo(p[j])) ||
		    !pks_hd_put(lb, lbl, lx, ' '))
			return false;
	}
	if (len)
		(*lx)--;
	return true;
}

static inline bool pks_hd_ascii(const unsigned char *p, size_t len, size_t col,
				char *lb, size_t lbl, size_t *lx)
{
	size_t j;

	while (*lx < col)
		if (!pks_hd_put(lb, lbl, lx, ' '))
			return false;
	for (j = 0; j < len; j++)
		if (!pks_hd_put(lb, lbl, lx, p[j] >= 0x20 && p[j] < 0x7f ?
				(char)p[j] : '.'))
			return false;
	return true;
}

/**
 * hex_dump_to_buffer() - one row of hex (and ASCII) into @linebuf
 * @len: bytes at @buf; at most one row (@rowsize 16 or 32, else 16) is used
 * @groupsize: 1, 2, 4 or 8 bytes per group, each read in host byte order;
 *	anything else, or a @len it does not divide, means 1
 * Return: the length written, excluding the NUL; if @linebuflen is too
 * small, the length that would have been written (the kernel's rule).
 */
static inline int hex_dump_to_buffer(const void *buf, size_t len, int rowsize,
				     int groupsize, char *linebuf,
				     size_t linebuflen, bool ascii)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t ngroups, col, lx = 0;
	int full;

	if (rowsize != 16 && rowsize != 32)
		rowsize = 16;
	if (len > (size_t)rowsize)
		len = (size_t)rowsize;
	if ((groupsize != 2 && groupsize != 4 && groupsize != 8) ||
	    len % (size_t)groupsize)
		groupsize = 1;
	ngroups = len / (size_t)groupsize;
	col = (size_t)(rowsize * 2 + rowsize / groupsize + 1);
	full = ascii ? (int)(col + len) : (groupsize * 2 + 1) * (int)ngroups - 1;

	if (!linebuflen)
		return full;
	if (len) {
		if (groupsize == 1 ? !pks_hd_bytes(p, len, linebuf, linebuflen, &lx) :
		    !pks_hd_groups(p, ngroups, groupsize, linebuf, linebuflen, &lx))
			return full;
		if (ascii && !pks_hd_ascii(p, len, col, linebuf, linebuflen, &lx))
			return full;
	}
	linebuf[lx] = '\0';
	return (int)lx;
}

/**
 * print_hex_dump() - one printk per row, each a whole line at @level
 * @level: passed as the first "%s" argument, so printk parses it from the
 *	formatted text
 * @prefix_type: DUMP_PREFIX_ADDRESS prints the row's address with printk's
 *	"%p" (the kernel hashes it; what is printed here is whatever the
 *	printk in use makes of %p), DUMP_PREFIX_OFFSET "%.8x" of the offset
 */
static inline void print_hex_dump(const char *level, const char *prefix_str,
				  int prefix_type, int rowsize, int groupsize,
				  const void *buf, size_t len, bool ascii)
{
	const unsigned char *p = (const unsigned char *)buf;
	char line[32 * 3 + 2 + 32 + 1];
	size_t i, n;

	if (rowsize != 16 && rowsize != 32)
		rowsize = 16;
	for (i = 0; i < len; i += (size_t)rowsize) {
		n = len - i < (size_t)rowsize ? len - i : (size_t)rowsize;
		hex_dump_to_buffer(p + i, n, rowsize, groupsize, line,
				   sizeof(line), ascii);
		if (prefix_type == DUMP_PREFIX_ADDRESS)
			printk("%s%s%p: %s\n", level, prefix_str,
			       (const void *)(p + i), line);
		else if (prefix_type == DUMP_PREFIX_OFFSET)
			printk("%s%s%.8x: %s\n", level, prefix_str,
			       (unsigned int)i, line);
		else
			printk("%s%s%s\n", level, prefix_str, line);
	}
}

#ifdef __cplusplus
}
#endif

/*
 * The kernel's dynamic_hex_dump(): a dynamic debug site whose format is
 * @prefix_str when it is a literal, else "hexdump"; its rows are not
 * decorated (print_hex_dump_bytes() included; it was unconditional in
 * older kernels).
 */
#define dynamic_hex_dump(prefix_str, prefix_type, rowsize,		\
			 groupsize, buf, len, ascii)			\
	_dynamic_func_call_no_desc(__builtin_constant_p(prefix_str) ?	\
				   (prefix_str) : "hexdump",		\
				   print_hex_dump, KERN_DEBUG,		\
				   prefix_str, prefix_type, rowsize,	\
				   groupsize, buf, len, ascii)
#define print_hex_dump_debug(prefix_str, prefix_type, rowsize,		\
			     groupsize, buf, len, ascii)		\
	dynamic_hex_dump(prefix_str, prefix_type, rowsize, groupsize,	\
			 buf, len, ascii)

#define print_hex_dump_bytes(prefix_str, prefix_type, buf, len)	\
	print_hex_dump_debug(prefix_str, prefix_type, 16, 1, buf, len, true)

#endif /* _LINUX_PRINTK_H */
