#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Reads kernel log lines on stdin; prints those that report a kernel
# problem and exits 1 if there is any.  Shared by the guest runner (after
# every test) and the host (over the console log of a VM that died).
pat='WARNING:|BUG:|BUG [^ ]+ \(|kernel BUG|Oops|general protection fault'
pat+='|Kernel panic|UBSAN:|KASAN:|Slab corruption|Redzone|Poison overwritten'
pat+='|Object padding|Padding overwritten|list_add corruption|list_del corruption'
pat+='|refcount_t:|possible circular locking|possible recursive locking'
pat+='|inconsistent lock state|lockdep|INFO: task .* blocked for more than'
pat+='|rcu: INFO:|self-detected stall|soft lockup|hard LOCKUP|Call Trace:'
pat+='|stack-protector|double free|use-after-free'
# The sanitizer kernel's (tools/debug-kernel.sh) reports; most also say
# BUG: or WARNING:, matched here by name so that none depends on that.
pat+='|KFENCE:|ODEBUG:|sleeping function called from invalid context'
pat+='|scheduling while atomic|suspicious RCU usage|DEBUG_LOCKS_WARN_ON'
pat+='|possible irq lock inversion|bad unlock balance|held lock freed'
pat+='|lock held when returning to user space|suspected memory leak'
if grep -E -- "$pat"; then
	exit 1
fi
exit 0
