/* SPDX-License-Identifier: MIT */
/* The kernel test harness's <linux/rtc.h>: struct rtc_time, the first nine ints of struct tm. */
#ifndef _LINUX_RTC_H
#define _LINUX_RTC_H

struct rtc_time {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year;
	int tm_wday, tm_yday, tm_isdst;
};

#endif
