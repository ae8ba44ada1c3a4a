/* Unit tests of the loader search (src/common/ldsearch.c, and the command's
 * use of it in src/cli/findlib.c): the order of ld.so(8), DT_RPATH, then
 * LD_LIBRARY_PATH, then DT_RUNPATH, then the folders of /etc/ld.so.conf (its
 * includes followed, from which ldconfig builds the cache), then the default
 * folders; $ORIGIN, $LIB and $PLATFORM in a run path; and, for the command,
 * which files count as the library (crafted ELF files in temporary folders).
 * /etc/ld.so.conf is this test's own: the program's fopen answers that
 * name with a crafted file. */
#define _GNU_SOURCE
#include "cli.h"
#include "ldsearch.h"
#include <check.h>
#include "../harness/check-run.h"
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TRIPLET "x86_64-linux-gnu"
#define PLATFORM "x86_64"
#define NATIVE EM_X86_64
#define FOREIGN EM_AARCH64
#elif defined(__aarch64__)
#define TRIPLET "aarch64-linux-gnu"
#define PLATFORM "aarch64"
#define NATIVE EM_AARCH64
#define FOREIGN EM_X86_64
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define TRIPLET "powerpc64le-linux-gnu"
#define PLATFORM "powerpc64le"
#define NATIVE EM_PPC64
#define FOREIGN EM_X86_64
#endif

static char conf_path[4096]; /* what /etc/ld.so.conf is for this test */

FILE *fopen(const char *path, const char *mode)
{
	static FILE *(*real)(const char *, const char *);
	if (!real)
		real = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
	if (strcmp(path, "/etc/ld.so.conf") == 0 && conf_path[0])
		path = conf_path;
	return real(path, mode);
}

static char T[] = "/tmp/cushim-unit-ld.XXXXXX";

static void write_file(const char *rel, const char *text)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", T, rel);
	for (char *p = path + strlen(T) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	ck_assert_msg((f = fopen(path, "w")) != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* ---- a recorder of what the walk offers ---- */
#define MAX_OFFERS 256
static char *offers[MAX_OFFERS];
static int noffers;
static const char *take; /* the path to take, or NULL: take none */

static int record(const char *path, void *ctx)
{
	ck_assert_ptr_eq(ctx, &noffers);
	ck_assert_int_lt(noffers, MAX_OFFERS);
	offers[noffers++] = strdup(path);
	return take && strcmp(path, take) == 0;
}

static int walk(const char *name, const char *rpath, const char *runpath)
{
	for (int i = 0; i < noffers; i++)
		free(offers[i]);
	noffers = 0;
	return cushim_ld_search(name, rpath, runpath, record, &noffers);
}

/* offers[from..] are the paths of want (a NULL-terminated list), in order. */
static void expect_offers(int from, const char *const *want)
{
	int k = 0;
	for (; want[k]; k++) {
		ck_assert_msg(from + k < noffers, "offer %d missing: wanted %s", from + k, want[k]);
		ck_assert_msg(strcmp(offers[from + k], want[k]) == 0, "offer %d is %s, wanted %s", from + k,
			      offers[from + k], want[k]);
	}
}

/* A path in the temporary folder. */
static char *in_t(const char *rel)
{
	static char bufs[16][4096];
	static int next;
	char *b = bufs[next++ % 16];
	snprintf(b, 4096, "%s/%s", T, rel);
	return b;
}

/* The crafted ld.so.conf: folders, comments, an include pattern of two files
 * (in name order), one of which includes another by a relative pattern, a
 * line that is no folder, and a file that includes itself. */
static void craft_conf(void)
{
	char text[4096];
	snprintf(text, sizeof text,
		 "# the loader's folders\n"
		 "%s/conf1   # trailing comment\n"
		 "  \t%s/conf2# no blank before this comment\n"
		 "relative/is/not/a/folder\n"
		 "include %s/conf.d/*.conf\n"
		 "%s/conf3\n",
		 T, T, T, T);
	write_file("ld.so.conf", text);
	snprintf(text, sizeof text, "%s/confA\ninclude sub/*.conf\n", T);
	write_file("conf.d/a.conf", text);
	snprintf(text, sizeof text, "%s/confB\ninclude %s/conf.d/b.conf\n", T, T);
	write_file("conf.d/b.conf", text);
	snprintf(text, sizeof text, "%s/confX\n", T);
	write_file("conf.d/sub/x.conf", text);
	snprintf(conf_path, sizeof conf_path, "%s/ld.so.conf", T);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(T));
	craft_conf();
	unsetenv("LD_LIBRARY_PATH");
	take = NULL;
}

static void teardown(void)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", T);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", T);
	memcpy(T + strlen(T) - 6, "XXXXXX", 6);
}

