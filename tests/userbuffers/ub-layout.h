/* Region 0 layout of the Userbuffers sample, in int32 units, as in
 * TransformerEngine's userbuffers.h; shared by the host code and the kernels. */
#ifndef UB_LAYOUT_H
#define UB_LAYOUT_H

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

#endif
