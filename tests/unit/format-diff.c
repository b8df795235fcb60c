// SPDX-License-Identifier: MIT
/*
 * Differential test: thousands of generated standard format strings and
 * arguments, formatted by the engine and by the C library's snprintf(),
 * must give the same bytes and the same return value, with a buffer large
 * enough and with a short one. Every format starts with a %n conversion so
 * that the engine walks it instead of taking its fast path (the C library
 * writes through that %n, the engine does not; the output is the same).
 *
 * The arguments follow a few fixed type signatures; the generator builds
 * conversions that consume a prefix of one, so every call is type-exact.
 * The seed is fixed: a failure repeats. It does not test %p extensions.
 */
#undef _FORTIFY_SOURCE		/* %n in a writable format is the point */
#include "format/format.h"
#include "tap.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>

#define ROUNDS		3000	/* formats per signature */
#define SLOTS		12
#define FMT_MAX		512
#define OUT_MAX		2048

/* Argument slots by type letter: the fields of struct vals. */
struct vals {
	int I[SLOTS];
	long L[SLOTS];
	long long Q[SLOTS];
	double D[SLOTS];
	long double E[SLOTS];
	const char *S[SLOTS];
	const wchar_t *W[SLOTS];
	long long *N[SLOTS];
};

#define LETTER(t, k)	#t
#define ARG(t, k)	, v->t[k]

#define SIG0(X) X(N, 0) X(I, 1) X(L, 2) X(D, 3) X(S, 4) X(I, 5) \
		X(Q, 6) X(E, 7) X(W, 8) X(I, 9) X(I, 10) X(D, 11)
#define SIG1(X) X(N, 0) X(D, 1) X(I, 2) X(S, 3) X(I, 4) X(L, 5) \
		X(I, 6) X(E, 7) X(Q, 8) X(I, 9) X(W, 10) X(D, 11)
#define SIG2(X) X(N, 0) X(S, 1) X(S, 2) X(I, 3) X(I, 4) X(I, 5) \
		X(D, 6) X(I, 7) X(I, 8) X(L, 9) X(N, 10) X(S, 11)
#define SIG3(X) X(N, 0) X(E, 1) X(I, 2) X(E, 3) X(I, 4) X(I, 5) \
		X(Q, 6) X(I, 7) X(L, 8) X(W, 9) X(I, 10) X(D, 11)
#define SIG4(X) X(N, 0) X(I, 1) X(I, 2) X(I, 3) X(I, 4) X(I, 5) \
		X(I, 6) X(I, 7) X(I, 8) X(I, 9) X(I, 10) X(I, 11)
#define SIG5(X) X(N, 0) X(L, 1) X(I, 2) X(Q, 3) X(D, 4) X(L, 5) \
		X(I, 6) X(I, 7) X(S, 8) X(E, 9) X(I, 10) X(L, 11)

static const char *const signatures[] = {
	SIG0(LETTER), SIG1(LETTER), SIG2(LETTER),
	SIG3(LETTER), SIG4(LETTER), SIG5(LETTER),
};

#define NSIG	(sizeof(signatures) / sizeof(signatures[0]))

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int pick(int n)
{
	return (int)(next() % (uint64_t)n);
}

static const char *any(const char *const *a, int n)
{
	return a[pick(n)];
}

#define ANY(a)	any(a, (int)(sizeof(a) / sizeof((a)[0])))

