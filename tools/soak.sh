#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak [SOAK_MIN=N] [SOAK_KILL_MIN=K]: selftests/soak.sh in one VM
# for N minutes (default 30): riftblk under fio verification while links
# flap, go silent and the server reloads; then selftests/soak_kill.sh in
# two VMs for K minutes (default N / 3, at least 5): the same fio while
# the server VM loses power and is replaced every 150 s.  Results under
# build/soak/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export RIFT_SOAK_MIN=${1:-${RIFT_SOAK_MIN:-30}}
case $RIFT_SOAK_MIN in
''|*[!0-9]*|0) echo "soak: minutes must be a positive number: '$RIFT_SOAK_MIN'" >&2; exit 2 ;;
esac
k=$((RIFT_SOAK_MIN / 3))
[ $k -ge 5 ] || k=5
export RIFT_SOAK_KILL_MIN=${2:-${RIFT_SOAK_KILL_MIN:-$k}}
case $RIFT_SOAK_KILL_MIN in
''|*[!0-9]*|0) echo "soak: kill minutes must be a positive number: '$RIFT_SOAK_KILL_MIN'" >&2; exit 2 ;;
esac
export RIFT_RESULTS=${RIFT_RESULTS:-$top/build/soak}
echo "soak: $RIFT_SOAK_MIN minutes in one VM, then $RIFT_SOAK_KILL_MIN with server VM kills; results in $RIFT_RESULTS"
exec "$top/tools/vm/run-selftests.sh" soak soak_kill
