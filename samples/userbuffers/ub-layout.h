/* Region 0 layout of the Userbuffers sample, in int32 units, as in
 * TransformerEngine's userbuffers.h; shared by the host code and the kernels. */
#ifndef UB_LAYOUT_H
#define UB_LAYOUT_H
#include <stddef.h>

#define UB_MAX_RANKS 32    /* the pointer table holds UB_MAX_REGIONS x n pointers */
#define UB_MAX_REGIONS 32
#define UB_REG0_OFFSET 14400
/* The collective block: op counter at -32, one slot per peer at +peer,
 * an SMs-done counter at +64. AG, RS and the barrier share it, as in TE. */
#define UB_FLAGOFFSET (UB_REG0_OFFSET - 2080 + 32)
#define UB_REDUCE_ID (UB_FLAGOFFSET - 32)
#define UB_SMS_DONE (UB_FLAGOFFSET + 64)
/* P2P slots: written by srcrank into the receiver's region 0. */
#define UB_P2P(src, region) (UB_REG0_OFFSET + 5120 + (src) * 32 + (region))
/* Beyond TE's layout: the CTA counter of the P2P send and the error word
 * (code, op, peer, wanted, seen) that a timed-out wait sets for the host. */
#define UB_SEND_DONE (UB_REG0_OFFSET + 5120 + UB_MAX_RANKS * 32 + 32)
#define UB_ERR (UB_SEND_DONE + 32)
#define UB_ERR_WORDS 5
#define UB_REG0_MIN_BYTES ((UB_ERR + 64) * 4)

/* Error codes and the ops the error word names. */
#define UB_ERR_TIMEOUT 1
enum { UB_OP_AG = 1, UB_OP_RS_ENTRY, UB_OP_RS_EXIT, UB_OP_RECV, UB_OP_BARRIER };

/* Element types. */
enum { UB_BF16 = 0, UB_FP16 = 1 };

/* The data: a hash of (rank, chunk, element, seed), so that no pattern
 * repeats (a shifted or misplaced line never matches) and every run differs by
 * its seed. Shared by the host checks and the kernels. */
#ifdef __CUDACC__
#define UB_HD __host__ __device__
#else
#define UB_HD
#endif
#define UB_SENTINEL 0xFFFFu /* a NaN in both types: never a result, never a pattern */
static inline UB_HD unsigned ub_mix(unsigned x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}
static inline UB_HD unsigned ub_hash(int rank, int chunk, unsigned long long i, unsigned seed)
{
	unsigned k = ub_mix(seed * 0x9e3779b9u ^ (unsigned)rank << 20 ^ (unsigned)chunk);
	return ub_mix(k ^ ub_mix((unsigned)i ^ ub_mix((unsigned)(i >> 32) + k)));
}
/* Raw 16-bit data (all-gather, ring: copied, never computed on). */
static inline UB_HD unsigned ub_raw(int rank, int chunk, unsigned long long i, unsigned seed)
{
	unsigned v = ub_hash(rank, chunk, i, seed) & 0xffffu;
	return v == UB_SENTINEL ? 0x7c01u : v;
}
/* An integer below `limit` (reduce-scatter: sums stay exact), and its bits. */
static inline UB_HD unsigned ub_small(int rank, int chunk, unsigned long long i, unsigned seed, unsigned limit)
{
	return ub_hash(rank, chunk, i, seed) % limit;
}
static inline UB_HD unsigned ub_half_bits(unsigned v, int dtype)
{
	unsigned e = 0, m = dtype == UB_BF16 ? 7 : 10, bias = dtype == UB_BF16 ? 127 : 15;

	if (v == 0)
		return 0;
	while ((v >> e) > 1)
		e++;
	/* exact while v fits the mantissa: up to 256 in bf16, 2048 in fp16 */
	return ((e + bias) << m) | ((e <= m ? v << (m - e) : v >> (e - m)) & ((1u << m) - 1));
}
/* The largest value of a reduce-scatter input such that `terms` of them sum exactly. */
static inline UB_HD unsigned ub_small_limit(int dtype, int terms)
{
	unsigned top = dtype == UB_BF16 ? 256u : 2048u;
	unsigned l = top / (unsigned)(terms > 0 ? terms : 1);
	return l > 0 ? l : 1;
}

/* memmap's data: word i of a buffer written by rank r, index-dependent so
 * that a word read from the wrong place is caught. */
static inline UB_HD int ub_memmap_word(int r, size_t i)
{
	return (int)((unsigned)r * 0x9E3779B1u + 7u * (unsigned)i + 1u);
}

#endif
