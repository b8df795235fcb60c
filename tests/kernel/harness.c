// SPDX-License-Identifier: MIT
/*
 * The kernel test harness's main: seeds random(3) (from argv[1] or the
 * clock), "loads" the test (its module_init), "unloads" it, and exits 1
 * when the init function failed, as insmod of a failing test module does.
 * Also what a test links against from the kernel's lib/ (no_hash_pointers).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* lib/vsprintf.c's: printk-shim's engine hashes %p, as the kernel does by default. */
bool no_hash_pointers;

int pks_kt_init(void);
void pks_kt_exit(void);

int main(int argc, char **argv)
{
	unsigned int seed = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0)
				     : (unsigned int)time(NULL);
	int r;

	srandom(seed);
	r = pks_kt_init();
	pks_kt_exit();
	fprintf(stdout, "harness: seed %u, init returned %d\n", seed, r);
	return r != 0;
}
