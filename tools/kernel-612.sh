#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rift's second kernel: Debian 12's Linux 6.12 (bookworm-security), to
# build and test the modules against the newer kernel API as well
# (include/rift/rift-compat.h).  Nothing is installed as a package: the
# newest linux-headers-6.12.*-amd64 (with its -common and the matching
# linux-kbuild) and linux-image-6.12.*-amd64 (the image and its modules)
# are fetched with apt-get download and unpacked into
# $RIFT_CACHE/kernel-6.12/<release>/root, so tools/kver.sh, DKMS and
# every other build on this machine keep seeing only Debian's 6.1.
#
# The headers' Makefile includes its -common twin by the absolute path
# /usr/src/...; that include is pointed into the cache, so
#   make KVER=<release> KDIR=$(tools/kernel-612.sh --kdir)
# builds the modules for 6.12 (what make check-612 does).
#
# --install puts the kernel where the VM harness looks for one, as
# tools/debug-kernel.sh does for its kernel: /lib/modules/<release>/
# with the modules, the image as vmlinuz, build and source symlinks into
# the cache, then depmod.  Nothing goes to /boot, so tools/kver.sh (which
# needs /boot/vmlinuz-<release>) never picks 6.12 by default.  Beware
# that dh-dkms packages then build for it too on a machine whose running
# kernel is not installed (a container): make check-packages does.
#
# usage: kernel-612.sh              fetch and unpack (if needed); print
#                                   KVER= and KDIR=
#        kernel-612.sh --install    the same, then install for the VM
#        kernel-612.sh --kver       print the release cached, else exit 1
#        kernel-612.sh --kdir       print its headers directory, else exit 1
#
# env: RIFT_612_RELEASE=6.12.N+deb12-amd64 takes that release instead of
#      the newest apt knows; RIFT_612_ROOT=DIR installs under DIR/lib/modules
#      instead of /lib/modules (to look at what --install does).
set -euo pipefail
RIFT_CACHE=${RIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rift}
base=$RIFT_CACHE/kernel-6.12
sysroot=${RIFT_612_ROOT:-}

die()
{
	echo "kernel-612: $*" >&2
	exit 1
}

# The newest release unpacked completely, or the one asked for.
cached()
{
	local d

	if [ -n "${RIFT_612_RELEASE:-}" ]; then
		[ -f "$base/$RIFT_612_RELEASE/done" ] || return 1
		echo "$RIFT_612_RELEASE"
		return 0
	fi
	for d in "$base"/*/done; do
		[ -f "$d" ] || continue
		d=${d%/done}
		echo "${d##*/}"
	done | sort -V | tail -n 1 | grep .
}

kdir_of()
{
	echo "$base/$1/root/usr/src/linux-headers-$1"
}

installed()
{
	local kv=$1 m=$sysroot/lib/modules/$1

	[ -f "$m/vmlinuz" ] && [ -f "$m/modules.dep" ] &&
		[ "$(readlink -f "$m/build")" = "$(readlink -f "$(kdir_of "$kv")")" ]
}

install_kernel()
{
	local kv=$1 root=$base/$1/root m=$sysroot/lib/modules/$1

	[ "$(id -u)" -eq 0 ] || die "installing into $m needs root"
	# Debian's own package of this release owns these files: leave them.
	if [ -f "$sysroot/boot/vmlinuz-$kv" ] ||
		dpkg-query -W -f='${Status}' "linux-image-$kv" 2>/dev/null | grep -q 'ok installed'; then
		die "linux-image-$kv is installed as a package; nothing to do"
	fi
	rm -rf "$m"
	mkdir -p "$m"
	cp -a "$root/lib/modules/$kv/." "$m/"
	ln -sfn "$(kdir_of "$kv")" "$m/build"
	ln -sfn "$root/usr/src/linux-headers-${kv%-amd64}-common" "$m/source"
	cp "$root/boot/vmlinuz-$kv" "$m/vmlinuz"
	cp "$root/boot/config-$kv" "$m/config"
	depmod -a -b "${sysroot:-/}" "$kv"
	installed "$kv" || die "install into $m incomplete"
	# The promise above: the default kernel is still the stock one.
	if [ "$("$(dirname "$0")/kver.sh" 2>/dev/null || true)" = "$kv" ]; then
		die "tools/kver.sh now picks $kv: /boot/vmlinuz-$kv exists?"
	fi
}

