# src/shim: libcushim_shim, the stubs and the bootstrap: the sources of entry
# points, masquerade, cushim's own answers, the adapters, the error names,
# the introspection API and the explanations; linked into libcushim.so and
# into the white-box tests.
noinst_LTLIBRARIES += libcushim_shim.la
libcushim_shim_la_SOURCES = src/shim/boot.c src/shim/boot.h src/shim/state.c src/shim/state.h \
	src/shim/missing.c src/shim/missing.h src/shim/notes.c src/shim/notes.h src/shim/source.c src/shim/source.h \
	src/shim/masquerade.c src/shim/masquerade.h src/shim/interpose.c src/shim/interpose.h \
	src/shim/answer.c src/shim/answer.h src/shim/integrity.c src/shim/integrity.h src/shim/errors.c src/shim/errors.h \
	src/shim/stubs.c src/shim/slots.h src/shim/observers.c src/shim/observers.h src/shim/siglock.h \
	src/shim/introspect.c src/shim/cushim.h src/shim/adapt.c src/shim/adapt.h \
	src/shim/explain.c src/shim/explain.h src/shim/explain-fork.c src/shim/explain-fork.h \
	src/shim/explain-module.c src/shim/explain-module.h src/shim/explain-image.c src/shim/explain-image.h \
	src/shim/explain-runtime.c src/shim/explain-runtime.h src/shim/explain-init.c src/shim/explain-init.h \
	src/shim/explain-oom.c src/shim/explain-oom.h src/shim/callers.c src/shim/callers.h
nodist_libcushim_shim_la_SOURCES = $(GENERATED) $(GENERATED_STUBS)
libcushim_shim_la_CFLAGS = $(SHIM_CFLAGS)
