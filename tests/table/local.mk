# tests/table: the committed table of the newest CUDA (src/table/cuda-api.tsv),
# the naming rule, the generated stubs (from their templates, and in the
# library) and a program built for CUDA 13.5.
TABLE_TESTS = tests/table/covers.sh tests/table/naming.sh tests/table/fixture.sh tests/table/disasm.sh \
	tests/table/stubs.sh tests/table/program.sh
TESTS += $(TABLE_TESTS)
# wheel.sh rebuilds the table from PyPI's wheels: make check-compat
COMPAT_TESTS += tests/table/wheel.sh
EXTRA_DIST += $(TABLE_TESTS) tests/table/wheel.sh tests/table/defs.sh tests/table/tabletest.py tests/table/stubtest.py \
	tests/table/fixture/new/cuda.h tests/table/fixture/new/cudaTypedefs.h tests/table/fixture/old/cuda.h tests/table/fixture/old/cudaTypedefs.h \
	tests/table/fixture/expected.tsv

# a program built with the 13.5 ABI: linked with -z now against a libcuda.so
# made from the table's exported names (never run: it only satisfies the link)
check_PROGRAMS += tests/table/prog135
tests_table_prog135_SOURCES = tests/table/prog135.c
tests_table_prog135_CPPFLAGS =
tests_table_prog135_LDFLAGS = -Ltests/table/stub -Wl,-z,now
tests_table_prog135_LDADD = -lcuda $(LIBS)
EXTRA_tests_table_prog135_DEPENDENCIES = tests/table/stub/libcuda.so
tests/table/stub/libcuda.so: $(CUDA_TABLE)
	$(AM_V_GEN)$(MKDIR_P) tests/table/stub && \
	awk -F'\t' '$$1 == "fn" && $$2 != "-" { print "int " $$2 "(void) { return 999; }" }' $(CUDA_TABLE) \
		> tests/table/stub/libcuda.c && \
	$(CC) -shared -fPIC -Wl,-soname,libcuda.so.1 -o $@ tests/table/stub/libcuda.c
CLEANFILES += tests/table/stub/libcuda.so tests/table/stub/libcuda.c

# what the scripts need
$(TABLE_TESTS:.sh=.log): src/gen.stamp libcushim.la cushim$(EXEEXT)
tests/table/program.log: tests/table/prog135$(EXEEXT) $(FAKE_DRIVERS) $(FAKE_NO_RUNTIME)
