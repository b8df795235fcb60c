/* SPDX-License-Identifier: MIT */
/*
 * acme_temp: a temperature sensor driver, ported to userspace unchanged in
 * its logging. It matches devices against an ID table, prints their
 * capabilities as one line built with pr_cont, hex-dumps their EEPROM,
 * rate-limits read errors in its polling loop (pr_err_ratelimited) and
 * over-temperature alarms (its own ratelimit state), keeps one pre-4.9
 * continuation written without KERN_CONT, and reports through a seq_buf.
 * It knows nothing of printk-shim: printk comes from the port's compat
 * library, and the shim, if preloaded, interposes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "acme.h"

#define ACME_VERSION		"1.4.2"
#define ACME_ALARM_MC		70000	/* milli-degrees */

#define ACME_CAP_TEMP		BIT(0)
#define ACME_CAP_HUMIDITY	BIT(1)
#define ACME_CAP_ALARM		BIT(2)
#define ACME_CAP_FAN		BIT(3)

struct acme_device_id {
	u16 vendor;
	u16 device;
	const char *name;
	unsigned long caps;	/* ACME_CAP_* */
};

static const struct acme_device_id acme_ids[] = {
	{ 0x1a2b, 0x0100, "acme-t100", ACME_CAP_TEMP },
	{ 0x1a2b, 0x0200, "acme-t200", ACME_CAP_TEMP | ACME_CAP_ALARM },
	{ 0x1a2b, 0x0300, "acme-th300",
	  ACME_CAP_TEMP | ACME_CAP_HUMIDITY | ACME_CAP_ALARM | ACME_CAP_FAN },
	{ 0 }
};

static const char * const acme_cap_names[] = {
	"temp", "humidity", "alarm", "fan",
};

static const int acme_thresholds_mc[] = { 60000, 70000, 85000 };

struct acme_dev {
	const struct acme_device_id *id;	/* NULL: no device bound */
	int unit;
	u8 eeprom[ACME_EEPROM_SIZE];
	int temp_mc;				/* last good reading */
	unsigned int reads;			/* good reads */
	unsigned int errors;			/* failed reads */
	unsigned int alarms;			/* over-temperature readings */
};

static struct acme_dev acme_devs[ACME_MAX_UNITS];

static const struct acme_device_id *acme_match(u16 vendor, u16 device)
{
	const struct acme_device_id *id;

	for (id = acme_ids; id->vendor; id++)
		if (id->vendor == vendor && id->device == device)
			return id;
	return NULL;
}

static void acme_print_caps(const struct acme_dev *dev)
{
	size_t i;

	pr_info("unit %d: capabilities:", dev->unit);
	for (i = 0; i < ARRAY_SIZE(acme_cap_names); i++)
		if (dev->id->caps & BIT(i))
			pr_cont(" %s", acme_cap_names[i]);
	pr_cont("\n");
}

/*
 * Written before v4.9, when a printk without a level continued the line;
 * it still does under printk-shim's default (legacy) continuation mode.
 */
static void acme_print_thresholds(const struct acme_dev *dev)
{
	size_t i;

	printk(KERN_INFO KBUILD_MODNAME ": unit %d: alarm thresholds", dev->unit);
	for (i = 0; i < ARRAY_SIZE(acme_thresholds_mc); i++)
		printk(" %d.%dC", acme_thresholds_mc[i] / 1000,
		       acme_thresholds_mc[i] % 1000 / 100);
	printk("\n");
}

static int acme_check_firmware(struct acme_dev *dev)
{
	u8 fw;
	int ret;

	ret = acme_bus_read(dev->unit, ACME_REG_FW, &fw);
	if (ret)
		return ret;
	if (fw < 0x20)
		pr_notice_once("firmware before 2.0 found (unit %d: %d.%d); readings are rounded\n",
			       dev->unit, fw >> 4, fw & 0xf);
	return 0;
}

