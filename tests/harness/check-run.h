/* The main of a Check program whose tests need no children: one test case
 * of tests (ended by NULL), with an optional checked fixture, run and
 * turned into the exit status Automake reads.  Header-only, so that the
 * unit and white-box tests need not link the black-box harness. */
#ifndef CUSHIM_TEST_CHECK_RUN_H
#define CUSHIM_TEST_CHECK_RUN_H
#include <check.h>
#include <stdlib.h>

static inline int check_run(const char *suite, const char *tcase, const TTest *const tests[], SFun setup,
			    SFun teardown)
{
	Suite *s = suite_create(suite);
	TCase *t = tcase_create(tcase);
	if (setup || teardown)
		tcase_add_checked_fixture(t, setup, teardown);
	for (int i = 0; tests[i]; i++)
		tcase_add_test(t, tests[i]);
	suite_add_tcase(s, t);
	SRunner *r = srunner_create(s);
	srunner_run_all(r, CK_NORMAL);
	int failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
