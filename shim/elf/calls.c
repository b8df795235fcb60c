// SPDX-License-Identifier: MIT
/*
 * Direct calls in an object's code: whether its executable segments call or
 * jump to an address without the PLT, as its own calls to a definition the
 * linker bound inside it are made (-Bsymbolic-functions,
 * -fno-semantic-interposition). Pure: the image's bytes are all it reads.
 */
#include "elf/calls.h"

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * x86: a call or a jmp (0xe8, 0xe9) with a 32-bit displacement from the
 * next instruction, at any byte: instructions have no alignment, so a
 * displacement that lands on @to by chance among other bytes counts too
 * (one in 2^32 a candidate); @mask keeps a 32-bit file's addresses in 32 bits.
 */
static bool x86(const unsigned char *b, uint64_t n, uint64_t vaddr, uint64_t to, uint64_t mask)
{
	for (uint64_t i = 0; n >= 5 && i <= n - 5; i++) {
		int32_t rel;

		if ((b[i] | 1) != 0xe9)
			continue;
		rel = (int32_t)((uint32_t)b[i + 1] | (uint32_t)b[i + 2] << 8 |
				(uint32_t)b[i + 3] << 16 | (uint32_t)b[i + 4] << 24);
		if (((vaddr + i + 5 + (uint64_t)(int64_t)rel) & mask) == to)
			return true;
	}
	return false;
}

/* AArch64: b and bl (bits 30-26 00101), a signed 26-bit count of words from themselves. */
static bool a64(const struct pks_elf_image *im, const unsigned char *b, uint64_t n,
		uint64_t vaddr, uint64_t to)
{
	for (uint64_t i = (4 - (vaddr & 3)) & 3; n >= 4 && i <= n - 4; i += 4) {
		uint32_t w = (uint32_t)pks_elf_word(im, b + i, 4);

		if ((w & 0x7c000000) == 0x14000000 &&
		    vaddr + i + (uint64_t)((int64_t)((uint64_t)w << 38) >> 36) == to)
			return true;
	}
	return false;
}

/**
 * pks_elf_calls() - whether @im's code calls or jumps straight to @addr
 * Only x86 and AArch64 code is read: false for any other machine.
 */
bool pks_elf_calls(const struct pks_elf_image *im, uint64_t addr)
{
	uint64_t mask = im->cls == ELFCLASS64 ? UINT64_MAX : UINT32_MAX;
	struct pks_elf_seg s;

	for (unsigned i = 0; pks_elf_seg_at(im, i, &s); i++) {
		if (s.type != PT_LOAD || !(s.flags & PF_X) || !s.bytes)
			continue;
		if ((im->machine == EM_X86_64 || im->machine == EM_386) &&
		    x86(s.bytes, s.filesz, s.vaddr, addr, mask))
			return true;
		if (im->machine == EM_AARCH64 && a64(im, s.bytes, s.filesz, s.vaddr, addr))
			return true;
	}
	return false;
}
