// SPDX-License-Identifier: MIT
/*
 * formulas.c - traced values computed by +, -, *, ^ at every integer width,
 * with overflow that wraps (unsigned) and casts between widths, for the
 * spool cc tests: spool-ccopt leaves such computations to the host, and the
 * host must get exactly what the target computed (usage: formulas [N]).
 */
#include <stdint.h>
#include <stdlib.h>

#include <spool/trace.h>

enum { EV_F64 = 60, EV_F32 = 61, EV_F8 = 62, EV_MIX = 63 };

static volatile uint64_t seed = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200;

	for (int i = 0; i < n; i++) {
		uint64_t a = next(), b = next();
		uint32_t x = (uint32_t)a, y = (uint32_t)b;
		int32_t sx = (int32_t)x, sy = (int32_t)y;
		uint8_t c = (uint8_t)a, d = (uint8_t)(b >> 8);
		int8_t sc = (int8_t)d;

		SPOOL_TRACE(EV_F64, a, b, a * b, a + b, a - b, a ^ b);
		SPOOL_TRACE(EV_F32, x, y, x * y, x + y, (uint32_t)(x - y), sx ^ sy);
		SPOOL_TRACE(EV_F8, c, sc, (uint8_t)(c * d), (int8_t)(c + sc), c - sc, (int64_t)sx * sy);
		SPOOL_TRACE(EV_MIX, a * 3 + b, x * 7u + 5u, (int64_t)sx * 100 - sy, i * i, -i, i ^ 0x55);
	}
	return 0;
}
