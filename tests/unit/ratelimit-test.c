/* SPDX-License-Identifier: MIT */
/*
 * Rate limiting and once-only printing from include/linux/ratelimit*.h and
 * printk.h, on a fake clock (PKS_RATELIMIT_NOW, in jiffies of PKS_HZ).
 * Covers the kernel's ___ratelimit rule: burst per interval, the interval
 * ends strictly after begin + interval, the "callbacks suppressed" report
 * through printk_deferred at KERN_WARNING naming the calling function,
 * interval 0 and burst 0 or less, RATELIMIT_MSG_ON_RELEASE, a busy state,
 * jiffies wrap-around, printk_ratelimited's defaults (10 per 5 s), and
 * printk_once and the shared states under several threads, and
 * printk_timed_ratelimit(). The cases of the
 * kernel's lib/tests/test_ratelimit.c (smoke, with its disabling and
 * re-enabling, and stress) run here with the fake clock's exact sleeps.
 */
#include <limits.h>
#include <pthread.h>
#include <time.h>

static unsigned long fake_jiffies = 1000;
#define PKS_RATELIMIT_NOW() __atomic_load_n(&fake_jiffies, __ATOMIC_RELAXED)

#define pr_fmt(fmt) "rl: " fmt
#include <linux/printk.h>
#include <linux/ratelimit.h>

#include "tap.h"

static char printed[4096];
static size_t printed_len;
static int printk_calls, deferred_calls;

static __attribute__((format(printf, 2, 0)))
int record(const char *tag, const char *fmt, va_list ap)
{
	int n;

	printed_len += (size_t)snprintf(printed + printed_len,
					sizeof(printed) - printed_len, "%s", tag);
	n = vsnprintf(printed + printed_len, sizeof(printed) - printed_len, fmt, ap);
	printed_len += (size_t)n;
	return n;
}

int (printk)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = record("", fmt, ap);
	va_end(ap);
	__atomic_add_fetch(&printk_calls, 1, __ATOMIC_RELAXED);
	return n;
}

int (printk_deferred)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = record("[deferred]", fmt, ap);
	va_end(ap);
	deferred_calls++;
	return n;
}

static void reset(void)
{
	printed[0] = '\0';
	printed_len = 0;
	printk_calls = 0;
	deferred_calls = 0;
}

static int passes(struct ratelimit_state *rs, int calls)
{
	int n = 0;

	while (calls--)
		n += __ratelimit(rs);
	return n;
}

static void defaults(void)
{
	is_int(PKS_HZ, 1000, "PKS_HZ is 1000 without HZ");
	is_int(DEFAULT_RATELIMIT_INTERVAL, 5 * 1000, "interval 5 s");
	is_int(DEFAULT_RATELIMIT_BURST, 10, "burst 10");
}

static void burst_and_interval(void)
{
	DEFINE_RATELIMIT_STATE(rs, 100, 3);

	reset();
	fake_jiffies = 1000;
	is_int(passes(&rs, 7), 3, "burst: 3 of 7 pass");
	is_int(rs.missed, 4, "burst: 4 counted as missed");
	fake_jiffies = 1100;
	is_int(__ratelimit(&rs), 0, "begin + interval is still inside");
	is_int(deferred_calls, 0, "no report inside the interval");
	fake_jiffies = 1101;
	is_int(__ratelimit(&rs), 1, "just after the interval passes");
	is_str(printed, "[deferred]" KERN_WARNING "burst_and_interval: 5 callbacks suppressed\n",
	       "report: KERN_WARNING, the caller's __func__, via printk_deferred");
	is_int(rs.missed, 0, "report resets missed");
	is_int(passes(&rs, 5), 2, "the new interval has the rest of its burst");
	fake_jiffies = 1300;
	reset();
	is_int(__ratelimit(&rs), 1, "next interval");
	is_str(printed, "[deferred]" KERN_WARNING "burst_and_interval: 3 callbacks suppressed\n",
	       "the report counts only this interval's misses");
	fake_jiffies = 1500;
	reset();
	__ratelimit(&rs);
	is_int(deferred_calls, 0, "no report when nothing was missed");
}

