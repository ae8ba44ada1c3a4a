/* cushim check on a Python wheel (.whl): its members read in place through
 * libzip, never unpacked to disk.  A member is named WHEEL:MEMBER
 * ("cupy.whl:cupy/cuda/cub.cpython-312-x86_64-linux-gnu.so"); those named
 * like shared libraries or GPU code are judged, from memory.  A wheel that
 * cannot be read, and a member that claims more than cushim reads (a zip
 * bomb), get one line each. */
#include "config.h"
#include "check-steps.h"
#include "check-tree.h"
#include "unpack.h"
#include "check-wheel.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a member may hold, and how much larger than its compressed bytes
 * a large one may claim to be (deflate rarely exceeds 10x on ELF files;
 * zeros reach 1000x). */
#define WHEEL_MEMBER_MAX (2ull << 30)
#define WHEEL_RATIO_MAX 200
#define WHEEL_RATIO_FROM (64ull << 20)

/* A member judged by its name: a shared library (libX.so.N, an extension
 * module X.cpython-312-x86_64-linux-gnu.so) or GPU code. */
static int member_judged(const char *name)
{
	size_t n = strlen(name);
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!n || name[n - 1] == '/')
		return 0;
	if (strstr(base, ".so.") || (n > 3 && strcmp(name + n - 3, ".so") == 0))
		return 1;
	return (n > 7 && strcmp(name + n - 7, ".fatbin") == 0) || (n > 6 && strcmp(name + n - 6, ".cubin") == 0) ||
	       (n > 4 && strcmp(name + n - 4, ".ptx") == 0);
}

/* WHEEL:MEMBER: where the wheel's path ends (the ':' after ".whl"), or NULL
 * when path names no member of a wheel on disk. */
static const char *member_split(const char *path)
{
	struct stat st;
	char wheel[4096];
	for (const char *p = strstr(path, ".whl:"); p; p = strstr(p + 1, ".whl:")) {
		size_t len = (size_t)(p + 4 - path);
		if (len >= sizeof wheel)
			return NULL;
		memcpy(wheel, path, len);
		wheel[len] = '\0';
		if (stat(wheel, &st) == 0 && S_ISREG(st.st_mode))
			return p + 4;
	}
	return NULL;
}

const struct tree_input *tree_wheel_of(const struct tree *t, const char *path)
{
	const char *sep = strstr(path, ".whl:");
	size_t len = sep ? (size_t)(sep + 4 - path) : 0;
	for (size_t i = 0; sep && i < t->ninputs; i++)
		if (t->inputs[i].kind == INPUT_WHEEL && strlen(t->inputs[i].path) == len &&
		    strncmp(t->inputs[i].path, path, len) == 0)
			return &t->inputs[i];
	return NULL;
}

#ifdef HAVE_LIBZIP
#include <pthread.h>
#include <zip.h>

/* Members are decompressed whole into memory: the threads that read them
 * together hold at most this much, unless one alone is larger. */
#define WHEEL_INFLIGHT_MAX (512ull << 20)
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t inflight_free = PTHREAD_COND_INITIALIZER;
static unsigned long long inflight;

static void hold(unsigned long long n)
{
	pthread_mutex_lock(&inflight_lock);
	while (inflight && inflight + n > WHEEL_INFLIGHT_MAX)
		pthread_cond_wait(&inflight_free, &inflight_lock);
	inflight += n;
	pthread_mutex_unlock(&inflight_lock);
}

static void release(unsigned long long n)
{
	pthread_mutex_lock(&inflight_lock);
	inflight -= n;
	pthread_cond_broadcast(&inflight_free);
	pthread_mutex_unlock(&inflight_lock);
}

/* The times each wheel was opened, counted by its path (what --verbose
 * says of it).  The lock guards the counts alone. */
struct opened {
	char *path;
	unsigned long n;
	unsigned long inflated; /* members inflated whole through libdeflate */
};
static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;
static struct opened *opened;
static size_t nopened, capopened;

