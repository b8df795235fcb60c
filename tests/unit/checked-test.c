// SPDX-License-Identifier: MIT
/*
 * PKS_WARN_ON_ONCE() in a checked build (-DPKS_CHECKED): the line it writes
 * to stderr, once per site, its value, and errno kept; and built without
 * PKS_CHECKED (checked-off-test, the same source), nothing at all.
 */
#include "base/compiler.h"
#include "tap.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static int site_a(int v)
{
	return PKS_WARN_ON_ONCE(v > 3);
}

static int site_b(int v)
{
	return PKS_WARN_ON_ONCE(v < 0);
}

/* What the sites wrote to fd 2 while @fn ran. */
static size_t caught(void (*fn)(void), char *buf, size_t size)
{
	int p[2], saved = dup(2);
	ssize_t n;

	if (pipe(p) || saved < 0)
		return 0;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	dup2(p[1], 2);
	fn();
	dup2(saved, 2);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, size);
	close(p[0]);
	return n > 0 ? (size_t)n : 0;
}

static int vals[8], errs[8];

static void run(void)
{
	int i = 0;

	vals[i++] = site_a(1);	/* false: silent */
	errno = EAGAIN;
	vals[i++] = site_a(5);	/* says so */
	errs[0] = errno;
	vals[i++] = site_a(9);	/* the same site: once only */
	vals[i++] = site_b(-1);	/* another site says so too */
	vals[i++] = site_b(-2);
}

int main(void)
{
	char buf[1024];
	size_t n = caught(run, buf, sizeof(buf));

#ifdef PKS_CHECKED
	/* __FILE__: as the compiler was given it, out of the tree too */
	static const char want[] =
		"printk-shim: " __FILE__ ":16: WARN_ON_ONCE(v > 3)\n"
		"printk-shim: " __FILE__ ":21: WARN_ON_ONCE(v < 0)\n";

	is_mem(buf, n, want, sizeof(want) - 1, "one line per site, once");
	is_int(vals[1] + vals[2] + vals[3] + vals[4], 4, "the value is the condition");
#else
	is_mem(buf, n, "", 0, "unchecked: nothing written");
	is_int(vals[1] + vals[2] + vals[3] + vals[4], 0, "unchecked: always 0");
#endif
	is_int(vals[0], 0, "a false condition is 0");
	is_int(errs[0], EAGAIN, "errno kept");
	return tap_done();
}
