// SPDX-License-Identifier: MIT
/*
 * A legacy port, as printk-shim finds it in the wild: four driver threads
 * printing through the naive printk of libkcompat.so. Each prints the two
 * lines the 4.9 KERN_CONT patch (4bcc595ccd80) had to fix, the vt.c console
 * switch and the SELinux policydb statistics, first in their pre-4.9 form
 * (continuations without KERN_CONT) and then in the fixed form, plus a few
 * levels; the main thread leaves a line open when it exits. The sleeps stand
 * for the work a driver does between two fragments of one line.
 * Run it bare, then under printk-shim: `make demo`.
 */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

/* What a port's compat header carries instead of <linux/kern_levels.h>. */
#define KERN_SOH	"\001"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_CONT	KERN_SOH "c"
#define pr_info(fmt, ...)	printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void work(int us)
{
	struct timespec ts = { 0, us * 1000L };

	nanosleep(&ts, NULL);
}

/* drivers/tty/vt/vt.c, do_bind_con_driver(), before 4.9 */
static void vt_switch_old(int first, int last, const char *desc)
{
	pr_info("Console: switching ");
	work(300);
	printk("consoles %d-%d ", first + 1, last + 1);
	work(300);
	printk("to %s %s %dx%d\n", "colour", desc, 80, 25);
}

/* The same, as 4bcc595ccd80 fixed it. */
static void vt_switch_fixed(int first, int last, const char *desc)
{
	pr_info("Console: switching ");
	work(300);
	pr_cont("consoles %d-%d ", first + 1, last + 1);
	work(300);
	pr_cont("to %s %s %dx%d\n", "colour", desc, 80, 25);
}

/* security/selinux/ss/policydb.c, policydb_index(), before 4.9 */
static void policydb_old(int users)
{
	printk(KERN_DEBUG "SELinux:  %d users, %d roles, %d types, %d bools", users, 14, 4875, 312);
	work(300);
	printk(", %d sens, %d cats", 1, 1024);
	work(300);
	printk("\n");
}

static void policydb_fixed(int users)
{
	printk(KERN_DEBUG "SELinux:  %d users, %d roles, %d types, %d bools", users, 14, 4875, 312);
	work(300);
	pr_cont(", %d sens, %d cats", 1, 1024);
	work(300);
	pr_cont("\n");
}

static void *driver(void *arg)
{
	int id = (int)(long)arg;
	char desc[16];

	snprintf(desc, sizeof(desc), "dummy%d", id);
	vt_switch_old(id, id + 1, desc);
	policydb_old(id + 8);
	vt_switch_fixed(id, id + 1, desc);
	policydb_fixed(id + 8);
	printk(KERN_ERR "drv%d: link down\n", id);
	printk(KERN_NOTICE "drv%d: retrying", id);
	work(200);
	pr_cont(" in %d ms\n", 100 * (id + 1));
	return NULL;
}

int main(void)
{
	pthread_t t[4];

	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, driver, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printk(KERN_WARNING "demo: shutting down, state: ");
	pr_cont("unclean");
	return 0;	/* no newline: the naive printk leaves the line hanging */
}
