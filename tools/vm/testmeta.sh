# SPDX-License-Identifier: GPL-2.0
# Per-test metadata lives in the test's header comments:
#   # rift-topology: single | two-vm
#   # rift-timeout: SECONDS          (default: selftests/settings; a shell
#                                      arithmetic expression, which may use
#                                      RIFT_SOAK_* variables of the run)
#   # rift-expect-dmesg: REGEX       (harness self-test only; may repeat:
#                                      every one must match a report)
#   # rift-server-restarts: N        (two-vm: the server VM may be killed
#                                      and replaced N times; see
#                                      tools/vm/run-selftests.sh)
#   # rift-server-disk: MB            (two-vm: the server VM, and every
#                                      one that replaces it, has /dev/vda,
#                                      one MB MiB disk that outlives kills)
#   # rift-vm-nic: virtio | e1000    (two-vm: both VMs' NIC model,
#                                      default e1000; RIFT_VM_NIC
#                                      overrides; see tools/vm/vm.sh)
#   # rift-allow-skip: REASON        (the test may skip, or skip points,
#                                      for REASON; without it a skip fails
#                                      the test: tools/vm/guest-selftests.sh)

testmeta_get()
{
	sed -n "s/^# rift-$2: *//p" "$1" | head -n 1
}

testmeta_timeout()
{
	local t
	t=$(testmeta_get "$1" timeout)
	[ -n "$t" ] || t=$(sed -n 's/^timeout=//p' "$(dirname "$1")/settings")
	# Slow kernels (the sanitizer one) stretch every timeout alike.  An
	# expression may name a parameter of the run (soak.sh: its length),
	# which a run that does not set it leaves unset: it counts as 0 there
	# (the expressions pick their default then), not as an error of a
	# caller's set -u, which left the timeout empty and the test killed
	# at once.
	(set +u; echo $(( (${t:-120}) * ${RIFT_TIMEOUT_SCALE:-1} )))
}

testmeta_topology()
{
	local t
	t=$(testmeta_get "$1" topology)
	echo "${t:-single}"
}

# testmeta_list MAKEFILE VAR: the tests (names without .sh) of the list
# VAR in MAKEFILE (TEST_PROGS, DEBUG_TEST_PROGS), backslash continuations
# included, in order.
testmeta_list()
{
	awk -v var="$2" '$0 ~ "^" var " *[+:]*=" { on = 1; sub(/^[^=]*= */, "") }
			 on { more = sub(/\\$/, ""); print; on = more }' "$1" |
		tr ' \t' '\n\n' | sed -n 's/\.sh$//p'
}
