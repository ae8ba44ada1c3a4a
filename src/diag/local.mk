# src/diag: libcushim_diag, the diagnostics: the trace wrappers, the trace
# lines, the exit summary, the timeline and the output files they write.
noinst_LTLIBRARIES += libcushim_diag.la
libcushim_diag_la_SOURCES = src/diag/wrappers.c src/diag/trace.c src/diag/summary.c src/diag/timeline.c \
	src/diag/outputs.c
nodist_libcushim_diag_la_SOURCES = $(GENERATED)
libcushim_diag_la_CFLAGS = $(SHIM_CFLAGS)
