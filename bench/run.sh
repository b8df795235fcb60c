#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/run.sh BUILDDIR SRCDIR: every printk-shim benchmark, side by side, in
# one run (make bench). A round runs each throughput workload once per
# variant, naive (libkcompat's vfprintf), ideal (snprintf + write) and shim,
# in an order that rotates from round to round, so load from elsewhere on
# the machine falls on all three alike; the report takes the median of the
# rounds. Samples go to bench/results/samples-STAMP.txt; bench/report.awk
# turns them into the table (stdout and bench-STAMP.txt) and the CSV
# (bench-STAMP.csv); latest.txt and latest.csv are copies of the last run.
# bench/peer-bench adds the peers' section (its figures in peers-STAMP.dat
# and peers.dat, which make bench-plot draws), and bench/callgrind.sh the
# peers' instructions per line (not with BENCH_QUICK).
# Environment: BENCH_QUICK=1 for a smoke run of a few seconds; BENCH_ROUNDS,
# BENCH_LINES (lines per throughput run) override the defaults; AWK;
# BENCH_OLD=path/to/an/older/libprintk-shim.so runs the per-call rows (1 and
# 3 fragments and filtered-out lines, 1 thread, /dev/null) with that module
# too, as a fourth variant "old", in the same rounds.

set -eu
B=$1
S=$2
AWK=${AWK:-awk}
case ${BENCH_QUICK:-} in
''|0|no) quick= ;;
*) quick=1 ;;
esac
if [ -n "$quick" ]; then
	rounds=${BENCH_ROUNDS:-3} lines=${BENCH_LINES:-5000} spawns=50 fmtcalls=4000
else
	rounds=${BENCH_ROUNDS:-7} lines=${BENCH_LINES:-100000} spawns=300 fmtcalls=40000
fi

# Only what each variant sets: nothing inherited from the caller's shell.
for v in $(env | sed -n 's/^\(PRINTK_SHIM_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
unset LD_PRELOAD

mod=$B/shim/.libs/libprintk-shim.so
old=${BENCH_OLD:-}
counter=$B/bench/.libs/libmalloc-count.so
wrapper=$B/printk-shim
pb=$B/bench/printk-bench
results=$B/bench/results
stamp=$(date +%Y%m%d-%H%M%S)
samples=$results/samples-$stamp.txt
file=$results/out.tmp
sock=$(mktemp -d "${TMPDIR:-/tmp}/pks-bench.XXXXXX")
trap 'journald_stop; rm -rf "$sock" "$file"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$results"
: >"$samples"

for f in "$mod" "$counter" "$wrapper" "$pb" $old; do
	[ -e "$f" ] || { echo "bench: $f is missing: run make first" >&2; exit 1; }
done

# SHAPE [MODULE]: the env(1) words of the shim variant (mix and off filter at info).
shim_env() {
	case $1 in
	mix|off) echo "LD_PRELOAD=${2:-$mod} PRINTK_SHIM_OUTPUT=stderr PRINTK_SHIM_FORMAT=plain PRINTK_SHIM_LEVEL=info" ;;
	*) echo "LD_PRELOAD=${2:-$mod} PRINTK_SHIM_OUTPUT=stderr PRINTK_SHIM_FORMAT=plain" ;;
	esac
}

# ROW VARIANT: one throughput run; ROW is SHAPE-DEST-THREADS.
tp() {
	shape=${1%%-*} rest=${1#*-}
	dest=${rest%%-*} threads=${rest#*-}
	case $dest in null) to=/dev/null ;; *) to=$file ;; esac
	case $2 in
	naive) res=$("$pb" printk "$shape" "$threads" "$lines" 2>"$to") ;;
	ideal) res=$("$pb" ideal "$shape" "$threads" "$lines" 2>"$to") ;;
	shim) res=$(env $(shim_env "$shape") "$pb" printk "$shape" "$threads" "$lines" 2>"$to") ;;
	old) res=$(env $(shim_env "$shape" "$old") "$pb" printk "$shape" "$threads" "$lines" 2>"$to") ;;
	esac
	echo "tp $1 $2 $res" >>"$samples"
}

# ROW VARIANT: one run of a row that sets two of the module's settings side
# by side, 1-fragment lines from 1 thread: json (FORMAT prefix and json, to
# /dev/null) and file (stderr redirected to a file, and OUTPUT=file:PATH).
px() {
	rm -f "$file"
	case $1-$2 in
	json-*) res=$(env LD_PRELOAD="$mod" PRINTK_SHIM_OUTPUT=stderr PRINTK_SHIM_FORMAT="$2" \
		"$pb" printk 1 1 "$lines" 2>/dev/null) ;;
	file-redirect) res=$(env $(shim_env 1) "$pb" printk 1 1 "$lines" 2>"$file") ;;
	file-file) res=$(env LD_PRELOAD="$mod" PRINTK_SHIM_OUTPUT="file:$file" \
		PRINTK_SHIM_FORMAT=plain "$pb" printk 1 1 "$lines" 2>/dev/null) ;;
	esac
	echo "px $1 $2 $res" >>"$samples"
}

