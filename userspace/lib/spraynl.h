/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libspraynl: the client library of the "spray" generic netlink family,
 * shared by sprayctl and spraycoll.
 *
 * Most of it is generated from Documentation/netlink/specs/spray.yaml by
 * the kernel's YNL generator (scripts/ynl-gen.sh): spray-user.[ch] hold one
 * function per operation (spray_config_get(), spray_config_set(),
 * spray_stats_get(), spray_sockets_dump(), spray_peers_dump(),
 * spray_paths_dump()) and the parsed replies and events, on the generator's
 * runtime ynl/ynl.[ch] (a copy of the kernel's tools/net/ynl/lib). This
 * file adds what the generator cannot give:
 *
 *  - spraynl_open(): a socket in the current or a named network namespace,
 *    with the family resolved;
 *  - spraynl_strerror(): why the kernel refused a request, with the valid
 *    range of the offending attribute (NLMSGERR_ATTR_POLICY, which the
 *    generator's runtime does not parse);
 *  - the namespace counters of stats-get as a list of (name, value), names
 *    as in the spec, for tools that print or sum all of them;
 *  - addresses as text.
 */
#ifndef _SPRAYNL_H
#define _SPRAYNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ynl.h"
#include "spray-user.h"

/**
 * spraynl_netns_enter() - move the calling thread into a named network
 * namespace, as "ip -n NAME" does (/run/netns/NAME)
 * @name: the name given to "ip netns add"
 *
 * Return: 0, or -errno.
 */
int spraynl_netns_enter(const char *name);

/**
 * spraynl_open() - a netlink socket of the "spray" family
 * @err: on failure, a message (may be NULL)
 * @errlen: size of @err
 *
 * Return: the socket, or NULL with errno set: ENOENT when the family is not
 * registered (spray.ko not loaded).
 */
struct ynl_sock *spraynl_open(char *err, size_t errlen);

/**
 * spraynl_strerror() - the last failure of a request on @ys, as text:
 * "Invalid argument: integer out of range (attribute nr-evs, valid 1..256)"
 * @ys: the socket the request failed on
 * @buf: filled, NUL-terminated
 * @len: size of @buf
 *
 * Return: the errno of the failure (0 for a failure of the library itself).
 */
int spraynl_strerror(struct ynl_sock *ys, char *buf, size_t len);

/* Namespace counters (stats-get), one per u64 counter of the spec. */
struct spraynl_counter {
	const char *name;	/* as in the spec: "tx-pkts" */
	uint64_t val;
	bool present;		/* the kernel reported it */
};

/* number of u64 counters spraynl_stats_counters() lists */
#define SPRAYNL_NR_COUNTERS	42

/**
 * spraynl_stats_counters() - the counters of a stats-get reply, in the
 * spec's order (bound-sockets and the drop nests are not counters)
 * @r: reply
 * @out: SPRAYNL_NR_COUNTERS entries
 *
 * Return: SPRAYNL_NR_COUNTERS.
 */
int spraynl_stats_counters(const struct spray_stats_get_rsp *r,
			   struct spraynl_counter *out);

/* the name of counter @i (0 .. SPRAYNL_NR_COUNTERS - 1), or NULL */
const char *spraynl_counter_name(int i);

/**
 * spraynl_addr_str() - an address nest as text: "10.0.0.1:7000",
 * "[fe80::1%2]:7000"; "-" if absent
 * @a: the nest
 * @buf: filled
 * @len: size of @buf (SPRAYNL_ADDRSTRLEN is enough)
 *
 * Return: @buf.
 */
#define SPRAYNL_ADDRSTRLEN	72
const char *spraynl_addr_str(const struct spray_address *a, char *buf,
			     size_t len);

#endif /* _SPRAYNL_H */
