// SPDX-License-Identifier: GPL-2.0
/*
 * The VM harness's canary: a module that commits one deliberate fault on
 * load, so the selftests harness_canary and debug_canary can prove the
 * harness's post-test checks catch it.  Never part of Rift itself.
 *
 * fault=warn (default) WARNs: any kernel.  The others need the sanitizer
 * kernel of tools/debug-kernel.sh:
 *   kasan    reads one byte past a kmalloc'ed object (KASAN)
 *   ubsan    indexes an array out of its bounds (UBSAN)
 *   sleep    may sleep under a spinlock (DEBUG_ATOMIC_SLEEP)
 *   leak     loses a kmalloc'ed object (kmemleak, on the harness's scan)
 *   lockdep  takes two mutexes in both orders (lockdep; it turns itself
 *            off for the rest of the boot after one report)
 */

#include <linux/module.h>
#include <linux/bug.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *fault = "warn";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "warn, kasan, ubsan, sleep, leak or lockdep");

/* Read with READ_ONCE, so the compiler can neither see the faults nor drop them. */
static int canary_index = 4;

static DEFINE_SPINLOCK(canary_spin);
static DEFINE_MUTEX(canary_a);
static DEFINE_MUTEX(canary_b);

static int canary_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);
	char c;

	if (!p)
		return -ENOMEM;
	c = READ_ONCE(p[12 + READ_ONCE(canary_index)]);
	kfree(p);
	pr_info("rift-canary: read %d past the end\n", c);
	return 0;
}

static int canary_ubsan(void)
{
	int a[4] = { 1, 2, 3, 4 };
	int i = READ_ONCE(canary_index);

	pr_info("rift-canary: a[%d] = %d\n", i, a[i]);
	return 0;
}

static int canary_sleep(void)
{
	spin_lock(&canary_spin);
	might_sleep();
	spin_unlock(&canary_spin);
	return 0;
}

static int canary_leak(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	/* The only reference dies with this frame. */
	pr_info("rift-canary: lost a 64-byte object\n");
	return p ? 0 : -ENOMEM;
}

static int canary_lockdep(void)
{
	mutex_lock(&canary_a);
	mutex_lock(&canary_b);
	mutex_unlock(&canary_b);
	mutex_unlock(&canary_a);
	mutex_lock(&canary_b);
	mutex_lock(&canary_a);
	mutex_unlock(&canary_a);
	mutex_unlock(&canary_b);
	return 0;
}

static int __init rift_canary_init(void)
{
	if (!strcmp(fault, "kasan"))
		return canary_kasan();
	if (!strcmp(fault, "ubsan"))
		return canary_ubsan();
	if (!strcmp(fault, "sleep"))
		return canary_sleep();
	if (!strcmp(fault, "leak"))
		return canary_leak();
	if (!strcmp(fault, "lockdep"))
		return canary_lockdep();
	WARN(1, "rift-canary: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit rift_canary_exit(void)
{
}

module_init(rift_canary_init);
module_exit(rift_canary_exit);

MODULE_DESCRIPTION("Rift VM harness canary (one deliberate fault on load)");
MODULE_LICENSE("GPL");
