/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal unit test framework for the AF_SPRAY protocol core.
 *
 * TEST(function__condition) { ... EXPECT(cond); EXPECT_EQ(a, b); }
 * Tests register themselves at load time; main() in test_main.c runs them in
 * order, prints "ok N name" / "not ok N name" and the summary line
 * "unit: N passed, M failed". A failed EXPECT ends the test.
 */
#ifndef _SPRAY_UNIT_TEST_H
#define _SPRAY_UNIT_TEST_H

#include <stdio.h>
#include <stdlib.h>

typedef void (*test_fn)(void);

void test_register(const char *name, const char *file, test_fn fn);
void test_fail(const char *file, int line, const char *expr,
	       unsigned long long a, unsigned long long b, int has_vals);
extern int test_cur_failed;

#define TEST(name)							\
	static void name(void);						\
	static void __attribute__((constructor)) reg_##name(void)	\
	{								\
		test_register(#name, __FILE__, name);			\
	}								\
	static void name(void)

#define EXPECT(cond)							\
	do {								\
		if (!(cond)) {						\
			test_fail(__FILE__, __LINE__, #cond, 0, 0, 0);	\
			return;						\
		}							\
	} while (0)

#define EXPECT_EQ(a, b)							\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b) {						\
			test_fail(__FILE__, __LINE__, #a " == " #b,	\
				  _a, _b, 1);				\
			return;						\
		}							\
	} while (0)

/* for helpers: propagate a failure out of the calling test */
#define EXPECT_OK()	do { if (test_cur_failed) return; } while (0)

#endif
