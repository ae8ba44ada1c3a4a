/* See explain.h: where a named cause is said. */
#include "conf.h"
#include "log.h"
#include "observers.h"
#include "explain.h"
#include "jsonstr.h"
#include "state.h"
#include <string.h>

#define MAX_CAUSES CUSHIM_MAX_CAUSES
#define CAUSE_TEXT CUSHIM_CAUSE_TEXT
static struct {
	const char *cause;
	char text[CAUSE_TEXT];
	int done;
} causes[MAX_CAUSES];
static int ncauses;

void cushim_cause(const char *cause, const char *text)
{
	int k = __atomic_fetch_add(&ncauses, 1, __ATOMIC_ACQ_REL);

	cushim_log(CUSHIM_LOG_WARN, "%s", text);
	if (cushim_observers())
		cushim_observers()->cause(cause, text);
	if (k >= MAX_CAUSES)
		return;
	causes[k].cause = cause;
	snprintf(causes[k].text, sizeof causes[k].text, "%s", text);
	__atomic_store_n(&causes[k].done, 1, __ATOMIC_RELEASE);
}

size_t cushim_causes_json(char *buf, size_t size)
{
	static char esc[2 * CAUSE_TEXT];
	int n = __atomic_load_n(&ncauses, __ATOMIC_ACQUIRE), first = 1;
	size_t o = 0;

#define ADD(...) (o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__))
	ADD(", \"causes\": [");
	for (int k = 0; k < n && k < MAX_CAUSES; k++) {
		if (!__atomic_load_n(&causes[k].done, __ATOMIC_ACQUIRE))
			continue;
		cushim_json_escape(esc, sizeof esc, causes[k].text);
		ADD("%s\n  {\"cause\": \"%s\", \"message\": \"%s\"}", first ? "" : ",", causes[k].cause, esc);
		first = 0;
	}
	ADD("]");
#undef ADD
	return o < size ? o : size ? size - 1 : 0;
}

void cushim_causes_forget(void)
{
	memset(causes, 0, sizeof causes);
	ncauses = 0;
}

int cushim_first_key(uintptr_t *said, int n, uintptr_t key)
{
	for (int k = 0; k < n; k++) {
		uintptr_t was = 0;
		if (__atomic_compare_exchange_n(&said[k], &was, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 1;
		if (was == key)
			return 0;
	}
	return 0;
}

int cushim_first_in_context(uintptr_t *said, int n)
{
	CUcontext ctx = NULL;
	cushim_fn_cuCtxGetCurrent *cur = (cushim_fn_cuCtxGetCurrent *)cushim_real[CUSHIM_IDX_cuCtxGetCurrent];
	return cushim_first_key(said, n, (cur && cur(&ctx) == CUDA_SUCCESS ? (uintptr_t)ctx : 0) | 1);
}
