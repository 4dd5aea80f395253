// SPDX-License-Identifier: GPL-2.0
/*
 * AF_SPRAY: reliable datagrams sprayed per packet over UDP/IP.
 *
 * Module entry: brings the subsystems up in order and down in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "spray.h"
#include "netlink.h"
#include "conn.h"

static int __init spray_init(void)
{
	int err;

	err = spray_page_cache_init();
	if (err)
		return err;
	err = spray_conn_init();
	if (err)
		goto err_pcache;
	err = spray_netns_init();
	if (err)
		goto err_conn;
	err = spray_af_init();
	if (err)
		goto err_netns;
	err = spray_netlink_init();
	if (err)
		goto err_af;
	pr_info("AF_SPRAY (family %d) loaded\n", AF_SPRAY);
	return 0;

err_af:
	spray_af_exit();
	spray_af_exit_proto();
err_netns:
	spray_netns_exit();
err_conn:
	spray_conn_exit();
err_pcache:
	spray_page_cache_drain();
	return err;
}

/*
 * No socket has a file (each would hold the module): orphans may linger.
 * Each namespace's exit ends its orphans, then the work queue and the
 * deferred frees drain before the protocol goes.
 */
static void __exit spray_exit(void)
{
	spray_netlink_exit();
	spray_af_exit();
	spray_netns_exit();
	spray_conn_exit();
	spray_af_exit_proto();
	spray_page_cache_drain();
}

module_init(spray_init);
module_exit(spray_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AF_SPRAY: reliable multipath datagrams over UDP/IP");
MODULE_AUTHOR("AF_SPRAY developers");
MODULE_ALIAS_NETPROTO(PF_SPRAY);