static void zero_interval_and_burst(void)
{
	DEFINE_RATELIMIT_STATE(off, 0, 1);
	DEFINE_RATELIMIT_STATE(none, 100, 0);
	DEFINE_RATELIMIT_STATE(both, 0, 0);
	DEFINE_RATELIMIT_STATE(neg_interval, -1, 1);
	DEFINE_RATELIMIT_STATE(neg_burst, 100, -1);
	struct ratelimit_state disabled = RATELIMIT_STATE_INIT_DISABLED;

	is_int(passes(&off, 50), 50, "interval 0: no limit");
	is_int(off.missed, 0, "interval 0: nothing counted");
	is_int(passes(&disabled, 50), 50, "RATELIMIT_STATE_INIT_DISABLED: no limit");
	is_int(passes(&none, 5), 0, "burst 0: nothing passes");
	is_int(none.missed, 5, "burst 0: all counted");
	is_int(passes(&both, 5), 5, "interval 0 and burst 0: no limit");
	is_int(passes(&neg_interval, 5), 5, "interval < 0, burst > 0: no limit");
	is_int(passes(&neg_burst, 5), 0, "burst < 0: nothing passes");
	is_int(neg_burst.missed, 5, "burst < 0: all counted");
}

static void msg_on_release(void)
{
	struct ratelimit_state rs;

	ratelimit_state_init(&rs, 100, 1);
	ratelimit_set_flags(&rs, RATELIMIT_MSG_ON_RELEASE);
	reset();
	fake_jiffies = 5000;
	passes(&rs, 4);
	fake_jiffies = 5200;
	is_int(__ratelimit(&rs), 1, "on release: passes after the interval");
	is_int(deferred_calls, 0, "on release: no report at the interval");
	is_int(rs.missed, 3, "on release: misses kept");
	ratelimit_state_exit(&rs);
	is_str(printed, KERN_WARNING "rl: ratelimit-test: 3 output lines suppressed due to ratelimiting\n",
	       "ratelimit_state_exit reports with pr_warn, naming the program (built without _GNU_SOURCE)");
	is_int(rs.missed, 0, "ratelimit_state_exit resets missed");
}

static void busy_state(void)
{
	DEFINE_RATELIMIT_STATE(rs, 100, 2);

	reset();
	fake_jiffies = 7000;
	rs.lock = 1;
	is_int(__ratelimit(&rs), 0, "busy, never started: refused");
	is_int(rs.missed, 1, "busy, never started: counted");
	rs.lock = 0;
	is_int(__ratelimit(&rs), 1, "free: starts the state");
	rs.lock = 1;
	is_int(__ratelimit(&rs), 1, "busy: takes what is left of the burst");
	is_int(__ratelimit(&rs), 0, "busy, burst used: refused");
	is_int(rs.missed, 2, "busy, burst used: counted");
	fake_jiffies = 7200;
	is_int(__ratelimit(&rs), 0, "busy: cannot open the next interval");
	rs.lock = 0;
	is_int(__ratelimit(&rs), 1, "free again: the next interval opens");
	is_str(printed, "[deferred]" KERN_WARNING "busy_state: 3 callbacks suppressed\n",
	       "busy: its refusals are reported with the others");
}

static void reset_interval(void)
{
	DEFINE_RATELIMIT_STATE(rs, 100, 2);

	reset();
	fake_jiffies = 8000;
	passes(&rs, 5);
	ratelimit_state_reset_interval(&rs, 300);
	is_int(rs.interval, 300, "reset_interval: the new interval");
	is_int(ratelimit_state_get_miss(&rs), 0, "reset_interval: misses forgotten");
	fake_jiffies = 8050;
	is_int(passes(&rs, 3), 2, "reset_interval: a full burst at once");
	fake_jiffies = 8350;
	is_int(__ratelimit(&rs), 0, "reset_interval: the interval starts at the next call");
	is_int((long long)deferred_calls, 0, "reset_interval: no report");
	ratelimit_state_inc_miss(&rs);
	is_int(ratelimit_state_reset_miss(&rs), 3, "inc_miss and reset_miss");
	is_int(ratelimit_state_get_miss(&rs), 0, "reset_miss leaves 0");
}

static void wrap_around(void)
{
	DEFINE_RATELIMIT_STATE(rs, 100, 1);

	reset();
	fake_jiffies = ULONG_MAX - 10;
	passes(&rs, 3);
	fake_jiffies = 50;	/* 61 jiffies later */
	is_int(__ratelimit(&rs), 0, "wrap: still inside the interval");
	fake_jiffies = 95;	/* 106 jiffies later */
	is_int(__ratelimit(&rs), 1, "wrap: interval over across the wrap");
	is_int(deferred_calls, 1, "wrap: one report");
}

static void chatty(int i)
{
	printk_ratelimited(KERN_ERR "error %d\n", i);
}

