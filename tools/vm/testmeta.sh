# SPDX-License-Identifier: GPL-2.0
# Per-test metadata lives in the test's header comments:
#   # rift-topology: single | two-vm
#   # rift-timeout: SECONDS          (default: selftests/settings)
#   # rift-expect-dmesg: REGEX       (harness self-test only)
#   # rift-server-restarts: N        (two-vm: the server VM may be killed
#                                      and replaced N times; see
#                                      tools/vm/run-selftests.sh)

testmeta_get()
{
	sed -n "s/^# rift-$2: *//p" "$1" | head -n 1
}

testmeta_timeout()
{
	local t
	t=$(testmeta_get "$1" timeout)
	[ -n "$t" ] || t=$(sed -n 's/^timeout=//p' "$(dirname "$1")/settings")
	echo "${t:-120}"
}

testmeta_topology()
{
	local t
	t=$(testmeta_get "$1" topology)
	echo "${t:-single}"
}
