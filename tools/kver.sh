#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the newest kernel version that has both Debian headers
# (/lib/modules/KV/build) and a bootable image (/boot/vmlinuz-KV).
# The running kernel is never consulted: on build machines it has no headers.
set -eu
best=
for d in /lib/modules/*/build; do
	[ -e "$d/Makefile" ] || continue
	kv=${d#/lib/modules/}
	kv=${kv%/build}
	[ -f "/boot/vmlinuz-$kv" ] || continue
	best=$(printf '%s\n%s\n' "$best" "$kv" | sed '/^$/d' | sort -V | tail -n 1)
done
[ -n "$best" ] || exit 1
echo "$best"
