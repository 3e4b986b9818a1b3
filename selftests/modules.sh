#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 120
#
# Every Rift module loads, shows its sysfs class, and unloads cleanly,
# several times over (a leak or a stale registration shows up on the
# second round as an -EEXIST or a module that will not go).
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

CYCLES=3
ktap_header
ktap_plan $((CYCLES * 4))

classes_present()
{
	local c
	for c in rift-client rift-server riftblk-client riftblk-server; do
		[ -d "/sys/class/$c" ] || { echo "# /sys/class/$c missing"; return 1; }
	done
	[ -d /sys/class/riftblk-client/ctl ] ||
		{ echo "# /sys/class/riftblk-client/ctl missing"; return 1; }
}

none_loaded()
{
	local m
	for m in "${RIFT_MODULES[@]}"; do
		! rift_loaded "$m" || { echo "# $m still loaded"; return 1; }
	done
	[ ! -d /sys/class/rift-client ] && [ ! -d /sys/class/riftblk-client ]
}

defer rift_unload_all
for ((c = 1; c <= CYCLES; c++)); do
	ktap_check "cycle $c: all modules load" rift_load_all
	ktap_check "cycle $c: sysfs classes present" classes_present
	ktap_check "cycle $c: all modules unload" rift_unload_all
	ktap_check "cycle $c: nothing left behind" none_loaded
done
ktap_finished