static int engine(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = pks_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return r;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

/* Both formatters, with the arguments of signature @sig. */
static void both(int sig, const char *fmt, const struct vals *v, size_t size,
		 char *a, int *ra, char *b, int *rb)
{
	switch (sig) {
#define CASE(n, SIG) \
	case n: \
		*ra = engine(a, size, fmt SIG(ARG)); \
		*rb = snprintf(b, size, fmt SIG(ARG)); \
		break;
	CASE(0, SIG0) CASE(1, SIG1) CASE(2, SIG2)
	CASE(3, SIG3) CASE(4, SIG4) CASE(5, SIG5)
#undef CASE
	}
}

#pragma GCC diagnostic pop

static long long sink[SLOTS];

static int int_value(void)
{
	static const int v[] = { 0, 1, -1, 7, 42, 255, 256, -129, 65535,
				 100000, INT_MAX, INT_MIN, 1234567 };

	return pick(3) ? v[pick(sizeof(v) / sizeof(v[0]))] : (int)next();
}

static long long ll_value(void)
{
	static const long long v[] = { 0, 1, -1, LLONG_MAX, LLONG_MIN,
				       4294967296LL, -4294967297LL, 0x7fLL };

	return pick(2) ? v[pick(sizeof(v) / sizeof(v[0]))] : (long long)next();
}

static double dbl_value(void)
{
	static const double v[] = { 0.0, -0.0, 1.0, 0.5, 1.5, 2.5, -3.25,
				    1e300, -1e-300, 4.9e-324, DBL_MAX, 123456.789,
				    0.1, 1e15, 9.999999, HUGE_VAL, -HUGE_VAL };

	if (!pick(20))
		return NAN;
	return pick(3) ? v[pick(sizeof(v) / sizeof(v[0]))] :
			 (double)(int64_t)next() / (double)(1 + (next() % 1000000));
}

static long double ldbl_value(void)
{
	static const long double v[] = { 0.0L, -0.0L, 1e4000L, 3.5L, -1e-4000L,
					 LDBL_MAX, 0.1L, 2.5L };

	return pick(2) ? v[pick(sizeof(v) / sizeof(v[0]))] : (long double)dbl_value();
}

static const char *const strs[] = {
	"", "a", "hello world", "%d%s%n", "tab\tnl\n", NULL,
	"a fairly long string, long enough to be cut by a short buffer ...",
};

static const wchar_t *const wstrs[] = { L"", L"w", L"wide string", NULL };

/* Fill the slots this format uses, each as its conversion wants it. */
static void fill(struct vals *v, const char *use)
{
	for (int k = 0; k < SLOTS; k++) {
		v->I[k] = use[k] == 'w' ? pick(81) - 40 : use[k] == 'p' ?
			  pick(46) - 5 : use[k] == 'c' ? pick(256) : int_value();
		v->L[k] = (long)ll_value();
		v->Q[k] = ll_value();
		v->D[k] = dbl_value();
		v->E[k] = ldbl_value();
		v->S[k] = strs[pick(sizeof(strs) / sizeof(strs[0]))];
		v->W[k] = wstrs[pick(sizeof(wstrs) / sizeof(wstrs[0]))];
		v->N[k] = &sink[k];
	}
}

/* A conversion letter and length modifier that read type @t. */
static const char *conv_for(char t)
{
	static const char *const I[] = { "d", "i", "o", "u", "x", "X", "b",
		"B", "c", "hd", "hhd", "hu", "hhx", "hX", "ho", "C", "lc", "hc",
		"hb" };
	static const char *const L[] = { "ld", "li", "lu", "lx", "lo", "lX",
		"jd", "ju", "zu", "zd", "Zu", "td", "tx", "lb" };
	static const char *const Q[] = { "lld", "llu", "llx", "Ld", "qd",
		"qu", "Lx", "llo", "llX" };
	static const char *const D[] = { "f", "F", "e", "E", "g", "G", "a",
		"A", "lf", "le", "lg", "la", "hf", "hG" };
	static const char *const E[] = { "Lf", "Le", "Lg", "La", "LA", "LE",
		"LG", "LF", "llf", "qe" };
	static const char *const S[] = { "s", "hs", "hhs" };
	static const char *const W[] = { "ls", "S", "Ls", "zs" };
	static const char *const N[] = { "n", "hhn", "hn", "ln", "lln", "jn",
		"zn", "tn" };

	switch (t) {
	case 'I': return ANY(I);
	case 'L': return ANY(L);
	case 'Q': return ANY(Q);
	case 'D': return ANY(D);
	case 'E': return ANY(E);
	case 'S': return ANY(S);
	case 'W': return ANY(W);
	}
	return ANY(N);
}

static char *add_flags(char *p)
{
	static const char flags[] = "-+ #0'";

	for (int n = pick(4); n > 0; n--)
		*p++ = flags[pick(sizeof(flags) - 1)];
	return p;
}

static char *add_text(char *p)
{
	static const char *const text[] = { "", "", "x", " = ", "[", "]",
		"%%", "abc def", "%5%", "%-3%", "%m", "%.3m", "%20m", "|", "\t" };

	return p + sprintf(p, "%s", ANY(text));
}

/*
 * One conversion for slot @k of @sig, maybe taking I slots first for '*'
 * width and precision. Return: the next free slot, or SLOTS when none fit.
 */
static int add_conv(char **pp, const char *sig, int k, char *use)
{
	char *p = *pp;
	int star_w = sig[k] == 'I' && k + 1 < SLOTS && !pick(4);
	int star_p;

	*p++ = '%';
	p = add_flags(p);
	if (star_w) {
		*p++ = '*';
		use[k++] = 'w';
	} else if (pick(2)) {
		p += sprintf(p, "%d", 1 + pick(30));
	}
	star_p = sig[k] == 'I' && k + 1 < SLOTS && !pick(4);
	if (star_p) {
		p = stpcpy(p, ".*");
		use[k++] = 'p';
	} else if (!pick(3)) {
		p += pick(4) ? sprintf(p, ".%d", pick(25)) : sprintf(p, ".");
	}
	p = stpcpy(p, conv_for(sig[k]));
	if (sig[k] == 'I' && (p[-1] == 'c' || p[-1] == 'C'))
		use[k] = 'c';
	*pp = p;
	return k + 1;
}

static void generate(char *fmt, int sig, char *use)
{
	const char *s = signatures[sig];
	char *p = add_text(fmt);
	int k = 0, want = 1 + pick(SLOTS - 1);

	memset(use, 0, SLOTS);
	p = stpcpy(p, "%n");	/* slot 0 is N: the engine must walk */
	k = 1;
	while (k < want && k < SLOTS) {
		p = add_text(p);
		k = add_conv(&p, s, k, use);
	}
	add_text(p);
}

struct tally {
	int runs, bad, shown;
};

static void compare(struct tally *t, int sig, const char *fmt,
		    const struct vals *v, size_t size)
{
	static char a[OUT_MAX], b[OUT_MAX];
	int ra, rb;

	memset(a, '$', sizeof(a));
	memset(b, '$', sizeof(b));
	both(sig, fmt, v, size, a, &ra, b, &rb);
	t->runs++;
	if (ra == rb && (ra < 0 || !memcmp(a, b, sizeof(a))))
		return;
	t->bad++;
	if (t->shown++ >= 5)
		return;
	printf("# differs (size %zu): \"", size);
	tap_escape(fmt, strlen(fmt));
	printf("\"\n#   engine %d: \"", ra);
	tap_escape(a, ra > 0 && ra < OUT_MAX ? (size_t)ra : 0);
	printf("\"\n#   glibc  %d: \"", rb);
	tap_escape(b, rb > 0 && rb < OUT_MAX ? (size_t)rb : 0);
	printf("\"\n");
}

static void run_signature(int sig)
{
	struct tally t = { 0 };
	char fmt[FMT_MAX], use[SLOTS];
	struct vals v;

	for (int i = 0; i < ROUNDS; i++) {
		int len;

		generate(fmt, sig, use);
		fill(&v, use);
		compare(&t, sig, fmt, &v, OUT_MAX);
		len = snprintf(NULL, 0, "%s", fmt);
		compare(&t, sig, fmt, &v, (size_t)pick(len + 40));
	}
	ok(t.bad == 0, "signature %s: %d calls, %d differ from glibc",
	   signatures[sig], t.runs, t.bad);
}

static void same(struct tally *t, const char *fmt, int ra, const char *a,
		 int rb, const char *b)
{
	t->runs++;
	if (ra == rb && (ra < 0 || !memcmp(a, b, OUT_MAX)))
		return;
	t->bad++;
	printf("# differs: \"%s\": engine %d \"%s\", glibc %d \"%s\"\n",
	       fmt, ra, a, rb, b);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* One format, literal arguments, buffers of every size up to 40. */
#define CORNER(t, fmt, ...) \
	for (size_t size = 0; size <= 40; size++) { \
		static char a[OUT_MAX], b[OUT_MAX]; \
		int ra, rb; \
		memset(a, '$', OUT_MAX); \
		memset(b, '$', OUT_MAX); \
		ra = engine(a, size ? size : OUT_MAX, "%n" fmt, &sink[0], __VA_ARGS__); \
		rb = snprintf(b, size ? size : OUT_MAX, "%n" fmt, &sink[0], __VA_ARGS__); \
		same(t, fmt, ra, a, rb, b); \
	}

/* Hand-picked corners the generator may miss. */
static void corners(void)
{
	struct tally t = { 0 };

	CORNER(&t, "%.0d|%.d|%5.0d|%-5.0x|%#.0o|%#.0x", 0, 0, 0, 0, 0, 0);
	CORNER(&t, "%.s|%.0s|%5.s|%-5.1s|%.*s|%4.*s", "a", "b", "c", "d", -1, "e", -5, "123456");
	CORNER(&t, "%'d|%'.2f|%I5d|%'lld", 1234567, 12345.5, 42, 1234567890123LL);
	CORNER(&t, "%#o|%#x|%#X|%#b|%#B|%#g|%#.0f|%#.0e", 8, 255, 255, 5, 5, 1.0, 2.0, 3.0);
	CORNER(&t, "%+.0f|% .3e|%+a|%010.3f|%-010.3f|%+010d", 2.5, 1e-5, 1.0, -3.14159, 3.14159, -42);
	CORNER(&t, "%c%c%c|%5c|%-5c|%05d", 'a', 0, 'b', 'x', 'y', -7);
	CORNER(&t, "%hhd|%hhu|%hd|%hu|%ld|%lu", 300, -1, 70000, -1, LONG_MIN, ULONG_MAX);
	CORNER(&t, "%%|%5%|%-5%|%m|%.2m|%*%", 3);
	CORNER(&t, "%Lf|%Le|%La|%Lg", 1.5L, -1e-4000L, 1.0L, 1e4000L);
	CORNER(&t, "%f|%e|%g|%a|%F|%E|%G|%A", NAN, -INFINITY, INFINITY, -NAN, NAN, 1e-320, 1e100, 0.1);
	CORNER(&t, "%jd|%zu|%td|%zd|%ju", INTMAX_MIN, SIZE_MAX, PTRDIFF_MIN, (ssize_t)-1, UINTMAX_MAX);
	CORNER(&t, "%*d|%-*d|%*.*d|%.*d", -5, 1, 5, 2, -8, -3, 7, -1, 9);
	CORNER(&t, "%s|%10s|%-10.3s|%ls|%5ls", (char *)NULL, (char *)NULL, "abcdef", L"wide", (wchar_t *)NULL);
	CORNER(&t, "%y|%d", 5);
	CORNER(&t, "%5y|%*y|%d", 6, 7);
	CORNER(&t, "%hhhd|%lllx|%d", 5);
	CORNER(&t, "%.-3d|%d", 5);
	ok(t.bad == 0, "hand-picked corners: %d calls, %d differ", t.runs, t.bad);
}

#pragma GCC diagnostic pop

int main(void)
{
	for (unsigned int sig = 0; sig < NSIG; sig++)
		run_signature((int)sig);
	corners();
	return tap_done();
}
