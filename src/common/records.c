/* The flight recorder's records, as laid out in a ring and read back
 * (records.h): what the library's readers and the command's decoding of a
 * record file share. */
#include "config.h"
#include "table.h"
#include "records.h"
#include "callfmt.h"
#include <string.h>


unsigned short cushim_rec_desc[CUSHIM_NSYMS];
static int ready;

void cushim_records_init(void)
{
	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		cushim_rec_desc[i] = (unsigned short)cushim_rec_describe(cushim_argdescs[i], cushim_nargs[i],
									  cushim_syms[i].name);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}


/* Cell pos whole into *out: 1; 0 not written yet; -1 overwritten. */
static int get_cell(const struct cushim_ring *g, uint64_t pos, int head, struct cushim_cell *out)
{
	const struct cushim_cell *c = &g->cells[pos & g->mask];
	uint64_t want = pos << 1 | (uint64_t)head, t = __atomic_load_n(&c->tag, __ATOMIC_ACQUIRE);
	if (t != want)
		return t == 0 || t >> 1 < pos ? 0 : -1;
	for (int k = 0; k < 7; k++)
		out->w[k] = CUSHIM_CELL_GET(c, k);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&c->tag, __ATOMIC_RELAXED) == want ? 1 : -1;
}

/* Past what the ring overwrote: to the first head it still holds. */
static void catch_up(const struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t end = CUSHIM_CELLS(__atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE)), size = g->mask + 1;
	struct cushim_cell h;
	uint64_t pos = end > size && c->cell < end - size ? end - size : c->cell;
	for (; pos < end; pos++)
		if (get_cell(g, pos, 1, &h) == 1) {
			uint32_t serial = (uint32_t)h.w[0] & 0xffffff;
			c->lost += (serial - c->serial) & 0xffffff;
			c->serial = serial;
			break;
		}
	c->cell = pos;
}

void cushim_cursor_oldest(const struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t v = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	c->cell = 0, c->serial = 0, c->lost = 0;
	if (CUSHIM_CELLS(v) > g->mask + 1)
		catch_up(g, c), c->lost = 0;
}

void cushim_cursor_end(const struct cushim_ring *g, struct cushim_cursor *c)
{
	uint64_t v = __atomic_load_n(&g->reserved, __ATOMIC_ACQUIRE);
	c->cell = CUSHIM_CELLS(v), c->serial = CUSHIM_SERIAL(v), c->lost = 0;
}

static void decode(const struct cushim_cell *cells, struct cushim_rec *rec)
{
	const uint64_t *h = cells[0].w;
	uint64_t words[7 * 8];
	unsigned ncells = (unsigned)(h[0] >> 48 & 0xff), nw = (unsigned)(h[0] >> 56), s = (unsigned)(h[1] >> 40 & 0xff);
	for (unsigned k = 1; k < ncells; k++)
		memcpy(words + 7 * (k - 1), cells[k].w, sizeof cells[k].w);
	rec->serial = (uint32_t)h[0] & 0xffffff;
	rec->fn = (unsigned)(h[0] >> 24 & 0xffffff);
	rec->result = (CUresult)(uint32_t)h[1];
	rec->t0 = h[2], rec->t1 = h[3];
	rec->nwords = nw;
	for (unsigned k = 0; k < nw && k < 3; k++)
		rec->argv[k] = h[4 + k];
	unsigned extra = nw > 3 ? nw - 3 : 0;
	memcpy(rec->argv + 3, words, extra * 8);
	rec->str_arg = s ? (int)s - 1 : -1;
	rec->str_state = (int)(h[1] >> 32 & 0xff);
	rec->made = rec->made_name = 0;
	rec->str[0] = '\0';
	if (s) {
		memcpy(rec->str, words + extra, CUSHIM_REC_STR);
		rec->str[CUSHIM_REC_STR - 1] = '\0';
		extra += CUSHIM_REC_STR / 8;
	}
	if (rec->fn < CUSHIM_NSYMS && (cushim_rec_desc[rec->fn] & CUSHIM_REC_MAKES))
		rec->made = words[extra], rec->made_name = words[extra + 1];
}

int cushim_ring_read(const struct cushim_ring *g, struct cushim_cursor *c, struct cushim_rec *rec)
{
	struct cushim_cell cells[8];
	for (;;) {
		int got = get_cell(g, c->cell, 1, &cells[0]);
		if (got == 0)
			return 0;
		unsigned ncells = got > 0 ? (unsigned)(cells[0].w[0] >> 48 & 0xff) : 0;
		for (unsigned k = 1; got > 0 && k < ncells && k < 8; k++)
			got = get_cell(g, c->cell + k, 0, &cells[k]);
		if (got > 0 && ncells >= 1 && ncells <= 8) {
			decode(cells, rec);
			c->lost += (rec->serial - c->serial) & 0xffffff; /* a head the reader skipped */
			c->cell += ncells;
			c->serial = (rec->serial + 1) & 0xffffff;
			return 1;
		}
		if (got == 0)
			return 0;
		if (got > 0) { /* a head that cannot be: step over it */
			c->cell++;
			continue;
		}
		catch_up(g, c); /* overwritten while read, or never whole: lost */
	}
}

uint64_t cushim_table_digest(void)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < CUSHIM_NSYMS; i++)
		for (const char *s = cushim_syms[i].name; ; s++) {
			h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
			if (!*s)
				break;
		}
	return h;
}
