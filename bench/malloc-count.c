// SPDX-License-Identifier: MIT
/*
 * libmalloc-count.so, preloaded beside printk-shim by the benchmark: counts
 * every heap allocation (malloc, calloc, realloc, the aligned ones) in the
 * process and hands them on to glibc's own. The program reads the count
 * through bench_malloc_calls(), found with dlsym(), before and after the part
 * it times; the printk path must not move it.
 * Thread-safety: the counter is atomic.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

/* glibc's allocator under its own names: no dlsym, so no bootstrap problem. */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t k, size_t n);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static _Atomic long calls;

EXPORT long bench_malloc_calls(void);
EXPORT void *malloc(size_t n);
EXPORT void *calloc(size_t k, size_t n);
EXPORT void *realloc(void *p, size_t n);
EXPORT void *memalign(size_t align, size_t n);
EXPORT void *aligned_alloc(size_t align, size_t n);
EXPORT int posix_memalign(void **out, size_t align, size_t n);

/** bench_malloc_calls() - Return: allocations so far in this process. */
long bench_malloc_calls(void)
{
	return atomic_load_explicit(&calls, memory_order_relaxed);
}

static void count(void)
{
	atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
	count();
	return __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	count();
	return __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	count();
	return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
	count();
	return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	count();
	return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	count();
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
