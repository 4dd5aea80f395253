// SPDX-License-Identifier: GPL-2.0
/*
 * sprayctl config [show] | config set KEY VALUE... (also "show", "set"):
 * the namespace's settings (config-get, config-set).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sprayctl.h"

/* the generated policy: setting names as the spec spells them */
extern const struct ynl_policy_attr spray_config_policy[SPRAY_A_CONFIG_MAX + 1];

/* the settings, in the spec's order; 16 or 32 bits */
static const struct {
	uint16_t attr;
	uint8_t bits;
} settings[] = {
	{ SPRAY_A_CONFIG_UDP_PORT, 16 },
	{ SPRAY_A_CONFIG_NR_EVS, 32 },
	{ SPRAY_A_CONFIG_CC_MODE, 32 },
	{ SPRAY_A_CONFIG_RTO_MIN_US, 32 },
	{ SPRAY_A_CONFIG_RTO_MAX_US, 32 },
	{ SPRAY_A_CONFIG_RETRY_LIMIT, 32 },
	{ SPRAY_A_CONFIG_ACK_EVERY, 32 },
	{ SPRAY_A_CONFIG_ACK_DELAY_US, 32 },
	{ SPRAY_A_CONFIG_MAX_MSG, 32 },
	{ SPRAY_A_CONFIG_IDLE_TIMEOUT_MS, 32 },
	{ SPRAY_A_CONFIG_BDP_BYTES, 32 },
};

#define NSETTINGS (int)(sizeof(settings) / sizeof(settings[0]))

static const char *setting_name(int i)
{
	return spray_config_policy[settings[i].attr].name;
}

/* the value of setting @i in a config-get reply; false if absent */
static bool get_value(const struct spray_config_get_rsp *r, int i,
		      uint32_t *v)
{
	switch (settings[i].attr) {
#define C(A, f) case SPRAY_A_CONFIG_##A: *v = r->f; return r->_present.f;
	C(UDP_PORT, udp_port)
	C(NR_EVS, nr_evs)
	C(CC_MODE, cc_mode)
	C(RTO_MIN_US, rto_min_us)
	C(RTO_MAX_US, rto_max_us)
	C(RETRY_LIMIT, retry_limit)
	C(ACK_EVERY, ack_every)
	C(ACK_DELAY_US, ack_delay_us)
	C(MAX_MSG, max_msg)
	C(IDLE_TIMEOUT_MS, idle_timeout_ms)
	C(BDP_BYTES, bdp_bytes)
#undef C
	}
	return false;
}

static void set_value(struct spray_config_set_req *req, int i, uint32_t v)
{
	switch (settings[i].attr) {
#define C(A, f) case SPRAY_A_CONFIG_##A: spray_config_set_req_set_##f(req, v); break;
	C(UDP_PORT, udp_port)
	C(NR_EVS, nr_evs)
	C(CC_MODE, cc_mode)
	C(RTO_MIN_US, rto_min_us)
	C(RTO_MAX_US, rto_max_us)
	C(RETRY_LIMIT, retry_limit)
	C(ACK_EVERY, ack_every)
	C(ACK_DELAY_US, ack_delay_us)
	C(MAX_MSG, max_msg)
	C(IDLE_TIMEOUT_MS, idle_timeout_ms)
	C(BDP_BYTES, bdp_bytes)
#undef C
	}
}

int cmd_show(int argc, char **argv)
{
	struct spray_config_get_rsp *r;
	struct rec o = { 0 };
	uint32_t v;
	int i, ret;

	if (argc)
		return usage_err("config", "show takes no argument (\"%s\")",
				 argv[0]);
	ret = nl_open();
	if (ret)
		return ret;
	r = spray_config_get(ys);
	if (!r)
		return nl_failed("config-get");
	for (i = 0; i < NSETTINGS; i++) {
		if (!get_value(r, i, &v))
			continue;
		if (settings[i].attr == SPRAY_A_CONFIG_CC_MODE &&
		    spray_nl_cc_mode_str(v))
			rec_str(&o, setting_name(i), "%s",
				spray_nl_cc_mode_str(v));
		else
			rec_u64(&o, setting_name(i), v);
	}
	spray_config_get_rsp_free(r);
	print_kv(&o);
	rec_free(&o);
	return 0;
}

static int parse_value(int i, const char *str, uint32_t *v)
{
	unsigned long long n;
	char *end;

	if (settings[i].attr == SPRAY_A_CONFIG_CC_MODE) {
		for (n = 0; spray_nl_cc_mode_str(n); n++)
			if (!strcmp(str, spray_nl_cc_mode_str(n))) {
				*v = n;
				return 0;
			}
	}
	errno = 0;
	n = strtoull(str, &end, 0);
	if (errno || end == str || *end || str[0] == '-' ||
	    n > (settings[i].bits == 16 ? 0xffffULL : 0xffffffffULL))
		return usage_err("config", "%s: bad value \"%s\"",
				 setting_name(i), str);
	*v = n;
	return 0;
}

int cmd_set(int argc, char **argv)
{
	struct spray_config_set_req *req;
	uint32_t v = 0;
	int i, ret = 0;

	if (argc % 2)
		return usage_err("config", "set: %s without a value",
				 argv[argc - 1]);
	req = spray_config_set_req_alloc();
	if (!req) {
		perror("sprayctl");
		return EXIT_REFUSED;
	}
	for (; argc && !ret; argc -= 2, argv += 2) {
		/* settings are spelled out: a prefix could name two */
		for (i = 0; i < NSETTINGS; i++)
			if (!strcmp(argv[0], setting_name(i)))
				break;
		if (i == NSETTINGS)
			ret = usage_err("config", "set: unknown setting \"%s\"",
					argv[0]);
		else
			ret = parse_value(i, argv[1], &v);
		if (!ret)
			set_value(req, i, v);
	}
	if (!ret)
		ret = nl_open();
	/* with no setting, the kernel says "no setting given" */
	if (!ret && spray_config_set(ys, req))
		ret = nl_failed("config-set");
	spray_config_set_req_free(req);
	return ret;
}

int cmd_config(int argc, char **argv)
{
	if (!argc || matches(argv[0], "show") || matches(argv[0], "list"))
		return cmd_show(argc ? argc - 1 : 0, argv + 1);
	if (matches(argv[0], "set"))
		return cmd_set(argc - 1, argv + 1);
	return usage_err("config", "unknown verb \"%s\"", argv[0]);
}

void help_settings(FILE *f)
{
	int i;

	fprintf(f, "KEY := {");
	for (i = 0; i < NSETTINGS; i++)
		fprintf(f, "%s%s", i ? " | " : " ", setting_name(i));
	fprintf(f, " }\ncc-mode VALUE := {");
	for (i = 0; spray_nl_cc_mode_str(i); i++)
		fprintf(f, "%s%s", i ? " | " : " ", spray_nl_cc_mode_str(i));
	fprintf(f, " }\n");
}
