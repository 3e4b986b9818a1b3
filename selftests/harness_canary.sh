#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rift-topology: single
# rift-timeout: 60
# rift-expect-dmesg: WARNING:.*rift-canary
#
# The harness checks the kernel log after every test.  This test loads a
# module that WARNs on load; the harness passes it only if its check
# caught the warning, proving that a Rift module that WARNs would fail
# its test instead of slipping through.
cd "$(dirname "$0")" && . ./lib.sh
rift_require_root

ko=$RIFT_TREE/tools/vm/canary/rift-canary.ko
[ -f "$ko" ] || ktap_skip_all "canary module not built"
ktap_header
ktap_plan 2
ktap_check "canary loads" insmod "$ko"
ktap_check "canary unloads" rmmod rift_canary
ktap_finished
