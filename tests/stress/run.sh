#!/bin/sh
# SPDX-License-Identifier: MIT
#
# make stress: run tests/stress/stress under the shim with the given flags,
# stderr appended to a log, under a timeout of its own on top of the
# program's watchdog; then check the log and print the figures.
#
#   abs_top_builddir=... sh tests/stress/run.sh [-t N] [-n N] [-c N] [-u USEC] [-w S]
set -eu

b=${abs_top_builddir:?}
module=$b/shim/.libs/libprintk-shim.so
prog=$b/tests/stress/stress
work=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-stress.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# A module built with ASan: the fixture loads the runtime itself (see
# tests/fault-helper.bash).
if readelf -d "$module" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-verify_asan_link_order=0:detect_leaks=0}"
fi

start=$(date +%s.%N)
status=0
timeout -k 10 "${STRESS_TIMEOUT:-900}" env PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$module" \
	"$prog" "$@" >"$work/summary" 2>>"$work/log" || status=$?
end=$(date +%s.%N)
if [ $status -ne 0 ]; then
	echo "stress: the run failed with status $status (124: timeout, 3: watchdog)" >&2
	cat "$work/summary" >&2
	exit 1
fi
"$prog" check "$work/log" "$work/summary"
awk -v s="$start" -v e="$end" -v bytes="$(wc -c <"$work/log")" '
	/^thread/ { lines += $4; sig += $6; usr += $8; threads++ }
	/^child/ { child += $4; children++ }
	END {
		t = e - s
		printf "stress: %d threads: %d lines, %d from timer-signal handlers, %d from SIGUSR1 handlers; %d children: %d lines\n",
			threads - 1, lines, sig, usr, children, child
		printf "stress: %.1f s, %.0f lines/s, %.1f MB written; lines lost: 0\n",
			t, (lines + sig + usr + child) / t, bytes / 1e6
	}' "$work/summary"
