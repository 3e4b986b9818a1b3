# SPDX-License-Identifier: GPL-2.0
#
# Soft-RoCE links: veth pairs with rxe on both ends, the two-VM NIC,
# a link brought back after it went down; the two VMs' rendezvous.
# Sourced by lib.sh; not a test.

rift_rxe_prepare()
{
	# rdma_rxe computes the ICRC with crc32; without autoload in some
	# initramfs setups the generic implementation must be there first.
	modprobe crc32_generic 2>/dev/null
	# RoCE assumes a lossless link.  A veth pair drops what exceeds the
	# receive backlog, and a retransmission makes rxe (6.1) re-execute
	# queued REG_MRs, which wedges the QP: give bursts of 128 KiB
	# requests room under a slow (TCG) guest.
	sysctl -qw net.core.netdev_max_backlog=16384 2>/dev/null
	modprobe rdma_rxe && modprobe rdma_ucm && modprobe veth
}

# rift_rxe_pairs N: N links, each a veth pair riftaI/riftbI in one netns
# with rxe on both ends: 198.18.I.1 (riftaI) <-> 198.18.I.2 (riftbI).
# The addresses are RFC 2544 benchmarking space, private to the VM.
rift_rxe_pairs()
{
	local i a b
	rift_rxe_prepare || return 1
	ip link set lo up
	for ((i = 0; i < $1; i++)); do
		a=rifta$i
		b=riftb$i
		ip link add "$a" type veth peer name "$b" || return 1
		defer ip link del "$a"
		ip addr add "198.18.$i.1/24" dev "$a"
		ip addr add "198.18.$i.2/24" dev "$b"
		ip link set "$a" up
		ip link set "$b" up
		# Both ends are local addresses; without accept_local rdma_cm
		# cannot resolve the route from one to the other.
		sysctl -qw net.ipv4.conf.all.accept_local=1 \
			"net.ipv4.conf.$a.accept_local=1" \
			"net.ipv4.conf.$b.accept_local=1"
		# Each end's neighbour entry, given: rdma_cm's first address
		# resolution over a fresh pair otherwise waits its whole
		# timeout (Rift's RIFT_RESOLVE_TIMEOUT_MS, 5 s) although the
		# ARP exchange is done in milliseconds (rdma_cma trace, session
		# 17: cm_id_attach -> ADDR_RESOLVED 5.12 s, 14 ms with these),
		# which cost every test 5 s per path.  A link taken down
		# flushes them, so reconnects after a flap still resolve by ARP.
		ip neigh replace "198.18.$i.1" lladdr "$(cat "/sys/class/net/$a/address")" dev "$b" nud permanent
		ip neigh replace "198.18.$i.2" lladdr "$(cat "/sys/class/net/$b/address")" dev "$a" nud permanent
		rdma link add "rxe_$a" type rxe netdev "$a" || return 1
		defer rdma link delete "rxe_$a"
		rdma link add "rxe_$b" type rxe netdev "$b" || return 1
		defer rdma link delete "rxe_$b"
	done
}

# rift_rxe_eth0 ADDR: rxe on the VM's NIC (the two-VM link).
rift_rxe_eth0()
{
	rift_rxe_prepare || return 1
	ip link set lo up
	ip link set eth0 up || return 1
	ip addr add "$1/24" dev eth0 || return 1
	defer ip addr del "$1/24" dev eth0
	rdma link add rxe_eth0 type rxe netdev eth0 || return 1
	defer rdma link delete rxe_eth0
}

# rift_rdma_link_active NAME: the rxe port is ACTIVE.
rift_rdma_link_active()
{
	rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# rift_link_up DEV: bring a test link (riftbI) back up after
# "ip link set dev DEV down".  rxe (6.1) on a veth pair in one netns stops
# receiving on DEV once its admin state bounced while RC connections used
# it: rping between the two addresses then fails just like Rift does, and
# flushing routes or neighbours does not help.  Its rxe device is created
# anew, as after a NIC replacement, which is what brings the link back.
rift_link_up()
{
	ip link set dev "$1" up || return 1
	rdma link delete "rxe_$1" || return 1
	rdma link add "rxe_$1" type rxe netdev "$1"
}

# Two-VM rendezvous through the results directory both VMs share.
rift_sync_post()
{
	mkdir -p "$RIFT_OUT/sync"
	echo "$2" > "$RIFT_OUT/sync/$1"
}

rift_sync_wait()
{
	rift_wait_until "$2" test -e "$RIFT_OUT/sync/$1"
}

# rift_sync_read NAME: what was posted as NAME.
rift_sync_read()
{
	cat "$RIFT_OUT/sync/$1" 2>/dev/null
}

# Which boot of the server VM this is, in a two-VM test that has the host
# replace its server VM ("# rift-server-restarts: N", see
# tools/vm/run-selftests.sh): 1 at first, 2 after the first kill, ...
RIFT_INCARNATION=${RIFT_INCARNATION:-1}

# rift_server_vm_kill TEST: on the server VM, have the host kill this VM
# now, with no shutdown (a power loss), and boot a fresh one that runs
# TEST again with RIFT_INCARNATION one higher.  Returns (and fails) only
# if the host did not kill the VM within 60 s.
rift_server_vm_kill()
{
	rift_sync_post "$1.kill-server" "$RIFT_INCARNATION"
	sleep 60
	echo "# the host did not kill this VM (rift-server-restarts in the test's header?)"
	return 1
}