mode=${1:-}
case "$mode" in
--kver | --kdir)
	kv=$(cached) || exit 1
	if [ "$mode" = --kver ]; then
		echo "$kv"
	else
		kdir_of "$kv"
	fi
	exit 0
	;;
"" | --install) ;;
*) die "usage: kernel-612.sh [--install|--kver|--kdir]" ;;
esac

t0=$SECONDS
# Which release: the one asked for, else what the 6.12 meta-package
# depends on now, else (apt lists unreachable) the newest cached.
kv=${RIFT_612_RELEASE:-}
if [ -z "$kv" ]; then
	kv=$(apt-cache depends linux-headers-6.12-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-headers-\(6\.12\..*-amd64\)$/\1/p' | head -n 1)
fi
[ -n "$kv" ] || kv=$(cached) ||
	die "apt knows no linux-headers-6.12-amd64 (bookworm-security in sources.list? apt-get update?)"
abi=${kv%-amd64}
dir=$base/$kv
root=$dir/root
kdir=$(kdir_of "$kv")

if [ ! -f "$dir/done" ]; then
	mkdir -p "$dir"
	exec 9> "$dir/.lock"
	flock -n 9 || die "another run is filling $dir"
	rm -rf "$root" "$dir/debs"
	mkdir -p "$dir/debs" "$root"
	pkgs=("linux-headers-$kv" "linux-headers-$abi-common"
	      "linux-kbuild-$abi" "linux-image-$kv")
	echo "kernel-612: $(date +%T) downloading ${pkgs[*]}"
	# As root into a directory _apt cannot enter, apt warns that it
	# downloads unsandboxed: the log keeps that, and any error.
	(cd "$dir/debs" && apt-get download -qq "${pkgs[@]}") > "$dir/download.log" 2>&1 ||
		{ cat "$dir/download.log" >&2; die "apt-get download failed"; }
	for p in "${pkgs[@]}"; do
		ls "$dir/debs/${p}_"*.deb >/dev/null 2>&1 || die "$p was not downloaded"
	done
	t_dl=$((SECONDS - t0))
	t1=$SECONDS
	echo "kernel-612: $(date +%T) unpacking into $root"
	for deb in "$dir"/debs/*.deb; do
		nice -n 19 dpkg-deb -x "$deb" "$root"
	done
	# The one absolute path kbuild follows: the -common tree's Makefile.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kdir/Makefile"
	grep -q "^include $root/usr/src/linux-headers-$abi-common/Makefile\$" "$kdir/Makefile" ||
		die "unexpected $kdir/Makefile: $(head -n 3 "$kdir/Makefile")"
	# scripts/ and tools/ are relative symlinks to linux-kbuild's.
	[ -x "$kdir/scripts/basic/fixdep" ] ||
		die "no kbuild tools at $kdir/scripts (linux-kbuild-$abi)"
	if [ ! -d "$root/lib/modules/$kv/kernel" ] || [ ! -f "$root/boot/vmlinuz-$kv" ]; then
		die "the image package lacks the image or its modules"
	fi
	dpkg-deb -f "$dir"/debs/linux-image-"$kv"_*.deb Version > "$dir/version"
	rm -rf "$dir/debs"
	t_unpack=$((SECONDS - t1))
	echo "download ${t_dl}s, unpack ${t_unpack}s ($(du -sh "$root" | cut -f1))" > "$dir/times"
	echo "$kv" > "$dir/release"
	touch "$dir/done"
fi

if [ "$mode" = --install ] && ! installed "$kv"; then
	echo "kernel-612: installing into $sysroot/lib/modules/$kv (no /boot entry)"
	install_kernel "$kv"
fi

echo "kernel-612: $kv ($(cat "$dir/version")) in $dir: $(cat "$dir/times"); this run $((SECONDS - t0))s"
if installed "$kv"; then
	echo "kernel-612: installed for the VM: $sysroot/lib/modules/$kv/vmlinuz"
fi
echo "KVER=$kv"
echo "KDIR=$kdir"
