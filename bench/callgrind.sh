#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/callgrind.sh BUILDDIR (make bench-callgrind): instructions per line
# of bench/printk-bench under valgrind --tool=callgrind, which load from
# elsewhere does not move. Each figure is the difference of two runs of
# different length over the difference of their lines, so start-up and
# warm-up cancel out. Rows: the ideal; the module with 1- and 3-fragment
# lines and filtered-out ones, PRINTK_SHIM_FORMAT=plain, to /dev/null; the
# module with format prefix and json. With BENCH_OLD=path/to/an/older
# libprintk-shim.so, the module's rows again with that one, on the same
# printk-bench binary. The peers' table (bench/peer-bench's line, and
# "peers" as a second argument prints it alone) counts each thread apart:
# the caller, and the thread a deferred or asynchronous logger writes from;
# with BENCH_OLD, the module's rows of it again with that one.

set -eu
B=$1
what=${2:-all}
pb=$B/bench/printk-bench
peer=$B/bench/peer-bench
mod=$B/shim/.libs/libprintk-shim.so
old=${BENCH_OLD:-}
short=2000 long=12000

for v in $(env | sed -n 's/^\(PRINTK_SHIM_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
unset LD_PRELOAD
command -v valgrind >/dev/null 2>&1 || { echo "bench-callgrind: valgrind is missing" >&2; exit 1; }
[ -z "$old" ] || [ -e "$old" ] || { echo "bench-callgrind: $old is missing" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pks-cg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# MODE SHAPE ENV...: instructions per line.
ir() {
	mode=$1 shape=$2
	shift 2
	for n in $short $long; do
		env "$@" valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--log-file="$tmp/cg.$n" "$pb" "$mode" "$shape" 1 "$n" >/dev/null 2>&1 || :
	done
	a=$(sed -n 's/.*Collected : *//p' "$tmp/cg.$short")
	b=$(sed -n 's/.*Collected : *//p' "$tmp/cg.$long")
	echo $(((b - a) / (long - short)))
}

# MODULE FORMAT LEVEL OUTPUT: the env words of the module's variant.
shim() {
	echo "LD_PRELOAD=$1 PRINTK_SHIM_OUTPUT=${4:-stderr} PRINTK_SHIM_FORMAT=$2${3:+ PRINTK_SHIM_LEVEL=$3}"
}

# VARIANT SHAPE ENV...: "caller worker" instructions per line of peer-bench,
# the worker being every thread but the caller (the shim's printer, spdlog's pool).
peer_ir() {
	v=$1 shape=$2
	shift 2
	for n in 4000 24000; do
		rm -f "$tmp/pc.$n"*
		env PEER_SETTLE=1 "$@" valgrind --tool=callgrind --separate-threads=yes \
			--callgrind-out-file="$tmp/pc.$n" --log-file="$tmp/pclog.$n" \
			"$peer" run "$v" "$shape" 1 "$n" >/dev/null 2>&1 || :
	done
	sum() { cat "$@" 2>/dev/null | sed -n 's/^totals: //p' | awk '{ s += $1 } END { print s + 0 }'; }
	c=$(( ($(sum "$tmp/pc.24000-01") - $(sum "$tmp/pc.4000-01")) / 20000 ))
	w=$(( ($(sum "$tmp"/pc.24000-0[2-9]) - $(sum "$tmp"/pc.4000-0[2-9])) / 20000 ))
	echo "$c $w"
}

# Rows LABEL|VARIANT|SHAPE|ENV on standard input: one line of the table each.
rows() {
	while IFS='|' read -r label v shape vars; do
		[ -n "$label" ] || continue
		set -- $(peer_ir "$v" "$shape" $vars)
		[ "$2" -gt 0 ] && t=$2 || t=-
		printf '%-40s %8d %8s\n' "$label" "$1" "$t"
	done
}

peers() {
	echo "Instructions per line beside the peers (callgrind, user space, 1 thread, /dev/null)"
	echo "line \"worker %d: processed %u items in %s\": caller; the logger's own thread"
	printf '%-40s %8s %8s\n' workload caller thread
	sh="LD_PRELOAD=$mod PRINTK_SHIM_FORMAT=plain"
	rows <<-EOF
	ideal (snprintf + write)|ideal|1|
	shim, 1 fragment|shim|1|$sh
	shim, 3 fragments|shim|3|$sh
	shim, filtered out|shim|1|$sh PRINTK_SHIM_LEVEL=warning
	shim DEFER=1, 1 fragment|shim-defer|1|$sh PRINTK_SHIM_DEFER=1
	shim DEFER=1, 3 fragments|shim-defer|3|$sh PRINTK_SHIM_DEFER=1
	stdio _IOFBF, 1 fragment|stdio|1|
	stdio _IOFBF, 3 fragments|stdio|3|
	spdlog sync|spdlog|1|
	spdlog async, block|spdlog-async-block|1|
	spdlog async, overrun|spdlog-async-overrun|1|
	EOF
	[ -n "$old" ] || return 0
	# the module's rows again with BENCH_OLD, in the same run
	sh="LD_PRELOAD=$old PRINTK_SHIM_FORMAT=plain"
	rows <<-EOF
	BENCH_OLD shim, 1 fragment|shim|1|$sh
	BENCH_OLD shim, 3 fragments|shim|3|$sh
	BENCH_OLD shim, filtered out|shim|1|$sh PRINTK_SHIM_LEVEL=warning
	BENCH_OLD shim DEFER=1, 1 fragment|shim-defer|1|$sh PRINTK_SHIM_DEFER=1
	BENCH_OLD shim DEFER=1, 3 fragments|shim-defer|3|$sh PRINTK_SHIM_DEFER=1
	EOF
}

if [ "$what" = peers ]; then
	peers
	exit 0
fi

echo "Instructions per line (callgrind, user space, 1 thread, /dev/null)"
if [ -n "$old" ]; then
	printf '%-34s %8s %8s %8s %8s\n' workload ideal old new "new/old"
else
	printf '%-34s %8s %8s\n' workload ideal shim
fi
# LABEL:SHAPE:LEVEL:OUTPUT; the file output writes to a file of the run's own.
for row in "1 fragment:1::" "3 fragments:3::" "1 fragment, all filtered out:off:info:" \
	"1 fragment, OUTPUT=file:PATH:1::file:$tmp/out"; do
	label=${row%%:[0-9o]*} rest=${row#"$label":}
	shape=${rest%%:*} rest=${rest#*:}
	level=${rest%%:*} output=${rest#*:}
	i=$(ir ideal "$shape")
	new=$(ir printk "$shape" $(shim "$mod" plain "$level" "$output"))
	if [ -n "$old" ]; then
		o=$(ir printk "$shape" $(shim "$old" plain "$level" "$output"))
		printf '%-34s %8d %8d %8d %7.2fx\n' "$label" "$i" "$o" "$new" \
			"$(echo "$new $o" | awk '{ print $1 / $2 }')"
	else
		printf '%-34s %8d %8d\n' "$label" "$i" "$new"
	fi
done

echo
echo "PRINTK_SHIM_FORMAT=json beside prefix (callgrind, 1 thread, /dev/null)"
printf '%-34s %8s %8s %8s\n' workload prefix json "json/prefix"
for row in "1 fragment:1" "3 fragments:3"; do
	label=${row%%:*} shape=${row#*:}
	p=$(ir printk "$shape" $(shim "$mod" prefix))
	j=$(ir printk "$shape" $(shim "$mod" json))
	printf '%-34s %8d %8d %10.2fx\n' "$label" "$p" "$j" "$(echo "$j $p" | awk '{ print $1 / $2 }')"
done

echo
echo "PRINTK_SHIM_RECORD=1M beside off: a line recorded (callgrind, 1 thread, /dev/null)"
printf '%-34s %8s %8s %8s\n' workload off record "record-off"
for row in "1 fragment:1:" "1 fragment, all filtered out:off:info"; do
	label=${row%%:*} rest=${row#*:}
	shape=${rest%%:*} level=${rest#*:}
	o=$(ir printk "$shape" $(shim "$mod" plain "$level"))
	r=$(ir printk "$shape" $(shim "$mod" plain "$level") XDG_RUNTIME_DIR="$tmp" PRINTK_SHIM_RECORD=1M)
	printf '%-34s %8d %8d %+10d\n' "$label" "$o" "$r" "$((r - o))"
done

echo
peers
