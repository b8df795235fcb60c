// SPDX-License-Identifier: MIT
/*
 * Network addresses, by reference, as the kernel prints them: MAC (%pM
 * %pMR %pMF %pm %pmR), IPv4 (%pI4 %pi4 with byte order h/n/b/l), IPv6
 * (%pI6 %pi6 and the RFC 5952 compression of %pI6c) and struct sockaddr
 * (%pIS %piS with p port, f flowinfo, s scope, c compression and the IPv4
 * byte order letters). Each address is built in a small local buffer, then
 * printed with the conversion's width and precision. Like the kernel, the
 * port, flowinfo and scope are numbers printed with that same spec.
 *
 * Thread-safety: no state.
 */
#include "format/internal.h"
#include "base/digits.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#define IP6_MAX	sizeof("[xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:255.255.255.255]" \
		       ":65535/4294967295%4294967295")

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void pks_fmt_ext_mac(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		     struct pks_fmt_spec sp)
{
	const unsigned char *a = ptr;
	char s[sizeof("xx:xx:xx:xx:xx:xx")], *p = s;
	char sep = ext[1] == 'F' ? '-' : ':';
	int rev = ext[1] == 'R';

	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	for (int i = 0; i < 6; i++) {
		p = pks_fmt_hexbyte(p, a[rev ? 5 - i : i], 0);
		if (ext[0] == 'M' && i != 5)
			*p++ = sep;
	}
	*p = '\0';
	pks_fmt_str(b, s, sp);
}

/* Dotted quad; @order is the kernel's h/n/b/l letter, n by default. */
static char *ip4(char *p, const unsigned char *a, int zeros, char order)
{
	int host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	int i = 0, step = 1;

	if (order == 'l' || (order == 'h' && host_le)) {
		i = 3;
		step = -1;
	}
	for (int n = 0; n < 4; n++, i += step) {
		p = pks_put_udec(p, a[i], zeros ? 3 : 1, '0');
		if (n < 3)
			*p++ = '.';
	}
	*p = '\0';
	return p;
}

/* Eight groups of four hex digits, with colons for 'I', without for 'i'. */
static char *ip6_full(char *p, const unsigned char *a, int colons)
{
	for (int i = 0; i < 16; i += 2) {
		p = pks_fmt_hexbyte(p, a[i], 0);
		p = pks_fmt_hexbyte(p, a[i + 1], 0);
		if (colons && i != 14)
			*p++ = ':';
	}
	*p = '\0';
	return p;
}

static char *hex_group(char *p, unsigned int w)
{
	int shift = 12;

	while (shift > 0 && !(w >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		*p++ = pks_hex_lower[(w >> shift) & 15];
	return p;
}

/* Mapped (::ffff:0:0/96) and ISATAP addresses end in a dotted quad. */
static int ends_in_ip4(const unsigned char *a)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(a, mapped, sizeof(mapped)))
		return 1;
	return (a[8] | 0x02) == 0x02 && a[9] == 0 && a[10] == 0x5e &&
	       a[11] == 0xfe;
}

/* The first longest run of two or more zero groups among @n. */
static int zero_run(const unsigned char *a, int n, int *start)
{
	int best = 1;

	*start = -1;
	for (int i = 0; i < n; i++) {
		int len = 0;

		while (i + len < n && !a[2 * (i + len)] && !a[2 * (i + len) + 1])
			len++;
		if (len > best) {
			best = len;
			*start = i;
		}
	}
	return best;
}

/* RFC 5952, as the kernel's ip6_compressed_string(). */
static char *ip6_compressed(char *p, const unsigned char *a)
{
	int v4 = ends_in_ip4(a), n = v4 ? 6 : 8, start;
	int run = zero_run(a, n, &start), colon = 0;

	for (int i = 0; i < n; i++) {
		if (i == start) {
			if (colon || i == 0)
				*p++ = ':';
			*p++ = ':';
			colon = 0;
			i += run - 1;
			continue;
		}
		if (colon)
			*p++ = ':';
		p = hex_group(p, (unsigned int)a[2 * i] << 8 | a[2 * i + 1]);
		colon = 1;
	}
	if (v4) {
		if (colon)
			*p++ = ':';
		p = ip4(p, a + 12, 0, 'n');
	}
	*p = '\0';
	return p;
}

