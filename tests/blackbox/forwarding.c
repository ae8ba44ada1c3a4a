/* Every export of cushim, called through the shim against the fake 13.0
 * driver, reaches the fake function of that exact name with exactly the
 * arguments it was given; and the (base, version, flags) cushim asks for each
 * export makes the oracle return that same export.
 *
 * The calls are generated over the whole table (CUSHIM_SYM X-macro of the
 * generated cushim-syms.h: the toolkit's prototypes or, for the variants
 * only the committed table knows, ABI-equivalent ones): each argument gets a value unique to (export,
 * position): pointers point at distinct scratch cells, integers carry a
 * pattern.  The fake records twelve argument words: the argument registers
 * (six on x86-64 SysV, eight on AArch64), then the stack words; an integer or
 * pointer argument k is in word k counting only integer and pointer arguments
 * (float arguments travel in vector registers: they are set but cannot be
 * checked).  For the few functions that take a struct by value
 * (CUipcMemHandle, CUmemLocation, CUeglFrame) the word layout depends on the
 * struct's classification: only the name is checked for them.  Words past
 * the twelfth are not recorded (the two 15- and 16-argument functions). */
#include "cuda-all.h"
#include "../harness/harness.h"
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUSHIM_SYM(i, name, ...) +1
enum { NSYMS = 0
#include "cushim-syms.h"
};
#undef CUSHIM_SYM

typedef unsigned long long W;

/* What the fake must see for one call. */
struct expect {
	int name_only;
	int nwords;
	W want[FAKE_NWORDS], mask[FAKE_NWORDS];
	int checked[FAKE_NWORDS];
};

static unsigned char scratch[NSYMS][16][32] __attribute__((aligned(16)));

enum { CLASS_INT = 1, CLASS_CHAR = 2, CLASS_ENUM = 3, CLASS_BOOL = 4, CLASS_PTR = 5, CLASS_REAL = 8,
       CLASS_RECORD = 12, CLASS_UNION = 13 };

static void fill(void *arg, size_t size, int cls, int sym, int k, struct expect *e)
{
	W v;

	switch (cls) {
	case CLASS_PTR:
		v = (W)(uintptr_t)scratch[sym][k];
		memcpy(arg, &v, sizeof v);
		break;
	case CLASS_INT:
	case CLASS_CHAR:
	case CLASS_ENUM:
	case CLASS_BOOL:
		v = ((W)(0xC0DE0000u | (unsigned)sym) << 32) | ((W)(k + 1) << 24) | ((W)sym << 8) | 0xA5;
		memcpy(arg, &v, size < sizeof v ? size : sizeof v); /* little-endian: the low bytes */
		break;
	case CLASS_REAL:
		if (size == sizeof(float))
			*(float *)arg = 1.5f + (float)k;
		else
			*(double *)arg = 1.5 + k;
		return; /* in an SSE register: not seen by the recorder */
	default:
		memset(arg, 0x40 + k, size); /* struct by value */
		e->name_only = 1;
		return;
	}
	if (e->nwords < FAKE_NWORDS) {
		e->want[e->nwords] = size >= 8 ? v : v & ((1ULL << (8 * size)) - 1);
		e->mask[e->nwords] = size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
		e->checked[e->nwords] = 1;
	}
	e->nwords++;
}

/* MAPn(F, a0, ..., an-1) -> F(0, a0) ... F(n-1, an-1); MAP0 ignores "void". */
#define UNPAREN(...) __VA_ARGS__
#define MAP0(F, ...)
#define MAP1(F, a) F(0, a)
#define MAP2(F, a, b) MAP1(F, a) F(1, b)
#define MAP3(F, a, b, c) MAP2(F, a, b) F(2, c)
#define MAP4(F, a, b, c, d) MAP3(F, a, b, c) F(3, d)
#define MAP5(F, a, b, c, d, e) MAP4(F, a, b, c, d) F(4, e)
#define MAP6(F, a, b, c, d, e, f) MAP5(F, a, b, c, d, e) F(5, f)
#define MAP7(F, a, b, c, d, e, f, g) MAP6(F, a, b, c, d, e, f) F(6, g)
#define MAP8(F, a, b, c, d, e, f, g, h) MAP7(F, a, b, c, d, e, f, g) F(7, h)
#define MAP9(F, a, b, c, d, e, f, g, h, i) MAP8(F, a, b, c, d, e, f, g, h) F(8, i)
#define MAP10(F, a, b, c, d, e, f, g, h, i, j) MAP9(F, a, b, c, d, e, f, g, h, i) F(9, j)
#define MAP11(F, a, b, c, d, e, f, g, h, i, j, k) MAP10(F, a, b, c, d, e, f, g, h, i, j) F(10, k)
#define MAP12(F, a, b, c, d, e, f, g, h, i, j, k, l) MAP11(F, a, b, c, d, e, f, g, h, i, j, k) F(11, l)
#define MAP13(F, a, b, c, d, e, f, g, h, i, j, k, l, m) MAP12(F, a, b, c, d, e, f, g, h, i, j, k, l) F(12, m)
#define MAP14(F, a, b, c, d, e, f, g, h, i, j, k, l, m, n) \
	MAP13(F, a, b, c, d, e, f, g, h, i, j, k, l, m) F(13, n)
