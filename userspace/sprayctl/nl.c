// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl's netlink plumbing: the namespace (-n), the socket of the
 * "spray" family, and what to say when the kernel refuses.
 */
#include <errno.h>
#include <string.h>

#include "sprayctl.h"

struct ynl_sock *ys;
const char *nl_netns;

int nl_open(void)
{
	const char *netns = nl_netns;
	char msg[512];
	int err;

	if (ys)
		return 0;

	if (netns) {
		err = spraynl_netns_enter(netns);
		if (err) {
			fprintf(stderr,
				"sprayctl: cannot enter network namespace \"%s\": %s\n",
				netns, strerror(-err));
			return EXIT_REFUSED;
		}
	}
	ys = spraynl_open(msg, sizeof(msg));
	if (ys)
		return 0;
	if (errno == ENOENT) {
		fprintf(stderr,
			"sprayctl: generic netlink family \"%s\" not found (is spray.ko loaded?)\n",
			SPRAY_FAMILY_NAME);
		return EXIT_NOFAMILY;
	}
	fprintf(stderr, "sprayctl: netlink: %s\n", msg);
	return EXIT_REFUSED;
}

void nl_close(void)
{
	if (ys)
		ynl_sock_destroy(ys);
	ys = NULL;
}

int nl_failed(const char *what)
{
	char buf[1024];

	if (spraynl_strerror(ys, buf, sizeof(buf)))
		fprintf(stderr, "sprayctl: kernel refused: %s\n", buf);
	else
		fprintf(stderr, "sprayctl: %s: %s\n", what, buf);
	return EXIT_REFUSED;
}
