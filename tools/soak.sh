#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak [SOAK_MIN=N]: selftests/soak.sh in one VM for N minutes
# (default 30): riftblk under fio verification while links flap, go
# silent and the server reloads.  Results under build/soak/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export RIFT_SOAK_MIN=${1:-${RIFT_SOAK_MIN:-30}}
case $RIFT_SOAK_MIN in
''|*[!0-9]*|0) echo "soak: minutes must be a positive number: '$RIFT_SOAK_MIN'" >&2; exit 2 ;;
esac
export RIFT_RESULTS=${RIFT_RESULTS:-$top/build/soak}
echo "soak: $RIFT_SOAK_MIN minutes; results in $RIFT_RESULTS"
exec "$top/tools/vm/run-selftests.sh" soak
