# SPDX-License-Identifier: GPL-2.0
# Host-side helpers of the VM harness, sourced by the tools/vm scripts.

RIFT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RIFT_CACHE=${RIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rift}

vm_die()
{
	echo "vm: $*" >&2
	exit 1
}

# Kernel the VM boots: the one the modules are built against.  KVER
# names it; else RIFT_KERNEL=debug picks the sanitizer kernel of
# tools/debug-kernel.sh, RIFT_KERNEL=612 Debian's 6.12 of
# tools/kernel-612.sh; else tools/kver.sh the newest stock kernel.
vm_kver()
{
	local kv

	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
	elif [ "${RIFT_KERNEL:-}" = debug ]; then
		"$RIFT_TOP/tools/debug-kernel.sh" --kver ||
			vm_die "RIFT_KERNEL=debug: no sanitizer kernel for this config; run tools/debug-kernel.sh (about an hour)"
	elif [ "${RIFT_KERNEL:-}" = 612 ]; then
		kv=$("$RIFT_TOP/tools/kernel-612.sh" --kver) &&
			[ -f "/lib/modules/$kv/vmlinuz" ] ||
			vm_die "RIFT_KERNEL=612: Linux 6.12 not installed for the VM; run tools/kernel-612.sh --install"
		echo "$kv"
	else
		"$RIFT_TOP/tools/kver.sh" || vm_die "no kernel with headers and image; run tools/deps.sh"
	fi
}

# vm_is_debug KV: KV is a sanitizer kernel of tools/debug-kernel.sh.
vm_is_debug()
{
	case "$1" in
	*-riftdebug) return 0 ;;
	esac
	return 1
}

# The image of kernel KV: Debian's in /boot; the sanitizer kernel's
# beside its modules, so tools/kver.sh never picks it by default.
vm_kimage()
{
	if [ -f "/boot/vmlinuz-$1" ]; then
		echo "/boot/vmlinuz-$1"
	elif [ -f "/lib/modules/$1/vmlinuz" ]; then
		echo "/lib/modules/$1/vmlinuz"
	else
		vm_die "no image for kernel $1 (/boot/vmlinuz-$1, /lib/modules/$1/vmlinuz)"
	fi
}

# Factor for every test's timeout (and the boot grace): RIFT_TIMEOUT_SCALE,
# else 3 on a sanitizer kernel (KASAN, lockdep and kmemleak under TCG run
# about that much slower), else 1.
vm_timeout_scale()
{
	if [ -n "${RIFT_TIMEOUT_SCALE:-}" ]; then
		echo "$RIFT_TIMEOUT_SCALE"
	elif vm_is_debug "$1"; then
		echo 3
	else
		echo 1
	fi
}

# Build (once per kernel and init script) the busybox initramfs holding
# just what is needed to mount the host root over 9p.
vm_initrd()
{
	local kv=$1 tag r f
	tag=$(cat "$RIFT_TOP/tools/vm/guest-init" "$RIFT_TOP/tools/vm/lib.sh" | sha1sum | cut -c1-12)
	f="$RIFT_CACHE/initrd-$kv-$tag.gz"
	if [ ! -f "$f" ]; then
		mkdir -p "$RIFT_CACHE"
		r=$(mktemp -d)
		mkdir -p "$r"/{bin,sbin,proc,sys,dev,host} "$r/lib/modules/$kv"
		cp /bin/busybox "$r/bin/"
		for a in sh mount modprobe insmod chroot poweroff mkdir cat tr sed sync echo; do
			ln -s busybox "$r/bin/$a"
		done
		for m in virtio_pci 9pnet_virtio 9p; do
			modprobe -S "$kv" --show-depends "$m" | awk '/^insmod/{print $2}'
		done | sort -u | while read -r k; do
			mkdir -p "$r/$(dirname "$k")"
			# Debian's 6.12 compresses its modules; busybox's modprobe
			# loads an ELF file whatever its name, so they go in
			# uncompressed, under the name modules.dep gives them.
			case "$k" in
			*.ko.xz) xz -dc "$k" > "$r/$k" ;;
			*) cp "$k" "$r/$k" ;;
			esac
		done
		cp /lib/modules/"$kv"/modules.* "$r/lib/modules/$kv/"
		printf '#!/bin/sh\nexec /bin/chroot /host /sbin/modprobe "$@"\n' > "$r/sbin/modprobe-host"
		chmod +x "$r/sbin/modprobe-host"
		cp "$RIFT_TOP/tools/vm/guest-init" "$r/init"
		chmod +x "$r/init"
		(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1 > "$f.tmp.$$")
		mv "$f.tmp.$$" "$f"
		rm -rf "$r"
	fi
	echo "$f"
}

# A free UDP port on loopback for the two-VM link.
vm_free_port()
{
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 20000))
		if ! ss -Huan "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
	vm_die "no free port"
}
