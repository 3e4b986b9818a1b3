// SPDX-License-Identifier: GPL-2.0
/*
 * The VM harness's fault injector for riftblk-server's OPEN: a kretprobe
 * on kobject_add() that acts only where riftblk-server adds a mapping
 * (the parent kobject is a device's "sessions" directory and the name, a
 * session's, begins with @match).  It busy-waits @delay_ms there, which
 * holds an OPEN between the handle's allocation and its answer, and then
 * makes kobject_add() fail with -@fail when @fail is set, so the OPEN
 * fails after its handle was taken.  It acts on the next @count such calls, then
 * on none until @count is written again.  selftests/riftblk_open_race.sh
 * uses it.  Never part of Rift itself.
 *
 * A kretprobe's handlers may not sleep, hence the busy wait (bounded:
 * the watchdogs must not mistake it for a lockup); this also freezes the
 * CPU the OPEN runs on, which the other CPUs' IO does not need.
 */

#include <linux/module.h>
#include <linux/delay.h>
#include <linux/kobject.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#define INJECT_DELAY_MAX_MS	5000U

static unsigned int delay_ms;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "busy wait in each call acted on, ms (at most 5000)");

static unsigned int fail;
module_param(fail, uint, 0644);
MODULE_PARM_DESC(fail, "errno the calls acted on return, negated (0: their own)");

static unsigned int count;
module_param(count, uint, 0644);
MODULE_PARM_DESC(count, "how many of the next matching calls to act on");

static char match[64] = "rift-peer-";
module_param_string(match, match, sizeof(match), 0644);
MODULE_PARM_DESC(match, "prefix of the session names acted on");

static unsigned int hits;
module_param(hits, uint, 0444);
MODULE_PARM_DESC(hits, "calls acted on since the module loaded");

/* Per call: whether its return is to be overridden, and with what. */
struct inject_call {
	int err;
};

/* riftblk-server's kobject_add(&map->kobj, d->sessions_kobj, "%s", name)? */
static bool inject_matches(struct pt_regs *regs)
{
	struct kobject *parent = (void *)regs_get_kernel_argument(regs, 1);
	const char *fmt = (void *)regs_get_kernel_argument(regs, 2);
	const char *name = (void *)regs_get_kernel_argument(regs, 3);
	const char *pname;

	if (!parent || !fmt || strcmp(fmt, "%s"))
		return false;
	pname = kobject_name(parent);
	return pname && !strcmp(pname, "sessions") && name &&
	       !strncmp(name, match, strnlen(match, sizeof(match)));
}

/* Takes one of @count, if any is left. */
static bool inject_take(void)
{
	unsigned int n;

	do {
		n = READ_ONCE(count);
		if (!n)
			return false;
	} while (cmpxchg(&count, n, n - 1) != n);
	return true;
}

/*
 * Make the call fail as a real failure would, leaving nothing behind:
 * kobject_add() refuses a NULL kobject before it touches anything.  Where
 * the argument cannot be changed, the call succeeds and its kobject stays
 * in sysfs until the caller's kobject_put() on its error path.
 */
static void inject_refuse(struct pt_regs *regs)
{
#ifdef CONFIG_X86_64
	regs->di = 0;
#endif
}

static int inject_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct inject_call *call = (void *)ri->data;

	if (!inject_matches(regs) || !inject_take())
		return 1;
	WRITE_ONCE(hits, READ_ONCE(hits) + 1);
	call->err = -(int)min(READ_ONCE(fail), 4095U);
	pr_info("rift-inject: kobject_add of %s: waiting %u ms, then returning %d\n",
		(const char *)regs_get_kernel_argument(regs, 3),
		min(READ_ONCE(delay_ms), INJECT_DELAY_MAX_MS), call->err);
	mdelay(min(READ_ONCE(delay_ms), INJECT_DELAY_MAX_MS));
	if (call->err)
		inject_refuse(regs);
	return 0;
}

static int inject_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct inject_call *call = (void *)ri->data;

	/* -EINVAL from the NULL kobject (or 0), as the errno asked for. */
	if (call->err)
		regs_set_return_value(regs, call->err);
	return 0;
}

static struct kretprobe inject_probe = {
	.kp.symbol_name	= "kobject_add",
	.entry_handler	= inject_entry,
	.handler	= inject_ret,
	.data_size	= sizeof(struct inject_call),
	.maxactive	= 8,
};

static int __init rift_inject_init(void)
{
	return register_kretprobe(&inject_probe);
}

static void __exit rift_inject_exit(void)
{
	unregister_kretprobe(&inject_probe);
}

module_init(rift_inject_init);
module_exit(rift_inject_exit);

MODULE_DESCRIPTION("Rift VM harness: delays and fails riftblk-server's mapping kobject_add");
MODULE_LICENSE("GPL");
