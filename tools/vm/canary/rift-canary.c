// SPDX-License-Identifier: GPL-2.0
/*
 * The VM harness's canary: a module that WARNs on load, so the selftest
 * harness_canary can prove the post-test kernel log check catches it.
 * Never part of Rift itself.
 */

#include <linux/module.h>
#include <linux/bug.h>

static int __init rift_canary_init(void)
{
	WARN(1, "rift-canary: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit rift_canary_exit(void)
{
}

module_init(rift_canary_init);
module_exit(rift_canary_exit);

MODULE_DESCRIPTION("Rift VM harness canary (WARNs on load)");
MODULE_LICENSE("GPL");
