/* The clock the trace and the timeline share (stamp.c); how they show a
 * call is callfmt.h's. */
#ifndef CUSHIM_STAMP_H
#define CUSHIM_STAMP_H
#include "table.h"
#include "callfmt.h"

/* The clock: cushim_ticks() (ticks.h) calibrated against CLOCK_MONOTONIC
 * when tracing starts. */
extern uint64_t cushim_start_ticks CUSHIM_HIDDEN;
extern double cushim_ns_per_tick CUSHIM_HIDDEN;
void cushim_stamp_calibrate(void) CUSHIM_HIDDEN;
/* ticks as CLOCK_MONOTONIC nanoseconds */
uint64_t cushim_trace_ns(uint64_t ticks) CUSHIM_HIDDEN;
#endif