#define MAP15(F, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) \
	MAP14(F, a, b, c, d, e, f, g, h, i, j, k, l, m, n) F(14, o)
#define MAP16(F, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) \
	MAP15(F, a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) F(15, p)
#define MAP_(n, F, ...) MAP##n(F, __VA_ARGS__)
#define MAP(n, F, list) MAP_(n, F, UNPAREN list)
#define DECL(k, p) p;
#define FILL(k, a) fill(&a, sizeof a, __builtin_classify_type(a), idx, k, e);

/* call_<name>: set distinct arguments, call the export cushim's process
 * exports under that name (the shim, being preloaded), say what to expect. */
#define CUSHIM_SYM(i, name, base, ver, fl, hdr, params, args, u64, n, descs)                  \
	static CUresult call_##name(struct expect *e, void **fn)                                \
	{                                                                                       \
		const int idx = i;                                                              \
		(void)idx;                                                                      \
		MAP(n, DECL, params)                                                            \
		MAP(n, FILL, args)                                                              \
		CUresult (CUDAAPI *f) params = (CUresult (CUDAAPI *) params)dlsym(RTLD_DEFAULT, #name); \
		*fn = (void *)f;                                                                \
		return f ? f args : (CUresult)-1;                                               \
	}
#include "cushim-syms.h"
#undef CUSHIM_SYM

static const struct {
	const char *name;
	CUresult (*call)(struct expect *, void **);
} table[NSYMS] = {
#define CUSHIM_SYM(i, name, ...) [i] = { #name, call_##name },
#include "cushim-syms.h"
#undef CUSHIM_SYM
};

/* The variants with no exported name: nothing to call by name. */
static const unsigned char lookup_only[NSYMS] = {
#define CUSHIM_LOOKUP_ONLY(i, name) [i] = 1,
#include "cushim-syms.h"
#undef CUSHIM_LOOKUP_ONLY
};

/* ---- child: call every export twice (first-call path, then fast path) ---- */
static int child_forward(const char *arg)
{
	fake_last_name_fn last_name = FAKE(fake_last_name);
	fake_last_word_fn last_word = FAKE(fake_last_word);
	fake_calls_fn calls = FAKE(fake_calls);
	fake_calls_total_fn total = FAKE(fake_calls_total);
	fake_export_fn fake_fn = FAKE(fake_export);
	int name_only = 0, checked_words = 0, missing = 0;

	if (!last_name || !last_word || !calls || !total || !fake_fn) {
		printf("FAIL: libcuda.so.1 is not the fake driver\n");
		return 1;
	}
	/* the bootstrap (on the first call of all) calls the fake's
	 * cuGetProcAddress: have it done before counting calls */
	int v = 0;
	EXPECT(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000, "cuDriverGetVersion gave %d", v);
	EXPECT(cuInit(0) == CUDA_SUCCESS, "cuInit"); /* the fake answers 3 to everything before it */
	for (int i = 0; i < NSYMS; i++) {
		const char *name = table[i].name;
		int present = fake_fn(name) != NULL;
		if (lookup_only[i])
			continue;
		for (int round = 0; round < 2; round++) {
			struct expect e = { 0 };
			void *fn = NULL;
			long before = total(), mine = calls(name);
			CUresult rc = table[i].call(&e, &fn);

			EXPECT(fn && strstr(object_of(fn), "libcushim"), "%s resolves to %s, not to cushim", name,
			       fn ? object_of(fn) : "nothing");
			if (!present) {
				/* the driver lacks it: the shim answers, the fake sees nothing */
				EXPECT(rc == CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, "%s (absent) returned %d", name,
				       (int)rc);
				EXPECT(total() == before, "%s (absent) reached the fake", name);
				missing += round == 0;
				continue;
			}
			EXPECT(calls(name) == mine + 1, "%s: the fake's %s ran %ld times, not once", name, name,
			       calls(name) - mine);
			EXPECT(total() == before + 1, "%s made %ld fake calls, not one", name, total() - before);
			EXPECT(last_name() && strcmp(last_name(), name) == 0, "%s reached the fake's %s", name,
			       last_name() ? last_name() : "(nothing)");
			if (!fake_answers(name))
				EXPECT(rc == CUDA_SUCCESS, "%s returned %d, the fake %d", name, (int)rc, CUDA_SUCCESS);
			if (e.name_only) {
				name_only += round == 0;
				continue;
			}
			for (int w = 0; w < FAKE_NWORDS && w < e.nwords; w++) {
				W got = last_word(w) & e.mask[w];
				EXPECT(got == e.want[w], "%s: argument word %d is %#llx, sent %#llx", name, w, got,
				       e.want[w]);
				checked_words += round == 0;
			}
		}
	}
	printf("%d exports called twice; %d argument words checked; %d checked by name only "
	       "(struct by value); %d absent from the fake driver\n",
	       NSYMS, checked_words, name_only, missing);
	EXPECT(name_only < 12, "too many exports checked by name only: %d", name_only);
	return child_failures != 0;
}

/* ---- child: every export's lookup, judged by the oracle file ---- */
static int child_asks(const char *level)
{
	fake_lookups_total_fn total = FAKE(fake_lookups_total);
	fake_lookup_at_fn at = FAKE(fake_lookup_at);
	fake_export_fn fake_fn = FAKE(fake_export);
	fake_level_fn fake_level = FAKE(fake_level);
	int drv, resolved = 0;

	if (!total || !at || !fake_fn || !fake_level) {
		printf("FAIL: libcuda.so.1 is not the fake driver\n");
		return 1;
	}
	drv = fake_level();
	EXPECT(strcmp(level, "") != 0, "no level");
	EXPECT(cuDriverGetVersion(&drv) == CUDA_SUCCESS && drv == fake_level(), "cuDriverGetVersion");

	int n = total();
	struct fake_lookup *log = calloc((size_t)n + 1, sizeof *log);
	for (int k = 0; k < n; k++)
		at(k, &log[k]);
	for (int k = 0; k < n; k++)
		EXPECT(log[k].version <= drv, "asked %s at %d, above the driver's %d", log[k].symbol,
		       log[k].version, drv);
	for (int i = 0; i < NSYMS; i++) {
		const char *name = table[i].name;
		void *want = fake_fn(name);
		int first = oracle_first_version(name), asked = 0;

		for (int k = 0; k < n; k++) {
			if (!want || log[k].fn != want)
				continue;
			int rc, st;
			const char *o = oracle_answer(log[k].symbol, log[k].version, log[k].flags, &rc, &st);
			EXPECT(o && strcmp(o, name) == 0 && rc == 0 && st == 0,
			       "%s came from (%s, %d, %llu), for which the oracle returns %s (result %d, status %d)",
			       name, log[k].symbol, log[k].version, log[k].flags, o ? o : "NULL", rc, st);
			EXPECT(log[k].flags == 1 || log[k].flags == 2, "%s asked with flags %llu", name, log[k].flags);
			asked++;
		}
		if (want) {
			/* the driver has it: some lookup must have handed it out */
			EXPECT(asked >= 1, "%s is exported by the fake %d driver but was never looked up", name, drv);
			resolved += asked >= 1;
		} else {
			EXPECT(first == 0 || first > drv, "%s (CUDA %d) missing from the fake %d driver", name, first,
			       drv);
		}
	}
	printf("driver %d: %d lookups; %d exports looked up and judged by the oracle\n", drv, n, resolved);
	EXPECT(resolved > 300, "only %d exports resolved", resolved);
	free(log);
	return child_failures != 0;
}

/* ---- the tests ---- */
static void expect_child(const char *mode, const char *level, const char *const env[])
{
	struct run r;
	run_self(&r, mode, level, env, 60);
	ck_assert_msg(r.code == 0, "child %s %s exited %d:\n%s\n%s", mode, level, r.code, r.out, r.err);
	printf("%s", r.out);
	run_free(&r);
}

START_TEST(check_forwards_every_export)
{
	/* forwarding alone: an absent export returns 36 without reaching the
	 * fake (the adapters, which call an older variant, have tests/whitebox/adapters) */
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("13.0") ":" NO_RT, "CUSHIM_ADAPT=0",
				    NULL };
	expect_child("forward", "13.0", env);
}
END_TEST