START_TEST(order)
{
	setenv("LD_LIBRARY_PATH", "/ld1:/ld2", 1);
	ck_assert_int_eq(walk("libz.so.1", "/rp1:/rp2", "/run1"), 0);
	const char *const want[] = {
		"/rp1/libz.so.1", "/rp2/libz.so.1",           /* DT_RPATH */
		"/ld1/libz.so.1", "/ld2/libz.so.1",           /* LD_LIBRARY_PATH */
		"/run1/libz.so.1",                            /* DT_RUNPATH */
		in_t("conf1/libz.so.1"), in_t("conf2/libz.so.1"), /* ld.so.conf */
		in_t("confA/libz.so.1"), in_t("confX/libz.so.1"), /* its includes, depth first */
		in_t("confB/libz.so.1"), in_t("confB/libz.so.1"), /* b.conf includes itself once */
		in_t("conf3/libz.so.1"),
		/* the default folders (ldsearch.h) */
#ifdef TRIPLET
		"/lib/" TRIPLET "/libz.so.1", "/usr/lib/" TRIPLET "/libz.so.1",
#endif
		"/lib64/libz.so.1", "/usr/lib64/libz.so.1", "/lib/libz.so.1", "/usr/lib/libz.so.1",
		"/usr/local/nvidia/lib64/libz.so.1", "/usr/local/nvidia/lib/libz.so.1", "/usr/lib/wsl/lib/libz.so.1",
		NULL,
	};
	expect_offers(0, want);
	ck_assert_int_eq(noffers, (int)(sizeof want / sizeof *want) - 1);
}
END_TEST

/* An empty entry is the current folder; no list, an empty list: nothing. */
START_TEST(empty_entries)
{
	setenv("LD_LIBRARY_PATH", "", 1);
	walk("libz.so.1", ":/a::/b:", NULL);
	const char *const want[] = { "./libz.so.1", "/a/libz.so.1", "./libz.so.1", "/b/libz.so.1", "./libz.so.1",
				     in_t("conf1/libz.so.1"), NULL };
	expect_offers(0, want);
	walk("libz.so.1", "", "");
	const char *const none[] = { in_t("conf1/libz.so.1"), NULL };
	expect_offers(0, none);
}
END_TEST

/* The first path taken ends the walk; a name with a slash is offered alone. */
START_TEST(first_taken_ends)
{
	setenv("LD_LIBRARY_PATH", "/ld1", 1);
	take = "/ld1/libz.so.1";
	ck_assert_int_eq(walk("libz.so.1", "/rp1", "/run1"), 1);
	ck_assert_int_eq(noffers, 2);
	take = in_t("confX/libz.so.1");
	ck_assert_int_eq(walk("libz.so.1", NULL, NULL), 1);
	ck_assert_str_eq(offers[noffers - 1], take);
	ck_assert_int_eq(noffers, 5); /* /ld1, conf1, conf2, confA, confX */
	take = "./lib/libz.so.1";
	ck_assert_int_eq(walk("./lib/libz.so.1", "/rp1", "/run1"), 1);
	ck_assert_int_eq(noffers, 1);
	take = NULL;
	ck_assert_int_eq(walk("/opt/libz.so.1", "/rp1", "/run1"), 0);
	ck_assert_int_eq(noffers, 1);
	ck_assert_str_eq(offers[0], "/opt/libz.so.1");
}
END_TEST

