#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The jump cases of printk-shim(7) WHEN A LINE IS WRITTEN at any scale: the
# abnormal fixture prints LINES lines of SIZE bytes while a timeout handler
# re-armed USEC microseconds after each jump leaves printk by siglongjmp.
# Checks that no line (nor any piece of a long one) comes out more than
# twice, that every piece is whole, that VmSize did not grow with the number
# of jumps, and that the lines after the storm are whole.
#
#   abs_top_builddir=... [MODULE=...] sh tests/stress/jumps.sh SIZE LINES USEC [LOG]
set -eu

b=${abs_top_builddir:?}
module=${MODULE:-$b/shim/.libs/libprintk-shim.so}
size=$1 lines=$2 usec=$3
log=${4:-/dev/null}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/printk-shim-jumps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

if readelf -d "$module" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-verify_asan_link_order=0:detect_leaks=0}"
fi
# The lines go through awk as they come (a 60 KB line 5000 times is 300 MB),
# and to LOG when one is named.
env PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$module" \
	"$b/tests/fixtures/abnormal" timeout "$size" "$lines" "$usec" 2>&1 >"$tmp/out" |
tee "$log" |
awk -v size="$size" -v outf="$tmp/out" '
	/^<6>L[0-9]+ x*$/ { id = $1; piece = 0; key = id }
	/^<6>x+$/ { piece++; key = id "." piece }
	/^<6>/ { n[key]++; if (n[key] > max) max = n[key]; total++
		 if (!($0 ~ /^<6>(L[0-9]+ )?x+$/)) torn++
		 else if (size <= 1000 && /^<6>L/ && length($0) != length($1) + 1 + size) torn++ }
	!/^<6>/ { tail = tail $0 "\n" }
	END {
		getline out < outf; split(out, o, " "); grew = o[4]
		printf "jumps: %d pieces, at most %d copies, %d torn, VmSize grew %d kB\n",
			total, max, torn, grew
		bad = max > 2 || torn || grew > 4096 ||
		      tail != "<5>AFTER one two\n<5>U one two\n<5>M one two\n"
		if (bad) printf "jumps: FAIL; the lines after:\n%s", tail
		exit bad
	}'
