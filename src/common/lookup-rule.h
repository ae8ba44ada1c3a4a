/* How a real driver answers cuGetProcAddress(_v2) asked for a cudaVersion
 * above its own, by the CUDA version it reports.  Measured on every real
 * driver cushim is tested with (tests/realdrv, tests/oracle):
 *
 *   driver          CUDA   a lookup above the driver's own version
 *   470.256.02      11.4   answered: the newest variant the driver has
 *   525.147.05      12.0   answered
 *   535.261.03      12.2   answered
 *   550.163.01      12.4   answered
 *   555.58.02       12.5   answered
 *   580.159.04      13.0   CUDA_ERROR_INVALID_VALUE, the status untouched
 *
 * No driver between 12.5 and 13.0 was measured; the drivers of CUDA 12.x
 * are taken to answer as 12.5 does, and those of 13.0 on to refuse as 580
 * does.  This line is the one to change when a measurement says otherwise.
 * Used by the emulation (src/shim/answer.c) and the fake drivers (tests/fake). */
#ifndef CUSHIM_LOOKUP_RULE_H
#define CUSHIM_LOOKUP_RULE_H
#define CUSHIM_REFUSES_ABOVE_FROM 13000

/* Whether a driver reporting CUDA version refuses lookups above it. */
static inline int cushim_refuses_above(int version)
{
	return version >= CUSHIM_REFUSES_ABOVE_FROM;
}
#endif
