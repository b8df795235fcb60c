// SPDX-License-Identifier: MIT
/*
 * Pointers as values: %p and %pK (hashed), %px (raw), %pa/%pad (an address
 * by reference), %pNF and %pe (an ERR_PTR by name).
 *
 * %p hashes as the kernel does: SipHash-2-4 of the pointer under a key, the
 * low 32 bits, zero-padded to the pointer's width ("00000000" and 8 hex
 * digits on 64-bit). The key is the 16 random bytes the kernel hands every
 * process (AT_RANDOM, from elf/loaded.c), so a pointer keeps its hash for the life of the
 * process and no address leaks. NULL and ERR_PTR values print as
 * themselves, as in the kernel. Without AT_RANDOM it prints
 * "(____ptrval____)", the kernel's output before its key is ready. %pK is
 * %p (the kernel's kptr_restrict=0). Nothing here reads the pointee except
 * %pa, %pad and %pNF.
 *
 * Thread-safety: no state; AT_RANDOM is read-only.
 */
#include "elf/loaded.h"
#include "format/internal.h"

#include <string.h>

#define ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
	v[0] += v[1]; v[1] = ROTL(v[1], 13); v[1] ^= v[0]; v[0] = ROTL(v[0], 32);
	v[2] += v[3]; v[3] = ROTL(v[3], 16); v[3] ^= v[2];
	v[0] += v[3]; v[3] = ROTL(v[3], 21); v[3] ^= v[0];
	v[2] += v[1]; v[1] = ROTL(v[1], 17); v[1] ^= v[2]; v[2] = ROTL(v[2], 32);
}

static void sip_mix(uint64_t v[4], uint64_t m, int rounds)
{
	v[3] ^= m;
	while (rounds--)
		sip_round(v);
	v[0] ^= m;
}

/* SipHash-2-4 of one 64-bit word: the kernel's siphash_1u64(). */
static uint64_t siphash_u64(uint64_t m, const uint64_t k[2])
{
	uint64_t v[4] = {
		k[0] ^ 0x736f6d6570736575ULL, k[1] ^ 0x646f72616e646f6dULL,
		k[0] ^ 0x6c7967656e657261ULL, k[1] ^ 0x7465646279746573ULL,
	};

	sip_mix(v, m, 2);
	sip_mix(v, 8ULL << 56, 2);
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The kernel's pointer_string(): zero-padded hex unless a width is given. */
static void put_pointer(struct pks_fmt_buf *b, uintptr_t v,
			struct pks_fmt_spec sp)
{
	sp.flags |= PKS_FMT_SMALL;
	if (sp.width == -1) {
		sp.width = 2 * sizeof(void *);
		sp.flags |= PKS_FMT_ZEROPAD;
	}
	pks_fmt_num(b, v, 16, sp);
}

void pks_fmt_ext_raw(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		     struct pks_fmt_spec sp)
{
	(void)ext;
	put_pointer(b, (uintptr_t)ptr, sp);
}

void pks_fmt_ext_hashed(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	const void *random = pks_elf_at_random();
	uint64_t key[2];

	(void)ext;
	if (!ptr || PKS_FMT_IS_ERR(ptr)) {
		put_pointer(b, (uintptr_t)ptr, sp);
		return;
	}
	if (!random) {
		sp.width = 2 * sizeof(void *);
		pks_fmt_errstr(b, sizeof(void *) == 8 ? "(____ptrval____)" :
				  "(ptrval)", sp);
		return;
	}
	memcpy(key, random, sizeof(key));
	put_pointer(b, siphash_u64((uintptr_t)ptr, key) & 0xffffffffu, sp);
}

/* %pa[p] phys_addr_t, %pad dma_addr_t: both pointer-sized here. */
void pks_fmt_ext_addr(struct pks_fmt_buf *b, const void *ptr, const char *ext,
		      struct pks_fmt_spec sp)
{
	uintptr_t v;

	(void)ext;
	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	memcpy(&v, ptr, sizeof(v));
	pks_fmt_hexnum(b, v, sizeof(v));
}

/* %pNF: a 64-bit netdev_features_t by reference. */
void pks_fmt_ext_netdev(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	uint64_t v;

	if (pks_fmt_bad_ptr(b, ptr, sp))
		return;
	if (ext[1] != 'F') {
		pks_fmt_errstr(b, "(%pN?)", sp);
		return;
	}
	memcpy(&v, ptr, sizeof(v));
	pks_fmt_hexnum(b, v, sizeof(v));
}

/* %pe: an ERR_PTR's name, its number if it has none; else it is %p. */
void pks_fmt_ext_errptr(struct pks_fmt_buf *b, const void *ptr, const char *ext,
			struct pks_fmt_spec sp)
{
	int err = (int)(intptr_t)ptr;
	const char *name = pks_fmt_errname(err);

	if (!PKS_FMT_IS_ERR(ptr)) {
		pks_fmt_ext_hashed(b, ptr, ext, sp);
		return;
	}
	if (name) {
		pks_fmt_str(b, name, sp);
		return;
	}
	sp.flags |= PKS_FMT_SIGN;
	pks_fmt_num(b, (unsigned long long)(long long)err, 10, sp);
}
