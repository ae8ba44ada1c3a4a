# src/diag: libcushim_diag, the diagnostics: the trace wrappers, the trace
# lines, the exit summary, the timeline and the output files they write;
# stamp.c holds the clock and the formatting the trace and the timeline share.
noinst_LTLIBRARIES += libcushim_diag.la
libcushim_diag_la_SOURCES = src/diag/observe.c src/diag/wrappers.c src/diag/trace.c src/diag/trace.h src/diag/summary.c \
	src/diag/summary.h src/diag/timeline.c src/diag/timeline.h src/diag/outputs.c src/diag/outputs.h \
	src/diag/runmark.c src/diag/runmark.h \
	src/diag/stamp.c src/diag/stamp.h src/diag/exec.c src/diag/execnext.c src/diag/execnext.h src/diag/recorder.c src/diag/recorder.h src/diag/sticky.c \
	src/diag/sticky.h src/diag/recfile.c src/diag/recfile.h
nodist_libcushim_diag_la_SOURCES = $(GENERATED)
libcushim_diag_la_CFLAGS = $(SHIM_CFLAGS)