static void put_ip6(struct pks_fmt_buf *b, const unsigned char *a,
		    const char *ext, struct pks_fmt_spec sp)
{
	char s[IP6_MAX];

	if (ext[0] == 'I' && ext[2] == 'c')
		ip6_compressed(s, a);
	else
		ip6_full(s, a, ext[0] == 'I');
	pks_fmt_str(b, s, sp);
}

static void put_ip4(struct pks_fmt_buf *b, const unsigned char *a,
		    const char *ext, struct pks_fmt_spec sp)
{
	char s[sizeof("255.255.255.255")];

	ip4(s, a, ext[0] == 'i', ext[2]);
	pks_fmt_str(b, s, sp);
}

/* A number after the address, printed with the conversion's own spec. */
static void put_suffix(struct pks_fmt_buf *l, char c, unsigned long v,
		       struct pks_fmt_spec sp)
{
	pks_fmt_putc(l, c);
	pks_fmt_num(l, v, 10, sp);
}

static void sa4(struct pks_fmt_buf *b, const struct sockaddr_in *sa,
		const char *ext, struct pks_fmt_spec sp)
{
	char s[IP6_MAX], order = 'n';
	struct pks_fmt_buf l = { .buf = s, .size = sizeof(s) };
	int port = 0;

	for (const char *f = ext + 2; is_alpha(*f); f++) {
		if (*f == 'p')
			port = 1;
		else if (strchr("hlnb", *f))
			order = *f;
	}
	l.len = ip4(s, (const unsigned char *)&sa->sin_addr, ext[0] == 'i',
		    order) - s;
	if (port)
		put_suffix(&l, ':', ntohs(sa->sin_port), sp);
	pks_fmt_str(b, pks_fmt_terminate(&l), sp);
}

static void sa6(struct pks_fmt_buf *b, const struct sockaddr_in6 *sa,
		const char *ext, struct pks_fmt_spec sp)
{
	const unsigned char *a = (const unsigned char *)&sa->sin6_addr;
	char s[IP6_MAX], *p = s, has[128] = { 0 };
	struct pks_fmt_buf l = { .buf = s, .size = sizeof(s) };
	int bracket;

	for (const char *f = ext + 2; is_alpha(*f); f++)
		has[(unsigned char)*f] = 1;
	bracket = has['p'] || has['f'] || has['s'];
	if (bracket)
		*p++ = '[';
	if (ext[0] == 'I' && has['c'])
		p = ip6_compressed(p, a);
	else
		p = ip6_full(p, a, ext[0] == 'I');
	if (bracket)
		*p++ = ']';
	l.len = p - s;
	if (has['p'])
		put_suffix(&l, ':', ntohs(sa->sin6_port), sp);
	if (has['f'])
		put_suffix(&l, '/', ntohl(sa->sin6_flowinfo) & 0x0fffffff, sp);
	if (has['s'])
		put_suffix(&l, '%', sa->sin6_scope_id, sp);
	pks_fmt_str(b, pks_fmt_terminate(&l), sp);
}

static void put_sockaddr(struct pks_fmt_buf *b, const void *ptr,
			 const char *ext, struct pks_fmt_spec sp)
{
	sa_family_t family;

	memcpy(&family, ptr, sizeof(family));
	if (family == AF_INET)
		sa4(b, ptr, ext, sp);
	else if (family == AF_INET6)
		sa6(b, ptr, ext, sp);
	else
		pks_fmt_errstr(b, "(einval)", sp);
}

void pks_fmt_ext_ip(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		    struct pks_fmt_spec sp)
{
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	switch (ext[1]) {
	case '4':
		put_ip4(b, ptr, ext, sp);
		break;
	case '6':
		put_ip6(b, ptr, ext, sp);
		break;
	case 'S':
		put_sockaddr(b, ptr, ext, sp);
		break;
	default:
		pks_fmt_errstr(b, ext[0] == 'i' ? "(%pi?)" : "(%pI?)", sp);
	}
}
