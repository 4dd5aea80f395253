// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl: configure and inspect AF_SPRAY through its generic netlink
 * family "spray" (Documentation/networking/spray-netlink.rst, sprayctl(8)).
 *
 *   sprayctl [OPTIONS] OBJECT [VERB] [ARGS]
 *
 * Objects and verbs may be abbreviated to any prefix, the first in the
 * table winning ("s" is show, "st" stats, "p" peers), as with ip(8); every
 * object answers "help". The output is the same on a terminal and in a
 * pipe.
 *
 * Exit status: 0 success, 1 the kernel refused the request (its extack
 * message is printed) or a system call failed, 2 usage error, 3 the "spray"
 * family is not registered (module not loaded).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sprayctl.h"

enum out_fmt fmt = FMT_TEXT;
bool json_pretty;

struct object {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* after "sprayctl NAME " */
	const char *help;
};

static const struct object objects[] = {
	{ "show", cmd_show, "",
	  "the namespace's settings (as config show)" },
	{ "set", cmd_set, "KEY VALUE...",
	  "change settings, all or nothing (as config set; CAP_NET_ADMIN)" },
	{ "config", cmd_config, "[ show | set KEY VALUE... ]",
	  "the namespace's settings" },
	{ "stats", cmd_stats, "[ show ]",
	  "the namespace's counters: packets, messages, losses, drops per reason" },
	{ "sockets", cmd_sockets, "[ show ] [ local ADDR ]",
	  "bound AF_SPRAY sockets" },
	{ "peers", cmd_peers,
	  "[ show ] [ id ID ] [ local ADDR ] [ remote ADDR ] [ state STATE ]",
	  "connections: RTT, RTO, window, grants, packets; STATE := { idle | active | unreachable | closing }" },
	{ "paths", cmd_paths, "[ show ] [ peer ID ] [ ev EV ] [ state STATE ]",
	  "entropy values (UDP source ports) of every peer; STATE := { up | avoided | down }" },
	{ "monitor", cmd_monitor, "[ COUNT ]",
	  "print path-down, path-up and peer-unreachable events with the time they came, until ^C or COUNT events" },
	{ "top", cmd_top, "[ -n COUNT ] [ -d SECONDS ]",
	  "live rates of peers and paths (sent, resent, received, lost, ECN, RTT), every SECONDS (1), until ^C or COUNT frames" },
	{ "help", NULL, "[ OBJECT ]", "this help, or an object's" },
};

#define NOBJ (int)(sizeof(objects) / sizeof(objects[0]))

bool matches(const char *arg, const char *word)
{
	size_t l = strlen(arg);

	return l && l <= strlen(word) && !strncmp(arg, word, l);
}

static const struct object *find_object(const char *name)
{
	int i;

	for (i = 0; i < NOBJ; i++)
		if (matches(name, objects[i].name))
			return &objects[i];
	return NULL;
}

static void usage(FILE *f)
{
	int i;

	fprintf(f,
		"usage: sprayctl [ OPTIONS ] OBJECT [ VERB ] [ ARGS ]\n"
		"OPTIONS := { -j[son] | -p[retty] | -t[sv] | -n[etns] NAME | -h[elp] }\n"
		"  -j  JSON   -p  indented JSON   -t  tab-separated, no header (scripts)\n"
		"  -n  run in network namespace NAME (ip netns)\n"
		"OBJECT := {");
	for (i = 0; i < NOBJ; i++)
		fprintf(f, "%s%s", i ? " | " : " ", objects[i].name);
	fprintf(f, " }\n\n");
	for (i = 0; i < NOBJ; i++)
		fprintf(f, "  %-8s %s\n", objects[i].name, objects[i].help);
	fprintf(f, "\nADDR := { IP | IP:PORT | [IPv6]:PORT | :PORT }; "
		"\"sprayctl OBJECT help\" for more.\n");
}

void help_object(FILE *f, const char *name)
{
	const struct object *o = find_object(name);

	if (!o) {
		usage(f);
		return;
	}
	fprintf(f, "usage: sprayctl %s %s\n", o->name, o->usage);
	if (o->fn == cmd_config)
		fprintf(f, "       sprayctl show | set KEY VALUE...\n");
	fprintf(f, "%s\n", o->help);
	if (o->fn == cmd_config || o->fn == cmd_set || o->fn == cmd_show)
		help_settings(f);
	if (o->fn == cmd_sockets || o->fn == cmd_peers)
		fprintf(f, "ADDR := { IP | IP:PORT | [IPv6]:PORT | :PORT }\n");
}

int usage_err(const char *object, const char *f, ...)
{
	va_list ap;

	fprintf(stderr, "sprayctl: %s: ", object);
	va_start(ap, f);
	vfprintf(stderr, f, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	help_object(stderr, object);
	return EXIT_USAGE;
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "help") || !strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "--help"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "tsv", no_argument, NULL, 't' },
		{ "netns", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct object *o;
	int opt, ret;

	/* "+": options end at the object (top has its own -n) */
	while ((opt = getopt_long_only(argc, argv, "+jptn:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			fmt = FMT_JSON;
			break;
		case 'p':
			fmt = FMT_JSON;
			json_pretty = true;
			break;
		case 't':
			fmt = FMT_TSV;
			break;
		case 'n':
			nl_netns = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	o = find_object(argv[optind]);
	if (!o) {
		fprintf(stderr, "sprayctl: unknown object \"%s\"\n",
			argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind + 1;
	argv += optind + 1;
	if (!o->fn) {
		if (argc)
			help_object(stdout, argv[0]);
		else
			usage(stdout);
		return 0;
	}
	if (wants_help(argc, argv)) {
		help_object(stdout, o->name);
		return 0;
	}
	ret = o->fn(argc, argv);
	nl_close();
	return ret;
}
