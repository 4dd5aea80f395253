// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "test.h"

#define MAX_TESTS 512

static struct {
	const char *name;
	const char *file;
	test_fn fn;
} tests[MAX_TESTS];
static int ntests;
int test_cur_failed;

void test_register(const char *name, const char *file, test_fn fn)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests].file = file;
	tests[ntests].fn = fn;
	ntests++;
}

void test_fail(const char *file, int line, const char *expr,
	       unsigned long long a, unsigned long long b, int has_vals)
{
	test_cur_failed = 1;
	if (has_vals)
		printf("#   %s:%d: expected %s (%llu vs %llu)\n", file, line,
		       expr, a, b);
	else
		printf("#   %s:%d: expected %s\n", file, line, expr);
}

int main(int argc, char **argv)
{
	int i, pass = 0, fail = 0, n = 0;

	for (i = 0; i < ntests; i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		test_cur_failed = 0;
		tests[i].fn();
		n++;
		if (test_cur_failed) {
			fail++;
			printf("not ok %d %s\n", n, tests[i].name);
		} else {
			pass++;
			printf("ok %d %s\n", n, tests[i].name);
		}
		fflush(stdout);
	}
	printf("unit: %d passed, %d failed\n", pass, fail);
	return fail ? 1 : 0;
}
