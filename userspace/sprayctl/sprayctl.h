/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sprayctl: configure and inspect AF_SPRAY through its generic netlink
 * family "spray" (Documentation/networking/spray-netlink.rst), on
 * libspraynl (userspace/lib).
 *
 *   sprayctl.c   options, objects and verbs, help
 *   nl.c         netlink plumbing: the socket, the namespace, errors
 *   print.c      output: tables, key/value lists, JSON
 *   config.c     show, set
 *   list.c       stats, sockets, peers, paths (with filters)
 *   monitor.c    monitor (events with timestamps)
 *   top.c        top (live rates of peers and paths)
 */
#ifndef _SPRAYCTL_H
#define _SPRAYCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "spraynl.h"

/* exit status */
enum { EXIT_REFUSED = 1, EXIT_USAGE = 2, EXIT_NOFAMILY = 3 };

/* ---- options (sprayctl.c) */
enum out_fmt { FMT_TEXT, FMT_TSV, FMT_JSON };
extern enum out_fmt fmt;
extern bool json_pretty;

/* matches(arg, word): arg is a non-empty prefix of word (iproute2's rule) */
bool matches(const char *arg, const char *word);
/* a usage error about an object: message, the object's help on stderr */
int usage_err(const char *object, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void help_object(FILE *f, const char *object);

/* ---- netlink plumbing (nl.c) */
extern struct ynl_sock *ys;
extern const char *nl_netns;	/* -n NAME */
/* enter the namespace, open the socket (once); 0 or an exit status.
 * Commands call it once their arguments are known to be good.
 */
int nl_open(void);
void nl_close(void);
/* print why the last request failed; return EXIT_REFUSED */
int nl_failed(const char *what);

/* ---- output (print.c) */
/* F_NONE: a value the kernel did not give: "-" in tables, absent in JSON */
enum ftype { F_STR, F_U64, F_F64, F_NONE };

struct field {
	char key[40];
	enum ftype type;
	uint64_t u;
	double d;
	char s[80];
};

/* fields in the order they are printed; rec_free() frees them */
struct rec {
	int n, cap;
	struct field *f;
};

void rec_str(struct rec *r, const char *key, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
void rec_u64(struct rec *r, const char *key, uint64_t v);
void rec_none(struct rec *r, const char *key);
void rec_f64(struct rec *r, const char *key, double v);
const struct field *rec_get(const struct rec *r, const char *key);
void rec_free(struct rec *r);

/* a column of a listing: its key and whether it is numeric */
struct col {
	const char *key;
	bool num;
};

/* rows of a listing; grows as needed */
struct rows {
	int n, cap;
	struct rec *r;
};

struct rec *rows_add(struct rows *rs);
void rows_free(struct rows *rs);

/* one object: "key value" lines, tab-separated, or a JSON object */
void print_kv(const struct rec *r);
/* a listing: a header and aligned columns (no header with -t), or a JSON
 * array of objects
 */
void print_table(const struct col *cols, int ncols, const struct rows *rs);
/* the wall clock as "2026-12-01T14:45:12.123456+01:00" */
void timestamp(char *buf, size_t len);

/* a tiny JSON writer, compact or pretty (-p) */
void jw_begin_obj(const char *key);
void jw_end_obj(void);
void jw_begin_arr(const char *key);
void jw_end_arr(void);
void jw_field(const struct field *f);
void jw_rec(const char *key, const struct rec *r);
/* end of a top-level JSON value: a newline */
void jw_done(void);

/* ---- subcommands */
int cmd_show(int argc, char **argv);
int cmd_set(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_sockets(int argc, char **argv);
int cmd_peers(int argc, char **argv);
int cmd_paths(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* config.c: the settings and their values, for help */
void help_settings(FILE *f);

#endif /* _SPRAYCTL_H */
