/* White-box tests of the digest behind a CUDA runtime's validity check
 * (src/common/md2.c, src/common/validity.c): MD2 against RFC 1319's test suite, and the
 * integrity check's answer against what real drivers answered (recorded
 * from Debian's 525.147.05 and 555.58.02, no GPU: no device records). */
#include "md2.h"
#include "validity.h"
#include <check.h>
#include "../harness/check-run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(md2_matches_rfc_1319)
{
	static const struct {
		const char *message, *digest;
	} suite[] = {
		{ "", "8350e5a3e24c153df2275c9f80692773" },
		{ "a", "32ec01ec4a6dac72c0ab96fb34c0b5d1" },
		{ "abc", "da853b0d3f88d99b30283a69e6ded6bb" },
		{ "message digest", "ab4f496bfb2a530b219ff33031fe06b0" },
		{ "abcdefghijklmnopqrstuvwxyz", "4e8ddff3650292ab5a4108c3aa47940b" },
		{ "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "da33def2a42df13975352846c30338cd" },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "d5976f79d83d3a0dc9806c3c66f3efd8" },
	};
	for (size_t i = 0; i < sizeof suite / sizeof *suite; i++) {
		struct cushim_md2 m;
		unsigned char d[16];
		char hex[33];

		cushim_md2_init(&m);
		cushim_md2_update(&m, suite[i].message, strlen(suite[i].message), 0);
		cushim_md2_final(&m, d);
		for (int k = 0; k < 16; k++)
			snprintf(hex + 2 * k, 3, "%02x", d[k]);
		ck_assert_msg(strcmp(hex, suite[i].digest) == 0, "MD2(\"%s\") = %s", suite[i].message, hex);
	}
}
END_TEST

/* What the drivers' slot 1 answered, with every input it hashed. */
START_TEST(integrity_answer_matches_real_drivers)
{
	static const struct {
		struct cushim_integrity_msg m;
		unsigned long long out[2];
	} real[] = {
		{ { 12000, 12042, 26549, 2308540224u, 0x7f3389762740, 0x7f3389762720, 0x7f3387f60740, 1796591879, 0, NULL },
		  { 0xbdbe6de36703a31aULL, 0xf83808fd7e40fb15ULL } }, /* 525.147.05 */
		{ { 12000, 13002, 26549, 2308540224u, 0x7f3389762740, 0x7f3389762720, 0x7f3387f60740, 1796591879, 0, NULL },
		  { 0x9d2ed0d90b60e831ULL, 0xffd86c421cfbc041ULL } }, /* 525.147.05 */
		{ { 12050, 12042, 26556, 3430283072u, 0x7fa1cc6138e0, 0x7fa1cc6138c0, 0x7fa1caf12250, 1796591879, 0, NULL },
		  { 0x214f1e12688d2b46ULL, 0xccd6542710c4cd70ULL } }, /* 555.58.02 */
		{ { 12050, 13002, 26556, 3430283072u, 0x7fa1cc6138e0, 0x7fa1cc6138c0, 0x7fa1caf12250, 1796591879, 0, NULL },
		  { 0xf57d562c214c6df9ULL, 0x3ee0cf755e931622ULL } }, /* 555.58.02 */
	};
	for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
		unsigned long long out[2];

		cushim_integrity_mac(&real[i].m, out);
		ck_assert_msg(out[0] == real[i].out[0] && out[1] == real[i].out[1], "row %zu: %016llx%016llx", i, out[0],
			      out[1]);
	}
}
END_TEST

int main(void)
{
	const TTest *const tests[] = { md2_matches_rfc_1319, integrity_answer_matches_real_drivers, NULL };

	return check_run("integrity", "digest", tests, NULL, NULL);
}
