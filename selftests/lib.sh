# SPDX-License-Identifier: GPL-2.0
#
# Helpers for Rift's kselftests, sourced by every test; a test runs as
# root, inside the VM harness or on a real host.  One file per concern:
#   lib-ktap.sh       KTAP output, deferred cleanup, waiting
#   lib-modules.sh    loading Rift's modules from the tree
#   lib-net.sh        Soft-RoCE links, the two VMs' rendezvous
#   lib-transport.sh  the transport tests (test ULP, path state, counters)
#   lib-leak.sh       slab leak accounting
#   lib-riftblk.sh    riftblk: exports, mapping, fio, soak, stalls

for __rift_lib in ktap modules net transport leak riftblk; do
	. "$(dirname "${BASH_SOURCE[0]}")/lib-$__rift_lib.sh"
done
unset __rift_lib
