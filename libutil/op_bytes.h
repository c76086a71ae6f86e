/*
 * Native-endian loads and stores of 32- and 64-bit values at any byte
 * address: file formats laid out byte by byte (the stack table, the perf
 * records) read and write their fields through these, with no alignment
 * assumed (memcpy, which compilers turn into one load or store).
 */
#ifndef OP_BYTES_H
#define OP_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint32_t op_get32(void const *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t op_get64(void const *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void op_put32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void op_put64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

#endif /* OP_BYTES_H */
