/* SPDX-License-Identifier: MIT */
/*
 * The userspace side of the acme_temp port: a simulated bus with four
 * slots (a healthy sensor, one whose reads time out, one running hot, and
 * a device nobody drives) and the main() that loads the driver, probes
 * every slot, polls, waits out the alarm limit once, reports and unloads.
 * Everything it prints goes through the driver's printk; the run is
 * deterministic except for the one wait, which is well over the limit.
 */
#include <string.h>

#include "acme.h"

enum acme_sim {
	ACME_SIM_OK,		/* answers, at a steady 21.5 C */
	ACME_SIM_TIMEOUT,	/* every register read times out */
	ACME_SIM_HOT,		/* answers, at 75 C and rising */
};

struct acme_slot {
	u16 vendor;
	u16 device;
	enum acme_sim sim;
	u8 fw;			/* ACME_REG_FW */
	u8 temp;		/* ACME_REG_TEMP, half degrees */
};

static struct acme_slot acme_slots[ACME_MAX_UNITS] = {
	{ 0x1a2b, 0x0200, ACME_SIM_OK, 0x21, 123 },
	{ 0x1a2b, 0x0100, ACME_SIM_TIMEOUT, 0x12, 0 },
	{ 0x1a2b, 0x0300, ACME_SIM_HOT, 0x13, 230 },
	{ 0x8086, 0x1234, ACME_SIM_OK, 0, 0 },
};

int acme_bus_read(int unit, u8 reg, u8 *val)
{
	struct acme_slot *slot = &acme_slots[unit];

	if (slot->sim == ACME_SIM_TIMEOUT && reg != ACME_REG_FW)
		return -ETIMEDOUT;
	switch (reg) {
	case ACME_REG_FW:
		*val = slot->fw;
		return 0;
	case ACME_REG_TEMP:
		*val = slot->temp;
		if (slot->sim == ACME_SIM_HOT)
			slot->temp++;
		return 0;
	default:
		*val = 0;
		return 0;
	}
}

/* Magic, layout version, unit, serial (big-endian), then the model name. */
int acme_bus_eeprom(int unit, u8 *buf, size_t len)
{
	static const char *const models[] = { "T200 rev B", "T100", "TH300 rev A", "" };
	const struct acme_slot *slot = &acme_slots[unit];
	u32 serial = 0x0012d680u + (u32)unit;
	size_t i;

	if (len < 12)
		return -EINVAL;
	memset(buf, 0xff, len);
	memcpy(buf, "ACME", 4);
	buf[4] = 0x01;
	buf[5] = (u8)unit;
	buf[6] = (u8)(slot->device >> 8);
	buf[7] = (u8)slot->device;
	for (i = 0; i < 4; i++)
		buf[8 + i] = (u8)(serial >> (24 - 8 * i));
	for (i = 0; models[unit][i] && 12 + i < len; i++)
		buf[12 + i] = (u8)models[unit][i];
	if (12 + i < len)
		buf[12 + i] = 0;
	return 0;
}

int main(void)
{
	int unit;

	acme_init();
	for (unit = 0; unit < ACME_MAX_UNITS; unit++)
		acme_probe(unit, acme_slots[unit].vendor, acme_slots[unit].device);
	for (unit = 0; unit < ACME_MAX_UNITS; unit++)
		acme_poll(unit, unit == 1 ? 25 : 8);
	/* Past the alarm limit's 200 ms, so the next alarm reports the rest. */
	msleep(300);
	acme_poll(2, 1);
	acme_report();
	acme_exit();
	return 0;
}
