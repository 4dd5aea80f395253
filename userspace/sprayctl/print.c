// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl output. Three formats, whatever stdout is (a terminal or a
 * pipe):
 *   text (default): objects as aligned "key value" lines, listings as a
 *        header and aligned columns (numbers right-aligned);
 *   -t:  for scripts: "key<TAB>value" lines, listings without header, one
 *        tab-separated line per entry (columns as in text);
 *   -j:  JSON, compact (one line per value); -p: indented.
 * Keys are the same in all three: the column headers are the JSON keys.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "sprayctl.h"

static struct field *rec_next(struct rec *r, const char *key, enum ftype t)
{
	struct field *f;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		f = realloc(r->f, r->cap * sizeof(*f));
		if (!f) {
			perror("sprayctl");
			exit(EXIT_REFUSED);
		}
		r->f = f;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->key, sizeof(f->key), "%s", key);
	f->type = t;
	return f;
}

void rec_str(struct rec *r, const char *key, const char *fm, ...)
{
	struct field *f = rec_next(r, key, F_STR);
	va_list ap;

	va_start(ap, fm);
	vsnprintf(f->s, sizeof(f->s), fm, ap);
	va_end(ap);
}

void rec_u64(struct rec *r, const char *key, uint64_t v)
{
	struct field *f = rec_next(r, key, F_U64);

	f->u = v;
	snprintf(f->s, sizeof(f->s), "%llu", (unsigned long long)v);
}

void rec_none(struct rec *r, const char *key)
{
	struct field *f = rec_next(r, key, F_NONE);

	snprintf(f->s, sizeof(f->s), "-");
}

void rec_f64(struct rec *r, const char *key, double v)
{
	struct field *f = rec_next(r, key, F_F64);

	f->d = v;
	snprintf(f->s, sizeof(f->s), "%.1f", v);
}

const struct field *rec_get(const struct rec *r, const char *key)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return &r->f[i];
	return NULL;
}

void rec_free(struct rec *r)
{
	free(r->f);
	r->f = NULL;
	r->n = r->cap = 0;
}

struct rec *rows_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		struct rec *r;

		rs->cap = rs->cap ? 2 * rs->cap : 64;
		r = realloc(rs->r, rs->cap * sizeof(*r));
		if (!r) {
			perror("sprayctl");
			exit(EXIT_REFUSED);
		}
		rs->r = r;
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	return &rs->r[rs->n++];
}

void rows_free(struct rows *rs)
{
	int i;

	for (i = 0; i < rs->n; i++)
		rec_free(&rs->r[i]);
	free(rs->r);
	rs->r = NULL;
	rs->n = rs->cap = 0;
}

/* ---- JSON */

static int depth;
static bool need_comma;

static void jw_indent(void)
{
	int i;

	if (!json_pretty)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("    ", stdout);
}

static void jw_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* the start of a member or element: comma, indentation, "key": */
static void jw_member(const char *key)
{
	if (need_comma)
		putchar(',');
	if (depth)
		jw_indent();
	if (key) {
		jw_str(key);
		fputs(json_pretty ? ": " : ":", stdout);
	}
	need_comma = true;
}

static void jw_open(const char *key, char c)
{
	jw_member(key);
	putchar(c);
	depth++;
	need_comma = false;
}

static void jw_close(char c)
{
	bool empty = !need_comma;

	depth--;
	if (!empty)
		jw_indent();
	putchar(c);
	need_comma = true;
}

void jw_begin_obj(const char *key) { jw_open(key, '{'); }
void jw_end_obj(void) { jw_close('}'); }
void jw_begin_arr(const char *key) { jw_open(key, '['); }
void jw_end_arr(void) { jw_close(']'); }

void jw_field(const struct field *f)
{
	jw_member(f->key);
	if (f->type == F_STR)
		jw_str(f->s);
	else
		fputs(f->s, stdout);
}

void jw_rec(const char *key, const struct rec *r)
{
	int i;

	jw_begin_obj(key);
	for (i = 0; i < r->n; i++)
		if (r->f[i].type != F_NONE)
			jw_field(&r->f[i]);
	jw_end_obj();
}

void jw_done(void)
{
	putchar('\n');
	need_comma = false;
	depth = 0;
}

/* ---- text */

void print_kv(const struct rec *r)
{
	int i;

	if (fmt == FMT_JSON) {
		jw_rec(NULL, r);
		jw_done();
		return;
	}
	for (i = 0; i < r->n; i++)
		if (fmt == FMT_TSV)
			printf("%s\t%s\n", r->f[i].key, r->f[i].s);
		else
			printf("%-20s %s\n", r->f[i].key, r->f[i].s);
}

void print_table(const struct col *cols, int ncols, const struct rows *rs)
{
	int *w, i, j;

	if (fmt == FMT_JSON) {
		jw_begin_arr(NULL);
		for (i = 0; i < rs->n; i++)
			jw_rec(NULL, &rs->r[i]);
		jw_end_arr();
		jw_done();
		return;
	}
	if (fmt == FMT_TSV) {
		for (i = 0; i < rs->n; i++)
			for (j = 0; j < rs->r[i].n; j++)
				printf("%s%c", rs->r[i].f[j].s,
				       j == rs->r[i].n - 1 ? '\n' : '\t');
		return;
	}
	w = calloc(ncols, sizeof(*w));
	if (!w) {
		perror("sprayctl");
		exit(EXIT_REFUSED);
	}
	for (j = 0; j < ncols; j++)
		w[j] = strlen(cols[j].key);
	for (i = 0; i < rs->n; i++)
		for (j = 0; j < ncols && j < rs->r[i].n; j++) {
			int l = strlen(rs->r[i].f[j].s);

			if (l > w[j])
				w[j] = l;
		}
	for (j = 0; j < ncols; j++)
		printf(cols[j].num ? "%*s%s" : "%-*s%s", j == ncols - 1 &&
		       !cols[j].num ? 0 : w[j], cols[j].key,
		       j == ncols - 1 ? "\n" : "  ");
	for (i = 0; i < rs->n; i++)
		for (j = 0; j < ncols && j < rs->r[i].n; j++)
			printf(cols[j].num ? "%*s%s" : "%-*s%s",
			       j == ncols - 1 && !cols[j].num ? 0 : w[j],
			       rs->r[i].f[j].s, j == ncols - 1 ? "\n" : "  ");
	free(w);
}

void timestamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	char date[32], zone[8];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);	/* +0100 */
	snprintf(buf, len, "%s.%06ld%.3s:%.2s", date, (long)tv.tv_usec, zone,
		 zone + 3);
}
