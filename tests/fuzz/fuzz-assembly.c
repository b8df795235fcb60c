// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: marker parsing and line assembly (shim/core/level.c,
 * shim/core/cont.c, shim/core/linebuf.c) against a reference model of
 * printk-shim(7) LEVELS AND MARKERS and CONTINUATION kept here, written from the man page's words rather than from the
 * code. The input is two bytes of configuration, then fragments separated
 * by NUL (a formatted printk fragment never holds a NUL):
 *
 *   byte 0: bit 0 strict mode, bit 1 legacy "<N>" markers, bits 2-4 the
 *           default level
 *   byte 1: LINE_MAX, 1..64, so that long lines are cut into pieces
 *
 * Each fragment goes through what emit.c's feed() does (parse, decide,
 * close/start, feed); at the end the open line is closed, as at exit. Every
 * line written (level, the orphan-KERN_CONT flag, text) must match the
 * model's, in order.
 */
#include "core/cont.h"
#include "core/level.h"
#include "core/linebuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines as they come out: level, cont, 4-byte length, text. */
struct log {
	unsigned char *p;
	size_t len, cap;
};

static void log_put(struct log *g, int level, bool cont, const char *s, size_t n)
{
	uint32_t n32 = (uint32_t)n;

	if (g->len + n + 6 > g->cap) {
		g->cap = (g->len + n + 6) * 2;
		g->p = realloc(g->p, g->cap);
		if (!g->p)
			abort();
	}
	g->p[g->len++] = (unsigned char)level;
	g->p[g->len++] = cont;
	memcpy(g->p + g->len, &n32, 4);
	g->len += 4;
	memcpy(g->p + g->len, s, n);
	g->len += n;
}

/* --- the shim's side: emit.c's feed() without configuration or sinks ------- */

static void shim_out(struct pks_line *l, void *arg)
{
	log_put(arg, l->level, l->cont, l->sb.buffer, seq_buf_used(&l->sb));
}

static void shim_feed(struct pks_line *l, const char *s, size_t n, bool strict, bool legacy,
		      int dflt, struct log *g)
{
	struct pks_mark m;
	size_t skip = pks_level_parse(s, n, legacy, &m);
	const char *text = s + skip;
	size_t len = n - skip;
	enum pks_act act;

	if (skip > n)
		abort();
	act = pks_cont_decide(l->open, m.flags, strict ? PKS_CONT_STRICT : PKS_CONT_LEGACY,
			      len == 1 && text[0] == '\n');
	if (act == PKS_DROP)
		return;
	if (act == PKS_NEW) {
		pks_line_close(l, shim_out, g);
		pks_line_start(l, m.level != PKS_LEVEL_NONE ? m.level : dflt, m.flags & PKS_M_CONT, 0);
	}
	pks_line_feed(l, text, len, shim_out, g);
}

/* --- the model: printk-shim(7) LEVELS AND MARKERS and CONTINUATION, directly -------------------------- */

struct model {
	bool strict, legacy;
	int dflt;
	size_t max;
	bool open;		/* a line is open */
	int level;		/* its level */
	bool cont;		/* it was started by an orphan KERN_CONT */
	char *text;		/* what it holds so far */
	size_t len;
};

/*
 * "A piece never ends inside a UTF-8 character: the bytes of one cut at its
 * end open the next piece instead (unless that piece would be left empty)":
 * how many of the @k bytes at @p go to the next piece. A character starts
 * with a byte from C2 to F4 and takes 2, 3 or 4 bytes.
 */
static size_t carried(const char *p, size_t k)
{
	for (size_t j = 1; j <= 3 && j < k; j++) {
		unsigned char b = (unsigned char)p[k - j];
		size_t need;

		if (b >= 0x80 && b < 0xc0)
			continue;	/* inside a character: look further back */
		if (b < 0xc2 || b > 0xf4)
			return 0;
		need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
		return need > j ? j : 0;
	}
	return 0;
}

/* A complete line goes out in pieces of at most LINE_MAX, all at its level. */
static void model_write(struct model *md, struct log *g)
{
	size_t at = 0;

	do {
		size_t k = md->len - at < md->max ? md->len - at : md->max;

		if (at + k < md->len)
			k -= carried(md->text + at, k);
		log_put(g, md->level, md->cont, md->text + at, k);
		at += k;
	} while (at < md->len);
	md->len = 0;
}

/* "KERN_SOH followed by 0..7, c or d", and "<0>".."<7>", "<c>", "<d>" if allowed. */
static int marker(const struct model *md, const char *s, size_t n, char *what)
{
	bool ok2 = n >= 2 && s[0] == '\001' && strchr("01234567cd", s[1]) && s[1];
	bool ok3 = md->legacy && n >= 3 && s[0] == '<' && s[2] == '>' && s[1] &&
		   strchr("01234567cd", s[1]);

	*what = ok2 ? s[1] : ok3 ? s[1] : 0;
	return ok2 ? 2 : ok3 ? 3 : 0;
}

static void model_feed(struct model *md, const char *s, size_t n, struct log *g)
{
	bool cont = false, digit = false, dflt_marker = false, bare;
	int level = -1, k;
	char what;

	/* The whole leading run of markers; the first digit wins. */
	while ((k = marker(md, s, n, &what))) {
		if (what == 'c')
			cont = true;
		else if (what == 'd')
			dflt_marker = true;
		else if (!digit)
			digit = true, level = what - '0';
		s += k;
		n -= (size_t)k;
	}
	bare = n == 1 && s[0] == '\n';
	if (cont && !md->open && !md->strict && bare)
		return;			/* pr_cont("\n") on a closed line, legacy */
	if (!(cont && md->open) &&
	    (cont || md->strict || digit || dflt_marker || !md->open)) {
		if (md->open)
			model_write(md, g);	/* closed as it stands */
		md->open = true;
		md->level = digit ? level : md->dflt;
		md->cont = cont;
		md->len = 0;
	}
	/* One line per '\n'; the text after the last stays open at that level. */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			model_write(md, g);
			md->open = i + 1 < n;
		} else {
			md->text[md->len++] = s[i];
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log shim = { 0 }, ref = { 0 };
	struct model md = { 0 };
	struct pks_line l;
	char *buf, *copy;
	size_t at;

	if (size < 2)
		return 0;
	md.strict = data[0] & 1;
	md.legacy = data[0] & 2;
	md.dflt = (data[0] >> 2) & 7;
	md.max = 1 + data[1] % 64;
	md.text = malloc(size + 1);
	buf = malloc(md.max);
	copy = malloc(size);	/* each fragment in a buffer of its own size */
	pks_line_init(&l, buf, md.max);
	for (at = 2; at <= size; ) {
		const uint8_t *end = memchr(data + at, 0, size - at);
		size_t n = end ? (size_t)(end - (data + at)) : size - at;
		char *frag = copy + (size - n);

		memcpy(frag, data + at, n);
		shim_feed(&l, frag, n, md.strict, md.legacy, md.dflt, &shim);
		model_feed(&md, frag, n, &ref);
		at += n + 1;
	}
	pks_line_close(&l, shim_out, &shim);
	if (md.open)
		model_write(&md, &ref);
	if (shim.len != ref.len || (shim.len && memcmp(shim.p, ref.p, shim.len))) {
		fprintf(stderr, "fuzz-assembly: the shim's lines differ from the model's\n");
		abort();
	}
	free(shim.p);
	free(ref.p);
	free(md.text);
	free(buf);
	free(copy);
	return 0;
}
