/* SPDX-License-Identifier: MIT */
/*
 * What the ACME sensor driver and the simulated bus it runs on tell each
 * other: the driver's entry points, and the register and EEPROM reads the
 * bus answers (with the errors real hardware gives).
 */
#ifndef ACME_H
#define ACME_H

#include <stddef.h>
#include "acme-port.h"

#define ACME_MAX_UNITS		4
#define ACME_EEPROM_SIZE	24

#define ACME_REG_STATUS		0x00
#define ACME_REG_TEMP		0x01	/* half degrees Celsius above -40 C */
#define ACME_REG_FW		0x02	/* firmware major << 4 | minor */

/* Provided by the bus (acme_bus.c). Return: 0 or -errno. */
int acme_bus_read(int unit, u8 reg, u8 *val);
int acme_bus_eeprom(int unit, u8 *buf, size_t len);

/* Provided by the driver (acme_temp.c). */
int acme_init(void);
int acme_probe(int unit, u16 vendor, u16 device);
void acme_poll(int unit, int rounds);
void acme_report(void);
void acme_exit(void);

#endif /* ACME_H */