static void printk_ratelimited_defaults(void)
{
	int i;

	reset();
	fake_jiffies = 100000;
	for (i = 0; i < 25; i++)
		chatty(i);
	is_int(printk_calls, 10, "printk_ratelimited: 10 of 25 within 5 s");
	ok(strstr(printed, KERN_ERR "error 9\n") && !strstr(printed, "error 10\n"),
	   "printk_ratelimited: the first 10 are the ones printed");
	reset();
	fake_jiffies += 5000;
	chatty(99);
	is_int(printk_calls, 0, "printk_ratelimited: 5 s later is still inside");
	reset();
	fake_jiffies += 1;
	chatty(100);
	is_str(printed, "[deferred]" KERN_WARNING "chatty: 16 callbacks suppressed\n"
	       KERN_ERR "error 100\n", "printk_ratelimited: report, then the line");
}

static void pr_ratelimited_levels(void)
{
	reset();
	pr_warn_ratelimited("w %d\n", 1);
	pr_cont("\n");
	pr_err_ratelimited("e\n");
	is_str(printed, KERN_WARNING "rl: w 1\n" KERN_CONT "\n" KERN_ERR "rl: e\n",
	       "pr_*_ratelimited: level and pr_fmt");
	reset();
	pr_debug_ratelimited("d\n");
	is_int(printk_calls, 0, "pr_debug_ratelimited without DEBUG prints nothing");
}

static void printk_ratelimit_fn(void)
{
	int i, n = 0;

	fake_jiffies = 200000;
	for (i = 0; i < 20; i++)
		n += printk_ratelimit();
	is_int(n, 10, "printk_ratelimit(): the default 10 per interval");
}

static void timed_ratelimit(void)
{
	unsigned long j = 0;

	fake_jiffies = 400000;
	ok(printk_timed_ratelimit(&j, 250), "printk_timed_ratelimit: true when unused");
	is_int((long long)j, 400000, "printk_timed_ratelimit: stores the time of a true");
	fake_jiffies += 250;
	ok(!printk_timed_ratelimit(&j, 250), "printk_timed_ratelimit: false until the interval is over");
	is_int((long long)j, 400000, "printk_timed_ratelimit: a false keeps the time");
	fake_jiffies += 1;
	ok(printk_timed_ratelimit(&j, 250), "printk_timed_ratelimit: true just after");
	ok(!printk_timed_ratelimit(&j, 0), "printk_timed_ratelimit: interval 0, same jiffy: false");
	fake_jiffies += 1;
	ok(printk_timed_ratelimit(&j, 0), "printk_timed_ratelimit: interval 0, next jiffy: true");
}

static struct ratelimit_state shared_rs = RATELIMIT_STATE_INIT(shared_rs, 100, 10);
static int shared_passed;

static void *hammer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 1000; i++) {
		if (__ratelimit(&shared_rs))
			__atomic_add_fetch(&shared_passed, 1, __ATOMIC_RELAXED);
		pr_info_once("once from a thread\n");
	}
	return NULL;
}

static void threads(void)
{
	pthread_t t[4];
	int i;

	reset();
	fake_jiffies = 300000;
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	is_int(shared_passed, 10, "threads: exactly the burst passes");
	is_int(shared_rs.missed, 4000 - 10, "threads: every refusal counted");
	is_int(printk_calls, 1, "threads: pr_info_once prints once");
	is_str(printed, KERN_INFO "rl: once from a thread\n", "threads: the once line");
}

/* lib/tests/test_ratelimit.c, test_ratelimit_smoke: each sleep is exact here. */
#define TESTRL_INTERVAL (5 * PKS_HZ)
static DEFINE_RATELIMIT_STATE(testrl, TESTRL_INTERVAL, 3);

static void smoke(int want, const char *name)
{
	is_int(___ratelimit(&testrl, "test_ratelimit_smoke"), want, name);
}

