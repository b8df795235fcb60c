// SPDX-License-Identifier: MIT
/*
 * A shared object for format-sym-test: its functions are "module" symbols
 * to %pS, shown with " [libformat-sym]". Nothing else.
 */
int pks_sym_lib_fn(int x);
const void *pks_sym_lib_addr(void);

int pks_sym_lib_fn(int x)
{
	return x * 3 + 1;
}

const void *pks_sym_lib_addr(void)
{
	return (const void *)pks_sym_lib_fn;
}