# The journal row's systemd-journald: a namespace instance of its own, run
# as a plain process, volatile and without rate limit, so that every entry
# is stored as it comes. Sets jpid, or jwhy to why there is none.
jns=pks-bench-$$
jdir=/run/systemd/journal.$jns
jconf=/etc/systemd/journald@$jns.conf
jpid= jwhy=
journald_start() {
	if [ "$(id -u)" != 0 ]; then
		jwhy="not root (the namespace instance and sd_journal_send's mount need it)"
		return
	fi
	if [ ! -x /lib/systemd/systemd-journald ]; then
		jwhy="no /lib/systemd/systemd-journald"
		return
	fi
	printf '[Journal]\nStorage=volatile\nRateLimitIntervalSec=0\nRuntimeMaxUse=64M\n' \
		>"$jconf" 2>/dev/null || { jwhy="cannot write $jconf"; return; }
	/lib/systemd/systemd-journald "$jns" >/dev/null 2>&1 &
	jpid=$!
	for _ in $(seq 500); do
		[ -S "$jdir/socket" ] && return
		kill -0 "$jpid" 2>/dev/null || break
		sleep 0.01
	done
	journald_stop
	jwhy="systemd-journald $jns did not start"
}
journald_stop() {
	if [ -n "$jpid" ]; then
		kill "$jpid" 2>/dev/null || :
		while kill -0 "$jpid" 2>/dev/null; do sleep 0.01; done
		jpid=
	fi
	rm -rf "$jdir" /run/log/journal/*."$jns" /var/log/journal/*."$jns" "$jconf"
}

# VARIANT: one journal run, libsystemd's sd_journal_send or the module, both
# to the namespace instance; the module's lines that went to stderr instead
# are counted.
jr() {
	n=$((lines / 4))
	case $1 in
	sd) res=$("$B/bench/journal-bench" sd "$n" "$jdir" 2>/dev/null) ;;
	shim) res=$(env LD_PRELOAD="$mod" PRINTK_SHIM_OUTPUT=journal \
		PRINTK_SHIM_JOURNAL_SOCKET="$jdir/socket" \
		"$B/bench/journal-bench" printk "$n" "$jdir" 2>"$sock/jerr")
		res="$res diverted=$(wc -l <"$sock/jerr")" ;;
	esac
	echo "jr journal $1 $res" >>"$samples"
}

# VARIANT: one syslog run against the counting receiver, from 1, 4 and 8 threads.
sys() {
	n=$((lines / 2))
	for t in 1 4 8; do
		case $1 in
		glibc) res=$("$B/bench/syslog-bench" glibc "$n" "$sock" "$t" 2>/dev/null) ;;
		shim) res=$(env LD_PRELOAD="$mod" PRINTK_SHIM_OUTPUT=syslog \
			PRINTK_SHIM_SYSLOG_SOCKET="$sock/log" \
			"$B/bench/syslog-bench" printk "$n" "$sock" "$t" 2>/dev/null) ;;
		esac
		echo "sys syslog-$t $1 $res" >>"$samples"
	done
}

# ROW VARIANT: instructions per line, from two callgrind runs of different length.
ir() {
	shape=${1%%-*}
	set -- "$1" "$2" 2000 12000
	case $2 in
	naive) vars= mode=printk ;;
	ideal) vars= mode=ideal ;;
	shim) vars=$(shim_env "$shape") mode=printk ;;
	prefix|json) vars="LD_PRELOAD=$mod PRINTK_SHIM_OUTPUT=stderr PRINTK_SHIM_FORMAT=$2"
		mode=printk shape=1 ;;
	esac
	for n in $3 $4; do
		rm -f "$sock/cg.$n"
		env $vars valgrind --tool=callgrind --callgrind-out-file=/dev/null \
			--log-file="$sock/cg.$n" "$pb" "$mode" "$shape" 1 "$n" >/dev/null 2>&1 || :
	done
	a=$(sed -n 's/.*Collected : *//p' "$sock/cg.$3" 2>/dev/null)
	b=$(sed -n 's/.*Collected : *//p' "$sock/cg.$4" 2>/dev/null)
	[ -n "$a" ] && [ -n "$b" ] || return 0
	echo "ir $1 $2 ir=$(((b - a) / ($4 - $3)))" >>"$samples"
}

rows="1-null-1 3-null-1 1-null-2 3-null-2 1-null-4 3-null-4
1-file-1 3-file-1 1-file-2 3-file-2 1-file-4 3-file-4 mix-null-1 off-null-1"
echo "bench: $rounds rounds, $lines lines per run; samples in $samples" >&2
journald_start
# The system's journald, if any, is never sent to; the report says whether it is there.
if [ -S /run/systemd/journal/socket ]; then
	echo "jr journal system present=1" >>"$samples"
else
	echo "jr journal system present=0" >>"$samples"
fi
if [ -n "$jwhy" ]; then
	echo "bench: journal row skipped: $jwhy" >&2
	echo "jr journal - why=$(echo "$jwhy" | tr ' ' '_')" >>"$samples"
