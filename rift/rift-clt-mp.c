// SPDX-License-Identifier: GPL-2.0
/*
 * Rift client: multipath.  Which connected path a request takes, by the
 * session's mp_policy, and nothing else: pure path selection, called by
 * submission and sysfs, calling no other file.  Requests that find no
 * path wait in the failover queue (rift-clt-pending.c).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rift-clt.h"

static const char * const rift_clt_mp_policy_names[RIFT_CLT_MP_NR] = {
	[RIFT_CLT_MP_ROUND_ROBIN]	= "round-robin",
	[RIFT_CLT_MP_MIN_INFLIGHT]	= "min-inflight",
	[RIFT_CLT_MP_MIN_LATENCY]	= "min-latency",
};

/**
 * rift_clt_mp_policy_str() - sysfs name of a multipath policy
 * @p: policy
 *
 * Return: its name.
 */
const char *rift_clt_mp_policy_str(enum rift_clt_mp_policy p)
{
	return p < RIFT_CLT_MP_NR ? rift_clt_mp_policy_names[p] : "unknown";
}

/**
 * rift_clt_mp_policy_parse() - policy named by sysfs input
 * @buf: text; one trailing newline is ignored
 *
 * Return: the policy, or -EINVAL.
 */
int rift_clt_mp_policy_parse(const char *buf)
{
	int i = sysfs_match_string(rift_clt_mp_policy_names, buf);

	return i < 0 ? -EINVAL : i;
}

static struct rift_clt_path *rift_clt_pick_rr(struct rift_clt_sess *sess)
{
	struct rift_clt_path *path, *first = NULL;
	int n = atomic_inc_return(&sess->rr_next);
	int nr = atomic_read(&sess->connected);
	int i = 0;

	if (nr <= 0)
		return NULL;
	n = (unsigned int)n % nr;
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		if (!first)
			first = path;
		if (i++ == n)
			return path;
	}
	return first;
}

/*
 * The least loaded, or fastest, connected path; ties go round-robin so
 * that equal paths share the load instead of the first one taking it all.
 */
static struct rift_clt_path *rift_clt_pick_min(struct rift_clt_sess *sess,
					       bool latency)
{
	struct rift_clt_path *path, *best = NULL;
	u64 key, best_key = U64_MAX;
	unsigned int skip = (unsigned int)atomic_inc_return(&sess->rr_next);
	int nr = atomic_read(&sess->connected);
	int i = 0;

	if (nr <= 0)
		return NULL;
	skip %= nr;
	list_for_each_entry_rcu(path, &sess->paths, entry) {
		if (READ_ONCE(path->state) != RIFT_CLT_PATH_CONNECTED)
			continue;
		key = latency ? READ_ONCE(path->hb.rtt_us) :
				atomic_read(&path->base.inflight);
		/* Strictly better, or as good and at the rotating start. */
		if (key < best_key || (key == best_key && i == skip)) {
			best = path;
			best_key = key;
		}
		i++;
	}
	return best;
}

/**
 * rift_clt_pick_path() - choose a connected path for the next request
 * @sess: session
 *
 * By the session's mp_policy.  Caller holds rcu_read_lock().
 *
 * Return: a path, or NULL when none is connected.
 */
struct rift_clt_path *rift_clt_pick_path(struct rift_clt_sess *sess)
{
	switch (READ_ONCE(sess->mp_policy)) {
	case RIFT_CLT_MP_MIN_INFLIGHT:
		return rift_clt_pick_min(sess, false);
	case RIFT_CLT_MP_MIN_LATENCY:
		return rift_clt_pick_min(sess, true);
	default:
		return rift_clt_pick_rr(sess);
	}
}