static void kernel_smoke(void)
{
	reset();
	fake_jiffies = 500000;
	smoke(1, "smoke: normal operation, 1 of 3");
	smoke(1, "smoke: normal operation, 2 of 3");
	smoke(1, "smoke: normal operation, 3 of 3");
	smoke(0, "smoke: normal operation, over the burst");
	fake_jiffies += TESTRL_INTERVAL / 2;
	smoke(0, "smoke: half an interval later, still limited");
	fake_jiffies += TESTRL_INTERVAL * 3 / 4;
	smoke(1, "smoke: the interval has passed");
	is_str(printed, "[deferred]" KERN_WARNING "test_ratelimit_smoke: 2 callbacks suppressed\n",
	       "smoke: the two misses reported");
	fake_jiffies += 2 * TESTRL_INTERVAL;
	smoke(1, "smoke: two intervals later, 1");
	smoke(1, "smoke: two intervals later, 2");
	fake_jiffies += TESTRL_INTERVAL / 2;
	smoke(1, "smoke: half an interval later, the burst's last");
	fake_jiffies += TESTRL_INTERVAL * 3 / 4;
	smoke(1, "smoke: a new interval, 1");
	smoke(1, "smoke: a new interval, 2");
	smoke(1, "smoke: a new interval, 3");
	smoke(0, "smoke: a new interval, over the burst");

	testrl.burst = 0;
	smoke(0, "smoke: disabling: burst 0 refuses");
	testrl.burst = 2;
	testrl.interval = 0;
	is_int(passes(&testrl, 7), 7, "smoke: disabling: interval 0 lets all through");

	testrl.interval = TESTRL_INTERVAL;
	smoke(1, "smoke: re-enabling starts afresh, 1");
	smoke(1, "smoke: re-enabling starts afresh, 2");
	smoke(0, "smoke: re-enabling, over the new burst");
	smoke(0, "smoke: re-enabling, still over");
	reset();
	fake_jiffies += TESTRL_INTERVAL + 1;
	smoke(1, "smoke: the next interval");
	is_str(printed, "[deferred]" KERN_WARNING "test_ratelimit_smoke: 4 callbacks suppressed\n",
	       "smoke: misses from before the re-enabling are kept and reported");
}

/*
 * lib/tests/test_ratelimit.c, test_ratelimit_stress: threads race on one
 * state whose interval keeps rolling over; no outcome may be lost.
 */
static struct ratelimit_state stressrl =
	RATELIMIT_STATE_INIT_FLAGS("stressrl", PKS_HZ / 10, 3, RATELIMIT_MSG_ON_RELEASE);
static int stress_done;

struct stress_counts {
	long attempts, unlimited, limited, missed;
};

static void *stress_child(void *arg)
{
	struct stress_counts *c = (struct stress_counts *)arg;

	while (!__atomic_load_n(&stress_done, __ATOMIC_RELAXED)) {
		c->attempts++;
		if (___ratelimit(&stressrl, __func__))
			c->unlimited++;
		else
			c->limited++;
	}
	c->missed = ratelimit_state_reset_miss(&stressrl);
	return NULL;
}

static void kernel_stress(void)
{
	struct stress_counts c[4] = { { 0, 0, 0, 0 } }, all = { 0, 0, 0, 0 };
	struct timespec tick = { 0, 20000 };
	pthread_t t[4];
	int i;

	reset();
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, stress_child, &c[i]);
	for (i = 0; i < 2 * PKS_HZ; i++) {
		__atomic_add_fetch(&fake_jiffies, 1, __ATOMIC_RELAXED);
		nanosleep(&tick, NULL);
	}
	__atomic_store_n(&stress_done, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		all.attempts += c[i].attempts;
		all.unlimited += c[i].unlimited;
		all.limited += c[i].limited;
		all.missed += c[i].missed;
	}
	is_int(all.unlimited + all.limited, all.attempts, "stress: outcomes equal attempts");
	is_int(all.limited, all.missed, "stress: misses equal limits");
	ok(all.unlimited > 0 && all.limited > 0, "stress: some calls passed, some were limited");
	is_int((long long)deferred_calls, 0, "stress: RATELIMIT_MSG_ON_RELEASE reports nothing");
}

static void once(void)
{
	int i;
	bool v = false;

	reset();
	for (i = 0; i < 3; i++)
		v = printk_once(KERN_NOTICE "n %d\n", i);
	is_str(printed, KERN_NOTICE "n 0\n", "printk_once: the first call only");
	ok(v, "printk_once: evaluates to true (v5.13+)");
	reset();
	for (i = 0; i < 3; i++) {
		pr_err_once("e\n");
		pr_cont_once("c\n");
		printk_deferred_once("d\n");
	}
	is_str(printed, KERN_ERR "rl: e\n" KERN_CONT "rl: c\n" "[deferred]d\n",
	       "pr_*_once per site; pr_cont_once applies pr_fmt, as the kernel");
}

int main(void)
{
	defaults();
	burst_and_interval();
	zero_interval_and_burst();
	msg_on_release();
	busy_state();
	reset_interval();
	wrap_around();
	printk_ratelimited_defaults();
	pr_ratelimited_levels();
	printk_ratelimit_fn();
	timed_ratelimit();
	threads();
	once();
	kernel_smoke();
	kernel_stress();
	return tap_done();
}
