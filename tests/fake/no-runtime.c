/* "No CUDA runtime here", for the tests: a library built under each runtime
 * soname (tests/fake/no-rt/libcudart.so.13, .12, .11.0) that can never be
 * loaded: it needs a function nothing defines and is bound at load time
 * (-z now), so dlopen fails as it does for a runtime that is not installed.
 * Put last on LD_LIBRARY_PATH, it keeps the machine's own libcudart (found
 * through the ld.so cache) out of a test. */
extern void cushim_test_nothing_defines_this(void);
void fake_no_runtime(void);
void fake_no_runtime(void)
{
	cushim_test_nothing_defines_this();
}
