#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package Rift needs to build and test, then unpack
# the kernel's own static checkers (checkpatch.pl, kernel-doc) and the
# comparison peers' sources (rtrs/rnbd, for `make bench` only) from
# Debian's linux-source-6.1 tarball into a cache directory, and fetch the
# second kernel Rift builds for, Debian's 6.12 (tools/kernel-612.sh:
# headers and image unpacked into the cache, nothing installed; about
# 125 MB, measured 10 s on a near mirror) unless one is cached already.
#
# Idempotent: a second run with everything present touches nothing and
# takes well under a second.  Must run as root on Debian 12.
set -euo pipefail

PKGS=(
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	make gcc clang libclang-rt-14-dev sparse perl python3 bc
	qemu-system-x86 busybox-static cpio kmod iproute2 procps util-linux
	rdma-core ibverbs-utils rdmacm-utils perftest fio nvme-cli
	xz-utils e2fsprogs iputils-ping librdmacm-dev libibverbs-dev
	libjson-c-dev pkg-config debhelper dh-dkms dkms lintian dpkg-dev
	udev fdisk dwarves
)

RIFT_CACHE=${RIFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rift}

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: missing packages: ${missing[*]}" >&2
		echo "deps: run this script as root to install them" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" \
		>/dev/null
fi

# checkpatch.pl, kernel-doc and the comparison sources come from the same
# kernel series as the headers, so their rules match what we build for.
src_tar=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
[ -n "$src_tar" ] || { echo "deps: linux-source-6.1 tarball missing" >&2; exit 1; }
stamp="$RIFT_CACHE/linux-source-6.1/.rift-extracted"
if [ ! -f "$stamp" ] || [ "$src_tar" -nt "$stamp" ]; then
	echo "deps: unpacking checkers from $src_tar"
	mkdir -p "$RIFT_CACHE"
	rm -rf "$RIFT_CACHE/linux-source-6.1"
	tar -xf "$src_tar" -C "$RIFT_CACHE" \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/scripts/kernel-doc \
		linux-source-6.1/drivers/infiniband/ulp/rtrs \
		linux-source-6.1/drivers/block/rnbd
	touch "$stamp"
fi

# 6.12's headers come with the vmlinux its modules' BTF is generated
# against, hence pahole (dwarves) above; 6.1's have none and skip it.
if ! "$(dirname "$0")/kernel-612.sh" --kver >/dev/null 2>&1; then
	"$(dirname "$0")/kernel-612.sh" >/dev/null ||
		{ echo "deps: fetching Linux 6.12 failed (tools/kernel-612.sh)" >&2; exit 1; }
fi
exit 0