static const char *const levels[] = { "11.4", "12.0", "13.0" };

START_TEST(check_asks_what_the_oracle_maps_to_each_export)
{
	char ld[4096];
	snprintf(ld, sizeof ld, "LD_LIBRARY_PATH=%s/drv-%s:%s", FAKE_DIR, levels[_i], NO_RT);
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, ld, NULL };
	expect_child("asks", levels[_i], env);
}
END_TEST

START_TEST(check_asks_through_the_runtime_too)
{
	/* the same through cudaGetDriverEntryPointByVersion of a 13.0 runtime */
	const char *const env[] = { "LD_PRELOAD=" SHIM_SO, "LD_LIBRARY_PATH=" DRV("13.0") ":" RT("13.0") ":" NO_RT, NULL };
	expect_child("asks", "13.0", env);
}
END_TEST

int main(int argc, char **argv)
{
	static const struct harness_child children[] = {
		{ "forward", child_forward }, { "asks", child_asks }, { NULL },
	};
	const TTest *const tests[] = { check_forwards_every_export,
				       check_asks_what_the_oracle_maps_to_each_export,
				       check_asks_through_the_runtime_too, NULL };
	/* one run per driver level */
	const struct harness_loop levels_loop[] = { { check_asks_what_the_oracle_maps_to_each_export, 3 }, { NULL } };
	const struct harness_tcase tcases[] = { { "forwarding", 120, tests, levels_loop }, { NULL } };
	return harness_main(argc, argv, children, "forwarding", tcases);
}