fi
round=0
while [ "$round" -lt "$rounds" ]; do
	printf 'bench: round %d of %d\n' $((round + 1)) "$rounds" >&2
	for row in $rows; do
		case $((round % 3)) in
		0) tp "$row" naive; tp "$row" ideal; tp "$row" shim ;;
		1) tp "$row" ideal; tp "$row" shim; tp "$row" naive ;;
		*) tp "$row" shim; tp "$row" naive; tp "$row" ideal ;;
		esac
		case $old:$row in
		?*:1-null-1|?*:3-null-1|?*:off-null-1) tp "$row" old ;;
		esac
	done
	if [ $((round % 2)) -eq 0 ]; then
		sys glibc; sys shim
		px json prefix; px json json; px file redirect; px file file
		[ -z "$jpid" ] || { jr sd; jr shim; }
	else
		sys shim; sys glibc
		px json json; px json prefix; px file file; px file redirect
		[ -z "$jpid" ] || { jr shim; jr sd; }
	fi
	round=$((round + 1))
done

echo "bench: format, start-up, memory" >&2
echo "fmt format - $("$B/bench/format-bench" $((rounds * 5)) "$fmtcalls")" >>"$samples"
# The wrapper's warning that /bin/true reached no printk, once a spawn, is no figure.
echo "start startup - $("$B/bench/startup-bench" "$spawns" "$mod" "$wrapper" 2>/dev/null)" >>"$samples"
for i in 1 2 3; do
	echo "mem mem naive $("$B/bench/mem-bench" 64 2>/dev/null)" >>"$samples"
	echo "mem mem shim $(env $(shim_env 1) "$B/bench/mem-bench" 64 2>/dev/null)" >>"$samples"
done
# Its own line of the report: printed after the table.
ddline=$(env $(shim_env 1) PRINTK_SHIM_DYNDBG='func bench_on +p' \
	"$B/bench/dyndbg-bench" "$rounds" $((lines / 2)) 2>/dev/null)
for t in 1 4; do
	echo "alloc 3-null-$t naive $(env LD_PRELOAD="$counter" "$pb" printk 3 $t "$lines" 2>/dev/null)" >>"$samples"
	echo "alloc 3-null-$t shim $(env $(shim_env 3) LD_PRELOAD="$mod $counter" \
		"$pb" printk 3 $t "$lines" 2>/dev/null)" >>"$samples"
done

if [ -z "$quick" ] && command -v valgrind >/dev/null 2>&1; then
	echo "bench: instruction counts (callgrind)" >&2
	for row in 1-null-1 3-null-1 off-null-1; do
		for v in naive ideal shim; do
			ir "$row" "$v"
		done
	done
	ir json-null-1 prefix
	ir json-null-1 json
	sh "$S/bench/callgrind.sh" "$B" peers >"$results/peers-ir.tmp" 2>/dev/null || :
	# PRINTK_SHIM_RECORD: its own line of the report, like the dynamic debug one.
	for r in 0 1M; do
		for n in 2000 12000; do
			env $(shim_env off) XDG_RUNTIME_DIR="$sock" PRINTK_SHIM_RECORD=$r valgrind \
				--tool=callgrind --callgrind-out-file=/dev/null --log-file="$sock/rec.$r.$n" \
				"$pb" printk off 1 "$n" >/dev/null 2>&1 || :
		done
	done
	rec() { echo $((($(sed -n 's/.*Collected : *//p' "$sock/rec.$1.12000") -
		$(sed -n 's/.*Collected : *//p' "$sock/rec.$1.2000")) / 10000)); }
	recline="record: a line the level filter hides costs $(rec 1M) instructions with PRINTK_SHIM_RECORD=1M, $(rec 0) without (callgrind)"
fi

journald_stop
"$AWK" -v rounds="$rounds" -v lines="$lines" -v spawns="$spawns" -v quick="$quick" \
	-v csv="$results/bench-$stamp.csv" -f "$S/bench/report.awk" "$samples" |
	tee "$results/bench-$stamp.txt"
echo "$ddline" | tee -a "$results/bench-$stamp.txt"
[ -z "${recline:-}" ] || echo "$recline" | tee -a "$results/bench-$stamp.txt"
echo "bench: deferred printing" >&2
"$B/bench/defer-bench" all "$mod" "$rounds" "$lines" "$file" | tee -a "$results/bench-$stamp.txt"
echo "bench: the peers" >&2
"$B/bench/peer-bench" all "$mod" "$rounds" "$lines" "$file" "$results/peers-$stamp.dat" |
	tee -a "$results/bench-$stamp.txt"
cp "$results/peers-$stamp.dat" "$results/peers.dat"
if [ -s "$results/peers-ir.tmp" ]; then
	{ echo; cat "$results/peers-ir.tmp"; } | tee -a "$results/bench-$stamp.txt"
	rm -f "$results/peers-ir.tmp"
fi
cp "$results/bench-$stamp.txt" "$results/latest.txt"
cp "$results/bench-$stamp.csv" "$results/latest.csv"
echo "bench: table in $results/bench-$stamp.txt, figures in $results/bench-$stamp.csv" >&2
