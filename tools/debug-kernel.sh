#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build Rift's sanitizer kernel: Debian's linux-source-6.1 (the same
# version as the stock image the VM harness boots) configured from
# x86_64_defconfig + kvm_guest.config + tools/debug-kernel/rift-debug.config
# (KASAN, KFENCE, UBSAN, lockdep, atomic-sleep, debug objects, kmemleak,
# init_on_free, and what the selftests load: rxe, null_blk, nvme-rdma,
# nvmet-rdma, rnbd, veth, netem, 9p, virtio).
#
# Patches in tools/debug-kernel/patches/ (-p1 on the source) fix defects
# of the kernel itself that its sanitizers report under Rift's tests (each
# says what it fixes, and the evidence); the stock kernel keeps them.
#
# The result is cached in $RIFT_CACHE/debug-kernel/<source version>-<hash
# of the fragment>/ and never rebuilt while present, but for what a patch
# added, changed or removed since touches (make rebuilds only that).  It is installed as
# /lib/modules/<release>/ (release 6.1.N-riftdebug), with build and source
# symlinks to the built tree, so `make KVER=<release>` builds Rift against
# it, and with the image at /lib/modules/<release>/vmlinuz.  Nothing goes
# to /boot: tools/kver.sh needs /boot/vmlinuz-<release>, so the stock
# kernel stays the default everywhere.
#
# usage: debug-kernel.sh            build (if needed) and install
#        debug-kernel.sh --kver     print the release if built, else exit 1
#        debug-kernel.sh --dir      print the cache directory of this config
#
# The compiler runs under nice -n 19 so that VM tests running meanwhile
# (which have timeouts) keep the CPUs.  Takes about an hour on 2 cores.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
RIFT_CACHE=${RIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rift}
frag=$top/tools/debug-kernel/rift-debug.config
pdir=$top/tools/debug-kernel/patches
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1 || true)

die()
{
	echo "debug-kernel: $*" >&2
	exit 1
}

[ -n "$tarball" ] || die "no /usr/src/linux-source-6.1.tar.*; run tools/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed; run tools/deps.sh"
key=$srcver-$(sha1sum < "$frag" | cut -c1-12)
dir=$RIFT_CACHE/debug-kernel/$key
tree=$dir/linux-source-6.1
# The patches the tree has applied: copies, by name.
applied=$dir/applied

# patched: the tree has applied exactly the patches of $pdir.
patched()
{
	diff -r -q "$pdir" "$applied" >/dev/null 2>&1
}

installed()
{
	local kv
	kv=$(cat "$dir/release" 2>/dev/null) || return 1
	[ -f "$dir/done" ] && patched && [ -f "/lib/modules/$kv/vmlinuz" ] &&
		[ "$(readlink -f "/lib/modules/$kv/build")" = "$(readlink -f "$tree")" ] &&
		[ -f "/lib/modules/$kv/modules.dep" ]
}

install_kernel()
{
	local kv
	kv=$(cat "$dir/release")
	[ "$(id -u)" -eq 0 ] || die "installing into /lib/modules/$kv needs root"
	rm -rf "/lib/modules/$kv"
	make -s -C "$tree" INSTALL_MOD_STRIP=1 modules_install >/dev/null
	ln -sfn "$tree" "/lib/modules/$kv/build"
	ln -sfn "$tree" "/lib/modules/$kv/source"
	cp "$tree/arch/x86/boot/bzImage" "/lib/modules/$kv/vmlinuz"
	cp "$tree/.config" "/lib/modules/$kv/config"
	depmod -a "$kv"
}

case "${1:-}" in
--kver)
	installed || exit 1
	cat "$dir/release"
	exit 0
	;;
--dir)
	echo "$dir"
	exit 0
	;;
"") ;;
*) die "usage: debug-kernel.sh [--kver|--dir]" ;;
esac

if [ -f "$dir/done" ] && patched; then
	installed || install_kernel
	echo "debug-kernel: $(cat "$dir/release") cached in $dir ($(cat "$dir/times"))"
	exit 0
fi

