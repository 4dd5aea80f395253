/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AF_SPRAY: generic netlink compatibility for kernels without split ops.
 *
 * The YNL generator of Linux 6.12 renders a family as a table of
 * struct genl_split_ops (one entry per command and do/dump) referenced by
 * genl_family.split_ops. Kernels before 6.2 (Debian's 6.1) have neither: they
 * take one struct genl_ops per command, with do and dump in the same entry
 * and one policy for both, and refuse two entries of one command.
 *
 * Kbuild defines SPRAY_HAVE_SPLIT_OPS when <net/genetlink.h> declares
 * struct genl_split_ops. Without it, this header (force-included before the
 * generated kernel/netlink-gen.c, included by kernel/netlink.c) renders the
 * generated table as struct genl_ops, whose fields are a superset of those
 * the generator emits, and spray_genl_merge_ops() folds it at init into one
 * entry per command, which then replaces the family's table before
 * registration.
 */
#ifndef _SPRAY_GENL_COMPAT_H
#define _SPRAY_GENL_COMPAT_H

#include <net/netlink.h>
#include <net/genetlink.h>

#ifndef SPRAY_HAVE_SPLIT_OPS

#define genl_split_ops	genl_ops
#define split_ops	ops
#define n_split_ops	n_ops

/*
 * 6.1's nla_policy.range points to a non-const netlink_range_validation; the
 * generator emits const ranges (as 6.3+ takes). The core only reads them.
 */
#undef NLA_POLICY_FULL_RANGE
#define NLA_POLICY_FULL_RANGE(tp, _range) {				\
	.type = NLA_ENSURE_UINT_OR_BINARY_TYPE(tp),			\
	.validation_type = NLA_VALIDATE_RANGE_PTR,			\
	.range = (struct netlink_range_validation *)(_range),		\
}

/**
 * spray_genl_merge_ops() - fold split ops into one genl_ops per command
 * @out: the merged table
 * @out_n: entries in @out
 * @in: the generated table, in the 6.1 layout (one entry per do or dump)
 * @n: entries in @in
 *
 * The do and dump of one command become one entry. 6.1 has one policy per
 * entry: the do's wins, the dump's is used for a dump-only command.
 *
 * Return: the number of entries of @out used, 0 if @out is too small.
 */
static inline unsigned int spray_genl_merge_ops(struct genl_ops *out,
						unsigned int out_n,
						const struct genl_ops *in,
						unsigned int n)
{
	unsigned int cnt = 0;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < cnt; j++)
			if (out[j].cmd == in[i].cmd)
				break;
		if (j == cnt) {
			if (cnt == out_n)
				return 0;
			out[cnt++] = in[i];
			continue;
		}
		if (in[i].doit) {
			out[j].doit = in[i].doit;
			out[j].policy = in[i].policy;
			out[j].maxattr = in[i].maxattr;
		}
		if (in[i].dumpit) {
			out[j].start = in[i].start;
			out[j].dumpit = in[i].dumpit;
			out[j].done = in[i].done;
			if (!out[j].policy) {
				out[j].policy = in[i].policy;
				out[j].maxattr = in[i].maxattr;
			}
		}
		out[j].flags |= in[i].flags;
		out[j].validate |= in[i].validate;
	}
	return cnt;
}

#endif /* !SPRAY_HAVE_SPLIT_OPS */

#endif /* _SPRAY_GENL_COMPAT_H */
