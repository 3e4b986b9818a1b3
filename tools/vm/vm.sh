#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot Debian's kernel (or the sanitizer kernel: RIFT_KERNEL=debug, see
# tools/vm/lib.sh) under qemu (TCG) with the host root shared read-only
# over 9p, the Rift tree at /mnt/rift (ro) and OUT at /mnt/out (rw), and run
# a shell command inside a chroot of the host root.  Exits with the
# command's status; 124 when the hard timeout killed the VM; 125 when the
# VM died without reporting one (panic, qemu error).
#
# usage: vm.sh --out DIR --name NAME [--smp N] [--mem MB] [--timeout S]
#              [--net isolated|udp:LOCALPORT:PEERPORT] [--mac MAC]
#              [--append ARGS] [--slub-debug FLAGS|off] [--disk FILE]
#              [--nic virtio|virtio-timer|e1000]
#              -- COMMAND...
#
# The kernel boots with slub_debug=FZPU (the selftests' memory checks);
# --slub-debug off boots without it, as the benchmark does: allocation
# tracking saves a stack trace per allocation and would weigh on every
# figure.
#
# --disk FILE gives the guest a virtio disk (/dev/vda) backed by FILE,
# raw; qemu writes what the guest writes through to the host's page
# cache, so it outlives a SIGKILL of qemu: the disk of a server VM that
# the harness kills and replaces (rift-server-disk, run-selftests.sh).
#
# KVM is not used: on the machines this runs on, KVM guests hang at boot.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out= name=vm smp=2 mem= tmo=900 net=isolated mac=52:54:00:12:34:56 append=
slub=FZPU
disk=
nic=${RIFT_VM_NIC:-virtio}
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--net) net=$2; shift 2 ;;
	--mac) mac=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--slub-debug) slub=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--nic) nic=$2; shift 2 ;;
	--) shift; break ;;
	*) vm_die "unknown option $1" ;;
	esac
done
[ -n "$out" ] && [ $# -gt 0 ] || vm_die "usage: vm.sh --out DIR --name NAME -- COMMAND..."
[ "$slub" != off ] || slub=
mkdir -p "$out"
out=$(cd "$out" && pwd)

kv=$(vm_kver)
kimage=$(vm_kimage "$kv")
initrd=$(vm_initrd "$kv")
scale=$(vm_timeout_scale "$kv")
# The sanitizer kernel: kmemleak on (scanned after each test by
# guest-selftests.sh; it never scans by itself), page_owner on (the
# allocation stack of every page in use, read after each test: kmemleak
# sees no page memory), and every KASAN report printed, not only the
# first of the boot.  pci=noacpi: the instrumented ACPI interpreter runs
# into its 30 s loop timeout on each virtio device's _PRT (2 minutes of
# every boot) to find a legacy interrupt those devices never use (they
# take MSI-X).
dbgargs=
! vm_is_debug "$kv" || dbgargs="kmemleak=on page_owner=on kasan_multi_shot pci=noacpi"
# 2 GiB, and 4 GiB for the sanitizer kernel: its own bookkeeping (KASAN's
# shadow, kmemleak's objects, page_owner, slub_debug's tracking) leaves
# 1.5 GiB of the 2 usable, and check-debug transport_teardown ran that
# down to 40 MiB free under IO (direct reclaim, rxe's GFP_ATOMIC
# "Failed allocating skb", both paths failed with a local QP operation
# error, and a guest too slow to finish the test).
if [ -z "$mem" ]; then
	mem=2048
	! vm_is_debug "$kv" || mem=4096
fi

# The command runs under bash in the guest, from the Rift tree.
{
	echo "export RIFT_TREE=/mnt/rift RIFT_OUT=/mnt/out RIFT_VM=$name RIFT_KVER=$kv RIFT_TIMEOUT_SCALE=$scale"
	# The parameters of a soak run (tools/soak.sh) and make check-long's
	# RIFT_LONG (longer loops in the tests that have them) reach the test.
	for v in ${!RIFT_SOAK_@} ${!RIFT_LONG@}; do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf '%q ' "$@"
	echo
} > "$out/$name.cmd"
rm -f "$out/$name.status" "$out/qemu-$name.pid"

case "$net" in
isolated)
	# restrict=on: the guest reaches neither the host nor the outside.
	netargs=(-netdev "user,id=n0,restrict=on,ipv6=off")
	;;
udp:*:*)
	IFS=: read -r _ lport pport <<<"$net"
	# Connectionless, so either VM can die and be replaced.
	netargs=(-netdev "socket,id=n0,udp=127.0.0.1:$pport,localaddr=127.0.0.1:$lport")
	;;
tap:*)
	# A tap device on a host bridge (run-selftests.sh, RIFT_VM_LINK=bridge):
	# the kernel's bridge forwards between the VMs, as a switch would.
	netargs=(-netdev "tap,id=n0,ifname=${net#tap:},script=no,downscript=no")
	;;
*) vm_die "bad --net $net" ;;
esac
# The NIC (--nic, or RIFT_VM_NIC): virtio-net by default; virtio-timer
# makes qemu send the guest's packets from a timer rather than on each
# notification; e1000 emulates an Intel NIC, which a test that needs
# minutes of heavy two-way RDMA traffic asks for (rift-vm-nic, see
# tools/vm/testmeta.sh: virtio-net's transmit queue stops for good under
# that load; tools/vm/hmp.py reads the queue's state from the host).
case "$nic" in
virtio) nic=virtio-net-pci ;;
virtio-timer) nic=virtio-net-pci,tx=timer ;;
e1000) ;;
*) vm_die "bad NIC model $nic" ;;
esac
netargs+=(-device "$nic,netdev=n0,id=nic0,mac=$mac")
[ -z "$disk" ] || netargs+=(-drive "file=$disk,format=raw,if=virtio,cache=writeback")

# log_buf_len: the default 128 KiB ring wraps within one cycle test
# under a flood of info messages, and a WARNING early in the test would
# be gone before the harness reads the log after it.
log="$out/console-$name.log"
# A human-monitor socket (tools/vm/hmp.py), to read a wedged guest's
# devices from the host.  Under /tmp: a unix socket path is limited to
# 108 bytes and results directories are deeper than that.
mon=/tmp/rift-mon-$$-$name.sock
echo "$mon" > "$out/mon-$name.path"
trap 'rm -f "$mon"' EXIT
rc=0
timeout -k 10 "$tmo" qemu-system-x86_64 -nodefaults -display none \
	-machine pc -smp "$smp" -m "$mem" \
	-kernel "$kimage" -initrd "$initrd" \
	-append "console=ttyS0 loglevel=5 log_buf_len=16M panic=-1 ${slub:+slub_debug=$slub} $dbgargs riftvm=$name $append" \
	-serial "file:$log" -no-reboot -pidfile "$out/qemu-$name.pid" \
	-monitor "unix:$mon,server=on,wait=off" \
	"${netargs[@]}" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$RIFT_TOP,mount_tag=rift,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
	</dev/null >"$out/qemu-$name.stderr" 2>&1 || rc=$?

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	echo "vm($name): killed (hard timeout ${tmo}s, or the harness watchdog); console: $log" >&2
	exit 124
fi
if [ ! -s "$out/$name.status" ]; then
	echo "vm($name): died without a status (qemu rc=$rc); console: $log" >&2
	tail -n 20 "$log" >&2 || true
	exit 125
fi
exit "$(cat "$out/$name.status")"