# What a kernel build needs beyond tools/deps.sh's packages.
missing=()
for p in flex bison libelf-dev libssl-dev bc; do
	[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

mkdir -p "$dir"
exec 9> "$dir/.lock"
flock -n 9 || die "another build of $dir is running"

t0=$SECONDS
phase()
{
	echo "debug-kernel: $(date +%T) $*"
}

# Phase 1: the tree.  An interrupted build resumes where make stopped.
t_unpack=0 t_config=0
if [ ! -f "$dir/unpacked" ]; then
	phase "unpacking $tarball ($srcver)"
	rm -rf "$tree" "$dir/configured"
	nice -n 19 tar -xf "$tarball" -C "$dir"
	touch "$dir/unpacked"
	t_unpack=$((SECONDS - t0))
fi

# Phase 2: configuration.  merge_config.sh -m merges without checking;
# every line of the fragment is checked below, after olddefconfig.
if [ ! -f "$dir/configured" ]; then
	t1=$SECONDS
	phase "configuring"
	make -s -C "$tree" x86_64_defconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
		kernel/configs/kvm_guest.config "$frag" >/dev/null)
	make -s -C "$tree" olddefconfig >/dev/null
	bad=0
	while read -r line; do
		case "$line" in
		CONFIG_*=*)
			grep -qxF "$line" "$tree/.config" || {
				echo "debug-kernel: $line did not survive olddefconfig: $(grep -E "^(# )?${line%%=*}[= ]" "$tree/.config" || echo absent)" >&2
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			! grep -q "^$sym=" "$tree/.config" || {
				echo "debug-kernel: $sym should be off" >&2
				bad=1
			}
			;;
		esac
	done < "$frag"
	[ $bad -eq 0 ] || die "config fragment not honoured; fix $frag"
	touch "$dir/configured"
	t_config=$((SECONDS - t1))
fi

# Phase 2b: the patches.  One applied before but changed or gone since is
# reverted with the copy kept when it was applied; then each not applied
# is.  A change means the tree must be built and installed again.
t_patch=$SECONDS
mkdir -p "$applied"
for f in "$applied"/*.patch; do
	[ -f "$f" ] || continue
	cmp -s "$f" "$pdir/$(basename "$f")" && continue
	phase "reverting $(basename "$f")"
	patch -s -R -p1 -d "$tree" < "$f" || die "cannot revert $(basename "$f")"
	rm -f "$f" "$dir/done"
done
for f in "$pdir"/*.patch; do
	[ -f "$f" ] || continue
	[ -f "$applied/$(basename "$f")" ] && continue
	phase "applying $(basename "$f")"
	patch -s -p1 -d "$tree" < "$f" || die "cannot apply $(basename "$f")"
	cp "$f" "$applied/"
	rm -f "$dir/done"
done
t_patch=$((SECONDS - t_patch))

# Phase 3: the build, nice'd.
t2=$SECONDS
phase "building with $(nproc) jobs under nice -n 19 (log: $dir/build.log)"
if ! nice -n 19 make -C "$tree" -j"$(nproc)" bzImage modules > "$dir/build.log" 2>&1; then
	grep -E 'error|Error' "$dir/build.log" | head -n 20 >&2
	die "build failed; log: $dir/build.log"
fi
t_build=$((SECONDS - t2))
# Only now is CONFIG_LOCALVERSION in include/config/auto.conf.
kv=$(make -s -C "$tree" kernelrelease)
case "$kv" in
*-riftdebug) ;;
*) die "kernel release '$kv' lacks -riftdebug: it would collide with Debian's" ;;
esac
echo "$kv" > "$dir/release"

t3=$SECONDS
phase "installing into /lib/modules/$kv"
install_kernel
t_install=$((SECONDS - t3))

fmt()
{
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}
# The times of the build from scratch stay; a rebuild after a patch says
# its own beside them.
line="unpack $(fmt $t_unpack), config $(fmt $t_config), patch $(fmt $t_patch), build $(fmt $t_build), install $(fmt $t_install), total $(fmt $((SECONDS - t0)))"
if [ "$t_unpack" -gt 0 ] || [ ! -f "$dir/times" ]; then
	echo "$line" > "$dir/times"
else
	echo "$line" > "$dir/times.rebuild"
fi
touch "$dir/done"
if [ -f "$dir/times.rebuild" ] && [ "$t_unpack" -eq 0 ]; then
	echo "debug-kernel: rebuilt $kv after its patches changed: $(cat "$dir/times.rebuild") (from scratch: $(cat "$dir/times"))"
else
	echo "debug-kernel: built $kv in $(fmt $((SECONDS - t0))): $(cat "$dir/times")"
fi
echo "debug-kernel: boot it with RIFT_KERNEL=debug (make check-debug, make selftest)"
