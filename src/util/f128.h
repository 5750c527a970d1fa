// SPDX-License-Identifier: MIT
/*
 * f128.h - IEEE 754 binary128 values (aarch64's long double) read from a
 * trace, formatted and converted on any host without a binary128 type: the
 * x86-64 host's long double is x87's 80-bit one, and its __float128 needs
 * libquadmath to print.
 */
#ifndef SPOOL_UTIL_F128_H
#define SPOOL_UTIL_F128_H

#include <stddef.h>
#include <stdint.h>

/* The value whose 16 little-endian bytes are raw, as "%.36Lg" prints it
 * where long double is binary128 (36 significant digits, correctly
 * rounded to nearest, ties to even: enough to tell any two values apart;
 * "inf", "-inf", "nan", "-nan"). Its length (truncated at len - 1). */
int f128_format(const uint8_t raw[16], char *buf, size_t len);

/* a < b exactly (0 when either is a NaN): what a host long double would
 * round together (two values 1e-30 apart near 1/3) stays ordered. */
int f128_less(const uint8_t a[16], const uint8_t b[16]);

/* The value as this machine's long double (rounded: what an assertion
 * computes with on an x86-64 host). */
long double f128_to_ld(const uint8_t raw[16]);

#endif