/* One more open (opens) or member inflated through libdeflate of the wheel at path. */
static void count(const char *path, unsigned long opens, unsigned long inflated)
{
	char *copy = strdup(path);
	size_t k;
	if (!copy)
		abort();
	pthread_mutex_lock(&opened_lock);
	for (k = 0; k < nopened && strcmp(opened[k].path, path) != 0; k++)
		;
	if (k == nopened) {
		if (nopened == capopened &&
		    !(opened = realloc(opened, (capopened = capopened * 2 + 8) * sizeof *opened)))
			abort();
		opened[nopened++] = (struct opened){ copy, 0, 0 };
		copy = NULL;
	}
	opened[k].n += opens;
	opened[k].inflated += inflated;
	pthread_mutex_unlock(&opened_lock);
	free(copy);
}

static void count_open(const char *path)
{
	count(path, 1, 0);
}

static unsigned long counted(const char *path, int inflated)
{
	unsigned long n = 0;
	pthread_mutex_lock(&opened_lock);
	for (size_t k = 0; k < nopened; k++)
		if (strcmp(opened[k].path, path) == 0)
			n = inflated ? opened[k].inflated : opened[k].n;
	pthread_mutex_unlock(&opened_lock);
	return n;
}

unsigned long tree_wheel_opens(const char *path)
{
	return counted(path, 0);
}

unsigned long tree_wheel_inflated(const char *path)
{
	return counted(path, 1);
}

/* check: the stricter consistency checks, once, when the wheel is listed.
 * The archive is opened as every file is (a FIFO named .whl is never
 * opened), and handed to libzip by its descriptor. */
static zip_t *open_wheel(const char *path, int check, char *why, size_t size)
{
	int err = 0;
	struct stat st;
	const char *type;
	int fd = cli_open_regular(path, &st, &type);
	if (fd < 0) {
		snprintf(why, size, type ? "it is %s, not a regular file" : "%s", type ? type : strerror(errno));
		return NULL;
	}
	count_open(path);
	zip_t *z = zip_fdopen(fd, check ? ZIP_CHECKCONS : 0, &err);
	if (!z) {
		zip_error_t e;
		zip_error_init_with_code(&e, err);
		snprintf(why, size, "%s", zip_error_strerror(&e));
		zip_error_fini(&e);
		close(fd);
	}
	return z;
}

/* A wheel names itself in NAME-VERSION.dist-info/WHEEL. */
static int wheel_mark(const char *name)
{
	const char *slash = strchr(name, '/');
	return slash && strcmp(slash, "/WHEEL") == 0 && slash - name > 10 && strncmp(slash - 10, ".dist-info", 10) == 0;
}

/* NAME-VERSION.dist-info/METADATA, at the wheel's top. */
static int metadata_named(const char *name)
{
	const char *slash = strchr(name, '/');
	return slash && strcmp(slash, "/METADATA") == 0 && slash - name > 10 && strncmp(slash - 10, ".dist-info", 10) == 0;
}

/* NAME-VERSION.dist-info/variant.json (PEP 817), at the wheel's top. */
static int variant_named(const char *name)
{
	const char *slash = strchr(name, '/');
	return slash && strcmp(slash, "/variant.json") == 0 && slash - name > 10 &&
	       strncmp(slash - 10, ".dist-info", 10) == 0;
}

/* A small member read whole (a few kilobytes; one of more than 1 MiB is
 * not read): malloc'd, its size in n, or NULL. */
static char *read_small(zip_t *z, const char *name, size_t *n)
{
	zip_stat_t st;
	zip_file_t *f;
	if (!name || zip_stat(z, name, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE) || st.size > (1u << 20) ||
	    !(f = zip_fopen(z, name, 0)))
		return NULL;
	char *text = malloc(st.size + 1);
	zip_int64_t got = text ? zip_fread(f, text, st.size) : -1;
	zip_fclose(f);
	if (got <= 0) {
		free(text);
		return NULL;
	}
	*n = (size_t)got;
	return text;
}

/* What the wheel declares of CUDA: its file name, its METADATA's
 * requirements, and a variant's properties. */
static void read_tag(zip_t *z, const char *path, const char *metadata, const char *variant, struct wheel_tag *tag)
{
	size_t n;
	char *text;
	wheel_tag_name(path, tag);
	if ((text = read_small(z, metadata, &n)))
		wheel_tag_metadata(text, n, tag);
	free(text);
	if ((text = read_small(z, variant, &n)))
		wheel_tag_variant(text, n, path, tag);
	free(text);
}

