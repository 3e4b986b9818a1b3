# SPDX-License-Identifier: GPL-2.0
#
# Loading and unloading Rift's modules from the tree; the server's
# host allow-list for this host.
# Sourced by lib.sh; not a test.

# Modules in load order; unload goes the other way.
RIFT_MODULES=(rift/rift-core rift/rift-client rift/rift-server test/rift-test-srv
	      test/rift-test riftblk/riftblk-common riftblk/riftblk-client
	      riftblk/riftblk-server)

rift_modname()
{
	basename "$1" | tr - _
}

rift_loaded()
{
	[ -d "/sys/module/$(rift_modname "$1")" ]
}

# rift_insmod PATH [PARAMS...]: load one module of the tree after the
# modules it depends on: the tree's own (riftblk-common under riftblk-
# client, say) from the tree, the kernel's with modprobe.  The modules
# come from RIFT_KO_TREE if set (the bench's BENCH_ALT build of another
# tree), else from the tree.
rift_insmod()
{
	local m=$1 kt=${RIFT_KO_TREE:-$RIFT_TREE} ko d t kv
	ko=$kt/$1.ko
	shift
	[ -f "$ko" ] || { echo "# $ko not built"; return 1; }
	for d in $(modinfo -F depends "$ko" | tr , ' '); do
		[ ! -d "/sys/module/$(echo "$d" | tr - _)" ] || continue
		t=
		for t in rift/$d riftblk/$d test/$d ""; do
			[ -z "$t" ] || [ -f "$kt/$t.ko" ] && break
		done
		if [ -n "$t" ]; then
			rift_insmod "$t" || return 1
		else
			modprobe "$d" 2>/dev/null || true
		fi
	done
	# The sanitizer kernel (RIFT_TIMEOUT_SCALE > 1) runs ten to fifty
	# times slower than the stock one: there the stall probe's answer
	# took more than the default 1000 ms again and again on paths that
	# were fine (check-debug transport_teardown: "no progress for
	# 1008..1402 ms" on both paths of two sessions, each a needless
	# failover and reconnect).  Stalls are judged on the stock kernel;
	# on that one they get 10 s unless the test names a value.
	if [ "$m" = rift/rift-client ] && [ "${RIFT_TIMEOUT_SCALE:-1}" -gt 1 ] &&
	   [[ " $* " != *" stall_timeout_ms="* ]]; then
		set -- "$@" stall_timeout_ms=10000
	fi
	# A variant of a test (failover_credits_off.sh, say) runs it with
	# other server parameters: RIFT_SRV_PARAMS goes to every load of
	# rift-server, a dependency's too, and each value must read back,
	# or the variant would quietly test the default.
	if [ "$m" = rift/rift-server ] && [ -n "${RIFT_SRV_PARAMS:-}" ]; then
		# shellcheck disable=SC2086 # a list of name=value words
		set -- $RIFT_SRV_PARAMS "$@"
	fi
	insmod "$ko" "$@" || return 1
	[ "$m" = rift/rift-server ] || return 0
	for kv in ${RIFT_SRV_PARAMS:-}; do
		t=$(cat "/sys/module/rift_server/parameters/${kv%%=*}" 2>/dev/null)
		[ "$t" = "${kv#*=}" ] && continue
		echo "# rift_server ${kv%%=*} is '$t', not ${kv#*=} (RIFT_SRV_PARAMS)"
		return 1
	done
}

# The server refuses hosts it does not know (allow_any_host=0): tests
# load it with this host, which the client names by its node name,
# allow-listed.
RIFT_SRV_KOBJ=/sys/kernel/rift_server

# rift_srv_allow_host NAME: admit host NAME (no secret)
rift_srv_allow_host()
{
	[ -d "$RIFT_SRV_KOBJ/hosts/$1" ] || echo "$1" > "$RIFT_SRV_KOBJ/add_host"
}

# rift_srv_load [PARAMS...]: rift-server with this host admitted
rift_srv_load()
{
	rift_insmod rift/rift-server "$@" && rift_srv_allow_host "$(uname -n)"
}

rift_load_all()
{
	local m
	for m in "${RIFT_MODULES[@]}"; do
		rift_loaded "$m" || rift_insmod "$m" || return 1
	done
}

rift_unload_all()
{
	local i m rc=0
	for ((i = ${#RIFT_MODULES[@]} - 1; i >= 0; i--)); do
		m=${RIFT_MODULES[i]}
		if rift_loaded "$m"; then
			rmmod "$(rift_modname "$m")" || rc=1
		fi
	done
	return $rc
}
