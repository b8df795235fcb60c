/* SPDX-License-Identifier: MIT */
/*
 * What patching needs to know of each architecture: the landing pad to keep
 * at a function's entry, the encoding of a jump, and the instruction-cache
 * sync after writing it. Included by patch.c, and by cmd/inspect.c,
 * which asks whether a jump would fit.
 */
#ifndef PKS_PATCH_ARCH_H
#define PKS_PATCH_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#define ARCH_OK true

static inline size_t arch_keep(const unsigned char *p, size_t size)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	return size >= 4 && !memcmp(p, endbr64, 4) ? 4 : 0;
}

/* jmp rel32 when @to is within reach, else movabs $to, %r11; jmp *%r11 (r11 holds no argument). */
static inline size_t arch_jump(unsigned char *code, uintptr_t at, uintptr_t to, size_t room, size_t *need)
{
	int64_t rel = (int64_t)(to - (at + 5));
	int32_t rel32 = (int32_t)rel;

	*need = rel == rel32 ? 5 : 13;
	if (room < *need)
		return 0;
	if (*need == 5) {
		code[0] = 0xe9;
		memcpy(code + 1, &rel32, 4);
		return 5;
	}
	memcpy(code, "\x49\xbb", 2);
	memcpy(code + 2, &to, 8);
	memcpy(code + 10, "\x41\xff\xe3", 3);
	return 13;
}

static inline void arch_sync(char *p, size_t n)
{
	(void)p;
	(void)n;
}

#elif defined(__aarch64__)
#define ARCH_OK true

/* bti, bti c, bti j, bti jc. Not paciasp: the shim signs its own return. */
static inline size_t arch_keep(const unsigned char *p, size_t size)
{
	uint32_t insn;

	if (size < 4)
		return 0;
	memcpy(&insn, p, 4);
	return (insn & 0xffffff3f) == 0xd503241f ? 4 : 0;
}

/* b imm26 within 128 MiB, else ldr x16, .+8; br x16; .quad to (x16: the veneer register). */
static inline size_t arch_jump(unsigned char *code, uintptr_t at, uintptr_t to, size_t room, size_t *need)
{
	int64_t rel = (int64_t)(to - at);
	uint32_t insn[2] = { 0x58000050, 0xd61f0200 };

	*need = rel >= -(1 << 27) && rel < (1 << 27) ? 4 : 16;
	if (room < *need)
		return 0;
	if (*need == 4) {
		insn[0] = 0x14000000 | ((uint32_t)(rel >> 2) & 0x03ffffff);
		memcpy(code, insn, 4);
		return 4;
	}
	memcpy(code, insn, 8);
	memcpy(code + 8, &to, 8);
	return 16;
}

static inline void arch_sync(char *p, size_t n)
{
	__builtin___clear_cache(p, p + n);
}

#else
#define ARCH_OK false

static inline size_t arch_keep(const unsigned char *p, size_t size)
{
	(void)p;
	(void)size;
	return 0;
}

static inline size_t arch_jump(unsigned char *code, uintptr_t at, uintptr_t to, size_t room, size_t *need)
{
	(void)code;
	(void)at;
	(void)to;
	(void)room;
	*need = 0;
	return 0;
}

static inline void arch_sync(char *p, size_t n)
{
	(void)p;
	(void)n;
}
#endif

#endif