int tree_wheel(struct tree *t, const char *path)
{
	char why[256], member[4096], *metadata = NULL, *variant = NULL;
	zip_t *z = open_wheel(path, 1, why, sizeof why);
	int marked = 0;
	if (!z) {
		cli_error("%s cannot be read as a wheel (a zip archive): %s", path, why);
		return -1;
	}
	zip_int64_t n = zip_get_num_entries(z, 0);
	size_t before = t->nfiles;
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_GUESS);
		marked |= name && wheel_mark(name);
		if (name && !metadata && metadata_named(name) && !(metadata = strdup(name)))
			abort();
		if (name && !variant && variant_named(name) && !(variant = strdup(name)))
			abort();
		if (!name || !member_judged(name))
			continue;
		if ((size_t)snprintf(member, sizeof member, "%s:%s", path, name) >= sizeof member)
			continue;
		tree_add_member(t, member);
	}
	struct tree_input *in = tree_input_add(t, path, marked ? INPUT_WHEEL : INPUT_ZIP);
	in->files = t->nfiles - before;
	in->members = n > 0 ? (size_t)n : 0;
	if (marked)
		read_tag(z, path, metadata, variant, &in->tag);
	free(metadata);
	free(variant);
	zip_discard(z);
	return 0;
}

/* The archive this thread read last, kept open: a wheel's members are
 * read one after another (their names sort together), so a thread opens
 * it, and libzip reads its central directory, once, not once a member. */
static _Thread_local struct {
	char path[4096];
	zip_t *z;
} kept;

static zip_t *wheel_for(const char *wheel, char *why, size_t size)
{
	if (kept.z && strcmp(kept.path, wheel) == 0)
		return kept.z;
	tree_wheel_close();
	if ((kept.z = open_wheel(wheel, 0, why, size)))
		snprintf(kept.path, sizeof kept.path, "%s", wheel);
	return kept.z;
}

void tree_wheel_close(void)
{
	if (kept.z)
		zip_discard(kept.z);
	kept.z = NULL;
}

void tree_wheels_done(void)
{
	tree_wheel_close();
	pthread_mutex_lock(&opened_lock);
	for (size_t k = 0; k < nopened; k++)
		free(opened[k].path);
	free(opened);
	opened = NULL;
	nopened = capopened = 0;
	pthread_mutex_unlock(&opened_lock);
}

/* Why a member is not read, or NULL. */
static const char *too_big(const zip_stat_t *st, char *buf, size_t size)
{
	if (!(st->valid & ZIP_STAT_SIZE) || !(st->valid & ZIP_STAT_COMP_SIZE))
		return "has no recorded size";
	if (st->size > WHEEL_MEMBER_MAX)
		snprintf(buf, size, "claims %llu bytes, more than cushim check reads from a wheel (%llu); not read",
			 (unsigned long long)st->size, (unsigned long long)WHEEL_MEMBER_MAX);
	else if (st->size > WHEEL_RATIO_FROM && st->size / (st->comp_size ? st->comp_size : 1) > WHEEL_RATIO_MAX)
		snprintf(buf, size, "claims %llu bytes from %llu compressed (a zip bomb?); not read",
			 (unsigned long long)st->size, (unsigned long long)st->comp_size);
	else
		return NULL;
	return buf;
}

/* A deflated member whose bytes the reader must have whole: its stored
 * bytes read raw and inflated in one call through libdeflate (unpack.c),
 * into p.  1 done, -1 failed (why says so), 0 not taken: stored or
 * encrypted, or a build without libdeflate (libzip reads it then). */
