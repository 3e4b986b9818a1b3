#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-packages`: build the Debian packages (rift-dkms, riftctl)
# from a clean copy of the tree with dpkg-buildpackage, check them with
# lintian (no errors allowed), install them on this machine, check that
# DKMS built and installed the modules for the Debian kernel headers the
# tree builds against (tools/kver.sh, or KVER=), that riftctl, its man page
# and its bash completion are installed, then purge both packages and
# check that nothing is left.  Prints ok / not ok per step and ends with
# "check-packages: N passed, N failed"; exits 1 on any failure.
#
# Needs root (it installs packages) and the build dependencies
# (tools/deps.sh installs them).  The packages are left in
# build/packages/.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

[ "$(id -u)" -eq 0 ] || { echo "check-packages: run as root (it installs packages)" >&2; exit 1; }
tools/deps.sh || exit 1

kver=${KVER:-$(tools/kver.sh)}
ver=$(dpkg-parsechangelog -l debian/changelog -S Version)
out=$top/build/packages
work=$(mktemp -d /tmp/rift-pkg.XXXXXX)
pass=0 fail=0

step()
{
	local desc=$1
	shift
	if "$@" > "$out/step.log" 2>&1; then
		echo "ok - $desc"
		pass=$((pass + 1))
		return 0
	fi
	echo "not ok - $desc"
	sed 's/^/#   /' "$out/step.log" | tail -n 25
	fail=$((fail + 1))
	return 1
}

cleanup()
{
	# Never leave the packages installed, whatever failed.
	if dpkg-query -W rift-dkms riftctl >/dev/null 2>&1; then
		dpkg --purge rift-dkms riftctl >/dev/null 2>&1
	fi
	rm -rf "$work"
}
trap cleanup EXIT

rm -rf "$out"
mkdir -p "$out"
exec 3>&1
echo "# rift: check-packages (version $ver, kernel $kver)"

# The tree as git knows it (new files included), not its build products.
copy_tree()
{
	mkdir -p "$work/rift-$ver" &&
	git ls-files -co --exclude-standard -z |
		xargs -0 cp --parents -t "$work/rift-$ver"
}

build()
{
	(cd "$work/rift-$ver" && dpkg-buildpackage -us -uc -b) &&
	cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/
}

# lintian: errors fail; warnings are shown.
lint()
{
	lintian --fail-on error --tag-display-limit 0 "$out"/rift_*.changes \
		> "$out/lintian.log" 2>&1
	local rc=$?
	grep -v "running with root privileges" "$out/lintian.log" | sed 's/^/# lintian: /' >&3
	return $rc
}

installed()
{
	dpkg -i "$out"/rift-dkms_"$ver"_all.deb "$out"/riftctl_"$ver"_*.deb || return 1
	# The postinst builds for the running and the newest kernel; the one
	# the tree targets must be built too (dkms does nothing if it is).
	dkms status -m rift -v "$ver" -k "$kver" | grep -q installed ||
		dkms install -m rift -v "$ver" -k "$kver"
}

dkms_built()
{
	local m f
	dkms status -m rift -v "$ver" -k "$kver"
	dkms status -m rift -v "$ver" -k "$kver" | grep -q ": installed" || return 1
	for m in rift-core rift-client rift-server riftblk-common riftblk-client riftblk-server; do
		f=$(find "/lib/modules/$kver/updates/dkms" -name "$m.ko*" | head -n 1)
		[ -n "$f" ] || { echo "$m not installed"; return 1; }
		modinfo -F vermagic "$f" | grep -q "^$kver " ||
			{ echo "$f: vermagic $(modinfo -F vermagic "$f")"; return 1; }
		echo "$f"
	done
	# The test ULP and the client's test hooks (CONFIG_RIFT_DEBUG) are
	# for the selftests only.
	! find "/lib/modules/$kver/updates/dkms" -name 'rift-test*' | grep -q . &&
	f=$(find "/lib/modules/$kver/updates/dkms" -name 'rift-client.ko*' | head -n 1) &&
	! modinfo -F parm "$f" | grep -q '^test_proto_version:'
}

riftctl_installed()
{
	/usr/sbin/riftctl --version | grep -qx "riftctl $ver" &&
	/usr/sbin/riftctl --help >/dev/null &&
	man -w riftctl | grep -q /usr/share/man/man8/riftctl.8 &&
	[ -f /usr/share/bash-completion/completions/riftctl ] &&
	grep -q 'SYMLINK+="disk/by-id/riftblk-' /lib/udev/rules.d/60-riftblk.rules &&
	grep -q "^ExecStart=/usr/sbin/riftctl apply --client" /lib/systemd/system/rift-client.service &&
	grep -q "^ExecStart=/usr/sbin/riftctl apply --server" /lib/systemd/system/rift-server.service &&
	! systemctl is-enabled rift-client.service >/dev/null 2>&1 &&
	# What systemd itself finds wrong in the units (syntax, a command
	# that is not there: a unit naming /usr/local/sbin/riftctl fails here).
	systemd-analyze verify --man=no /lib/systemd/system/rift-client.service \
		/lib/systemd/system/rift-server.service &&
	bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null;
		  . /usr/share/bash-completion/completions/riftctl && complete -p riftctl'
}

purged()
{
	dpkg --purge rift-dkms riftctl || return 1
	! dkms status -m rift | grep -q . &&
	[ ! -e "/usr/src/rift-$ver" ] && [ ! -e /usr/sbin/riftctl ] &&
	! find "/lib/modules/$kver/updates/dkms" -name 'rift*' 2>/dev/null | grep -q .
}

if dpkg-query -W rift-dkms riftctl >/dev/null 2>&1; then
	echo "check-packages: rift-dkms or riftctl is installed already; purge it first" >&2
	exit 1
fi
step "copy of the tree" copy_tree &&
step "dpkg-buildpackage -us -uc -b: rift-dkms and riftctl" build &&
step "lintian: no errors" lint
if [ $fail -eq 0 ]; then
	step "packages install" installed &&
	step "DKMS built and installed the modules for $kver, without test code" dkms_built
	step "riftctl, man page, bash completion and systemd units (not enabled, systemd-analyze verify clean) installed" riftctl_installed
	step "purge: no DKMS module, source or file left" purged
fi
echo "check-packages: $pass passed, $fail failed"
[ $fail -eq 0 ]