int acme_probe(int unit, u16 vendor, u16 device)
{
	const struct acme_device_id *id = acme_match(vendor, device);
	struct acme_dev *dev = &acme_devs[unit];
	int ret;

	if (!id) {
		pr_warn("unit %d: no driver for %04x:%04x, ignored\n",
			unit, vendor, device);
		return -ENODEV;
	}
	dev->id = id;
	dev->unit = unit;
	pr_info("unit %d: %s at %04x:%04x\n", unit, id->name, vendor, device);
	acme_print_caps(dev);
	if (id->caps & ACME_CAP_ALARM)
		acme_print_thresholds(dev);
	ret = acme_bus_eeprom(unit, dev->eeprom, sizeof(dev->eeprom));
	if (ret) {
		pr_err("unit %d: EEPROM read failed: %d\n", unit, ret);
		return ret;
	}
	print_hex_dump(KERN_DEBUG, KBUILD_MODNAME ": eeprom: ", DUMP_PREFIX_OFFSET,
		       16, 1, dev->eeprom, sizeof(dev->eeprom), true);
	pr_debug("unit %d: probe done\n", unit);
	return acme_check_firmware(dev);
}

/* Alarms have their own, tighter limit: 3 per 200 ms. */
static void acme_alarm(struct acme_dev *dev)
{
	static DEFINE_RATELIMIT_STATE(acme_alarm_rs, HZ / 5, 3);

	dev->alarms++;
	if (__ratelimit(&acme_alarm_rs))
		pr_warn("unit %d: over temperature: %d.%03d C\n", dev->unit,
			dev->temp_mc / 1000, dev->temp_mc % 1000);
}

static int acme_read_temp(struct acme_dev *dev)
{
	u8 raw;
	int ret;

	ret = acme_bus_read(dev->unit, ACME_REG_TEMP, &raw);
	if (ret)
		return ret;
	dev->temp_mc = raw * 500 - 40000;
	dev->reads++;
	return 0;
}

void acme_poll(int unit, int rounds)
{
	struct acme_dev *dev = &acme_devs[unit];
	int i, ret;

	if (!dev->id)
		return;
	for (i = 0; i < rounds; i++) {
		ret = acme_read_temp(dev);
		if (ret) {
			dev->errors++;
			pr_err_ratelimited("unit %d: read %u failed: %d\n",
					   unit, dev->errors, ret);
			continue;
		}
		if ((dev->id->caps & ACME_CAP_ALARM) && dev->temp_mc > ACME_ALARM_MC)
			acme_alarm(dev);
	}
}

static void acme_report_one(struct seq_buf *s, const struct acme_dev *dev)
{
	seq_buf_printf(s, KBUILD_MODNAME ": unit %d: %-10s ", dev->unit, dev->id->name);
	if (dev->reads)
		seq_buf_printf(s, "%3d.%03d C", dev->temp_mc / 1000, dev->temp_mc % 1000);
	else
		seq_buf_puts(s, "      n/a");
	seq_buf_printf(s, "  errors %-3u alarms %u\n", dev->errors, dev->alarms);
}

/* One report, built first and then printed a line at a time. */
void acme_report(void)
{
	DECLARE_SEQ_BUF(s, 256);
	const struct acme_dev *dev;

	for (dev = acme_devs; dev < acme_devs + ACME_MAX_UNITS; dev++)
		if (dev->id)
			acme_report_one(&s, dev);
	if (seq_buf_has_overflowed(&s))
		pr_warn("report truncated\n");
	seq_buf_do_printk(&s, KERN_INFO);
}

int acme_init(void)
{
	pr_info("ACME sensor driver %s, %zu device IDs\n", ACME_VERSION,
		ARRAY_SIZE(acme_ids) - 1);
	return 0;
}

void acme_exit(void)
{
	unsigned int errors = 0, alarms = 0;
	size_t i;

	for (i = 0; i < ACME_MAX_UNITS; i++) {
		errors += acme_devs[i].errors;
		alarms += acme_devs[i].alarms;
	}
	pr_info("unloaded: %u read errors, %u alarms\n", errors, alarms);
}