static int inflate_raw(zip_t *z, const char *name, const zip_stat_t *st, unsigned char *p, char *why, size_t size)
{
#ifdef HAVE_LIBDEFLATE
	zip_file_t *f;
	char whynot[160];
	if (!(st->valid & ZIP_STAT_COMP_METHOD) || st->comp_method != ZIP_CM_DEFLATE || !(st->valid & ZIP_STAT_CRC) ||
	    ((st->valid & ZIP_STAT_ENCRYPTION_METHOD) && st->encryption_method != ZIP_EM_NONE))
		return 0;
	unsigned char *in = malloc(st->comp_size ? (size_t)st->comp_size : 1);
	if (!in || !(f = zip_fopen(z, name, ZIP_FL_COMPRESSED))) {
		free(in);
		return 0;
	}
	zip_int64_t got = zip_fread(f, in, st->comp_size);
	zip_fclose(f);
	int rc = got < 0 || (zip_uint64_t)got != st->comp_size ? -1 :
		 cli_inflate_member(in, (size_t)st->comp_size, p, (size_t)st->size, st->crc, whynot, sizeof whynot);
	free(in);
	if (rc == -1)
		snprintf(why, size, "cannot be read from the wheel (%s): the archive is damaged or cut off",
			 got < 0 || (zip_uint64_t)got != st->comp_size ? "fewer bytes than recorded" : whynot);
	return rc == 0 ? 1 : rc == -1 ? -1 : 0;
#else
	(void)z, (void)name, (void)st, (void)p, (void)why, (void)size;
	return 0;
#endif
}

/* The member's bytes, malloc'd, or NULL with why. */
static unsigned char *read_member(zip_t *z, const char *name, size_t *n, int *raw_done, char *why, size_t size)
{
	zip_stat_t st;
	const char *big;
	zip_file_t *f;
	if (zip_stat(z, name, 0, &st) != 0) {
		snprintf(why, size, "is not in the wheel");
		return NULL;
	}
	if ((big = too_big(&st, why, size)))
		return big == why ? NULL : (snprintf(why, size, "%s", big), NULL);
	unsigned char *p = malloc(st.size ? (size_t)st.size : 1);
	int raw = p ? inflate_raw(z, name, &st, p, why, size) : 0;
	if (raw) {
		*n = (size_t)st.size;
		*raw_done = raw > 0;
		return raw > 0 ? p : (free(p), NULL);
	}
	if (!p || !(f = zip_fopen(z, name, 0))) {
		snprintf(why, size, "cannot be read from the wheel: %s", p ? zip_strerror(z) : "out of memory");
		free(p);
		return NULL;
	}
	zip_int64_t got = zip_fread(f, p, st.size);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		snprintf(why, size, "cannot be read from the wheel (%s): the archive is damaged or cut off",
			 got < 0 ? zip_file_strerror(f) : "fewer bytes than recorded");
		free(p), p = NULL;
	}
	zip_fclose(f);
	*n = (size_t)st.size;
	return p;
}

int check_read_wheel_member(struct result *r, const char *path, check_memory_fn *take, char *why, size_t whysize)
{
	const char *sep = member_split(path);
	char wheel[4096];
	int rc = 1;
	size_t n = 0;
	if (!sep)
		return 0;
	snprintf(wheel, sizeof wheel, "%.*s", (int)(sep - path), path);
	zip_t *z = wheel_for(wheel, why, whysize);
	zip_stat_t st;
	/* the member whole, and its compressed bytes while it is inflated */
	unsigned long long held = z && zip_stat(z, sep + 1, 0, &st) == 0 && st.size <= WHEEL_MEMBER_MAX ?
				  st.size + ((st.valid & ZIP_STAT_COMP_SIZE) && st.comp_size <= st.size ? st.comp_size : 0) : 0;
	hold(held);
	int raw = 0;
	unsigned char *p = z ? read_member(z, sep + 1, &n, &raw, why, whysize) : NULL;
	if (p && raw)
		count(wheel, 0, 1);
	if (p)
		take(r, p, n, sep + 1);
	else
		rc = -1;
	free(p);
	release(held);
	return rc;
}
#else
unsigned long tree_wheel_opens(const char *path)
{
	(void)path;
	return 0;
}

unsigned long tree_wheel_inflated(const char *path)
{
	(void)path;
	return 0;
}

void tree_wheel_close(void)
{
}

void tree_wheels_done(void)
{
}

int tree_wheel(struct tree *t, const char *path)
{
	(void)t;
	cli_error("%s: this cushim was built without libzip, so it cannot read wheels (unpack it and check the folder)",
		  path);
	return -1;
}

int check_read_wheel_member(struct result *r, const char *path, check_memory_fn *take, char *why, size_t whysize)
{
	(void)r, (void)path, (void)take, (void)why, (void)whysize;
	(void)member_split;
	(void)member_judged;
	return 0;
}
#endif