START_TEST(expand)
{
	static const struct {
		const char *list, *origin, *want;
	} cases[] = {
		{ "$ORIGIN/lib", "/opt/app", "/opt/app/lib" },
		{ "${ORIGIN}/../lib:$ORIGIN", "/opt/app", "/opt/app/../lib:/opt/app" },
		{ "$ORIGINAL/x", "/o", "$ORIGINAL/x" },
		{ "$ORIGIN_X", "/o", "$ORIGIN_X" },
		{ "${ORIGIN", "/o", "${ORIGIN" },
		{ "$ORIGIN/lib", NULL, "$ORIGIN/lib" },
		{ "/a/$FOO/b$", "/o", "/a/$FOO/b$" },
		{ "", "/o", "" },
#ifdef TRIPLET
		{ "/usr/$LIB/x:${LIB}", "/o", "/usr/lib/" TRIPLET "/x:lib/" TRIPLET },
		{ "/p/$PLATFORM/${PLATFORM}", "/o", "/p/" PLATFORM "/" PLATFORM },
#endif
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = cushim_ld_expand(cases[i].list, cases[i].origin);
		ck_assert_ptr_nonnull(got);
		ck_assert_msg(strcmp(got, cases[i].want) == 0, "%s (origin %s): %s, wanted %s", cases[i].list,
			      cases[i].origin ? cases[i].origin : "none", got, cases[i].want);
		free(got);
	}
}
END_TEST

/* ---- the command's search: only an ELF file for this machine counts ---- */
static void craft_elf(const char *rel, int cls, int machine)
{
	unsigned char h[64] = { 0 };
	int n = cls == ELFCLASS64 ? 64 : 52;
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = (unsigned char)cls, h[EI_DATA] = ELFDATA2LSB, h[EI_VERSION] = EV_CURRENT;
	h[16] = ET_DYN, h[18] = (unsigned char)machine, h[19] = (unsigned char)(machine >> 8), h[20] = EV_CURRENT;
	if (cls == ELFCLASS64)
		h[52] = 64; /* e_ehsize */
	else
		h[40] = 52;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", T, rel);
	write_file(rel, "");
	int fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, h, (size_t)n), n);
	close(fd);
}

static int reject_b(const char *path)
{
	return strstr(path, "/b/") != NULL;
}

START_TEST(native_files_only)
{
	char out[4096], rpath[4096], run[4096];
	write_file("text/libq.so", "not an ELF file\n");
	craft_elf("foreign/libq.so", ELFCLASS64, FOREIGN);
	craft_elf("class32/libq.so", ELFCLASS32, NATIVE);
	craft_elf("a/libq.so", ELFCLASS64, NATIVE);
	craft_elf("b/libq.so", ELFCLASS64, NATIVE);
	craft_elf("c/libq.so", ELFCLASS64, NATIVE);
	snprintf(rpath, sizeof rpath, "%s/none:%s/text:%s/foreign:%s/class32:%s/a", T, T, T, T, T);
	ck_assert_int_eq(cli_ld_search("libq.so", rpath, NULL, NULL, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("a/libq.so"));
	/* DT_RPATH before LD_LIBRARY_PATH before DT_RUNPATH */
	setenv("LD_LIBRARY_PATH", in_t("b"), 1);
	snprintf(run, sizeof run, "%s/c", T);
	ck_assert_int_eq(cli_ld_search("libq.so", in_t("a"), run, NULL, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("a/libq.so"));
	ck_assert_int_eq(cli_ld_search("libq.so", NULL, run, NULL, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("b/libq.so"));
	ck_assert_int_eq(cli_ld_search("libq.so", NULL, run, reject_b, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("c/libq.so"));
	unsetenv("LD_LIBRARY_PATH");
	/* $ORIGIN in a run path, expanded as the command does */
	char *expanded = cli_ld_expand("$ORIGIN/foreign:${ORIGIN}/c", T);
	ck_assert_int_eq(cli_ld_search("libq.so", NULL, expanded, NULL, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("c/libq.so"));
	free(expanded);
	/* a folder of ld.so.conf */
	craft_elf("conf2/libq.so", ELFCLASS64, NATIVE);
	ck_assert_int_eq(cli_ld_search("libq.so", in_t("text"), NULL, NULL, out, sizeof out), 0);
	ck_assert_str_eq(out, in_t("conf2/libq.so"));
	ck_assert_int_eq(cli_ld_search("libq-absent.so.7", NULL, NULL, NULL, out, sizeof out), -1);
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { order, empty_entries, first_taken_ends, expand, native_files_only, NULL };

	return check_run("ldsearch", "walk", tests, setup, teardown);
}
