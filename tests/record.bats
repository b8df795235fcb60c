#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The record buffer (printk-shim(7) RECORD BUFFER): PRINTK_SHIM_RECORD and
# printk-shim --dmesg --pid, against tests/fixtures/ctl-run driven through
# a FIFO (as in control.bats), while it runs and after it died.

load helper
load ctl-helper

setup() {
	ctl_setup
}

# dmesg ARG...: printk-shim --dmesg --pid=$PID ARG..., as capture's.
dmesg_() {
	capture "$WRAPPER" --dmesg --pid="$PID" "$@"
}

@test "record: off by default; no buffer is made" {
	start
	tell "info a"
	done_
	[ ! -e "$CTL/$PID.rec" ]
	dmesg_
	[ "$status" -eq 1 ]
	err_is "printk-shim: pid $PID: no record buffer (it did not run with PRINTK_SHIM_RECORD, or it was removed)
"
}

@test "record: a buffer cut short while the process runs: no SIGBUS; made again, from the next line" {
	start PRINTK_SHIM_RECORD=64K
	tell "info a"
	done_
	truncate -s 0 "$CTL/$PID.rec"
	tell "info b" "info c"
	done_
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	out_is $'info b\ninfo c\n'
	quit
	file_is "$PE" "info a
printk-shim: warning: PRINTK_SHIM_RECORD: $CTL/$PID.rec was cut short while this process ran; made again, from empty
info b
info c
"
}

@test "record: read while the port runs, with the lines the level filter hides" {
	start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_LEVEL=info
	tell "info a" "plain hidden-by-level" "info c"
	done_
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	[ ! -s "$ERR" ]
	out_is $'info a\nplain hidden-by-level\ninfo c\n'
	dmesg_ --format=prefix
	out_is $'<6>info a\n<7>plain hidden-by-level\n<6>info c\n'
	dmesg_ --format=fancy
	[ "$status" -eq 125 ]
	[ ! -s "$OUT" ]
	err_is "printk-shim: --format=fancy: expected auto|plain|prefix|dmesg|kmsg|json; nothing is printed
"
	quit
	file_is "$PE" $'info a\ninfo c\n'
}

@test "record: the lines dynamic debug hides are in it too" {
	start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_DYNDBG='func plain -p'
	tell "plain off" "info on"
	done_
	dmesg_ --format=plain
	out_is $'plain off\ninfo on\n'
	quit
	file_is "$PE" $'info on\n'
}

@test "record: a hidden debug line is recorded whole, its fragments with it, at its level" {
	start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_DYNDBG='-p'
	tell "open a" "cont b" "info on"
	done_
	dmesg_ --format=json
	[ "$(jq -r '"\(.level) \(.msg)"' "$OUT")" = "7 open a b
6 info on" ]
	quit
	file_is "$PE" $'info on\n'
}

@test "record: a running process that does not record is not shown an earlier one's buffer of its pid" {
	local old
	start PRINTK_SHIM_RECORD=64K
	tell "info earlier"
	quit
	old=$PID
	sleep 0.05	# a start time of its own: they count in ticks of 10 ms
	start
	# the earlier buffer as if its process had had this pid (a pid reused)
	cp "$CTL/$old.rec" "$CTL/$PID.rec"
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; seek($f, 8, 0); print $f pack("l<", $ARGV[1]);' \
		"$CTL/$PID.rec" "$PID"
	dmesg_
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	err_is "printk-shim: pid $PID: no record buffer (it did not run with PRINTK_SHIM_RECORD, or it was removed)
"
	quit
}

@test "record: root reads a dead pid's buffer from a user's directory only when it is that user's alone" {
	local dead=4194303 d1=/tmp/printk-shim-1 d2=/tmp/printk-shim-65534 made=()
	start PRINTK_SHIM_RECORD=64K
	tell "info daemon's line"
	quit
	# buf UID DIR: the buffer as if a process $dead of UID had left it in
	# DIR (the user's, made if missing), UID in its head
	buf() {
		if [ ! -d "$2" ]; then
			mkdir -m 700 "$2"
			chown "$1" "$2"
			made+=("$2")
		fi
		cp "$CTL/$PID.rec" "$2/$dead.rec"
		perl -e 'open(my $f, "+<", $ARGV[0]) or die; seek($f, 8, 0); print $f pack("l<L<", $ARGV[1], $ARGV[2]);' \
			"$2/$dead.rec" "$dead" "$1"
		chown "$1" "$2/$dead.rec"
	}
	buf 1 "$d1"
	capture "$WRAPPER" --dmesg --pid="$dead" --format=plain
	[ "$status" -eq 0 ]
	out_is $'info daemon\'s line\n'
	# nobody's copy saying it is daemon's: not nobody's own, left out
	buf 65534 "$d2"
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; seek($f, 12, 0); print $f pack("L<", 1);' "$d2/$dead.rec"
	capture "$WRAPPER" --dmesg --pid="$dead" --format=plain
	[ "$status" -eq 0 ]
	out_is $'info daemon\'s line\n'
	# nobody's own, newer: whose the pid was cannot be told
	perl -e 'open(my $f, "+<", $ARGV[0]) or die; seek($f, 12, 0); print $f pack("L<", 65534);' "$d2/$dead.rec"
	touch "$d2/$dead.rec"
	capture "$WRAPPER" --dmesg --pid="$dead" --format=plain
	rm -f "$d1/$dead.rec" "$d2/$dead.rec"
	[ "${#made[@]}" -eq 0 ] || rm -rf "${made[@]}"
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	err_is "printk-shim: pid $dead: record buffers of more than one user have this pid; nothing is printed
"
}

@test "record: readable after SIGKILL, in the kmsg and json formats too" {
	start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_LEVEL=warn
	tell "info one" "info two"
	done_
	kill -KILL "$PID"
	wait "$PID" || true
	exec 7>&-
	BG=
	[ -f "$CTL/$PID.rec" ]
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	out_is $'info one\ninfo two\n'
	dmesg_ --format=kmsg
	sed 's/^\([0-9]*\),\([0-9]*\),[0-9]*,-;/\1,\2,T,-;/' "$OUT" >"$BATS_TEST_TMPDIR/kmsg"
	file_is "$BATS_TEST_TMPDIR/kmsg" $'6,0,T,-;info one\n6,1,T,-;info two\n'
	dmesg_ --format=json
	[ "$(jq -r '"\(.level) \(.pid) \(.ident) \(.msg)"' "$OUT")" = "6 $PID ctl-run info one
6 $PID ctl-run info two" ]
	dmesg_
	grep -c '^<6>\[ *[0-9]*\.[0-9]\{6\}\] info \(one\|two\)$' "$OUT" | grep -qx 2
}

@test "record: a line an orphan KERN_CONT began keeps kmsg's c flag, in both modes" {
	for defer in 0 1; do
		start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_DEFER=$defer
		tell "cont orphan" "info after"
		done_
		dmesg_ --format=kmsg
		sed 's/^\([0-9]*\),\([0-9]*\),[0-9]*,\([-c]\);/\1,\2,T,\3;/' "$OUT" >"$BATS_TEST_TMPDIR/kmsg"
		file_is "$BATS_TEST_TMPDIR/kmsg" $'4,0,T,c; orphan\n6,1,T,-;info after\n'
		quit
	done
}

@test "record: readable after a crash (SIGSEGV)" {
	start PRINTK_SHIM_RECORD=64K
	tell "info before" segv
	wait "$BG" || true
	exec 7>&-
	BG=
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	out_is $'info before\n'
}

@test "record: in deferred mode each line is recorded once, as it is made" {
	start PRINTK_SHIM_RECORD=64K PRINTK_SHIM_DEFER=1 PRINTK_SHIM_LEVEL=info
	tell "info a" "plain hidden" "info b"
	quit
	dmesg_ --format=plain
	out_is $'info a\nplain hidden\ninfo b\n'
	file_is "$PE" $'info a\ninfo b\n'
}

@test "record: the buffer keeps the last SIZE bytes, whole lines only, after exit" {
	start PRINTK_SHIM_RECORD=4K PRINTK_SHIM_OUTPUT=file:/dev/null
	for i in $(seq 1 200); do tell "info line $i"; done
	quit
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	grep -qx 'info line 200' "$OUT"
	run ! grep -qx 'info line 1' "$OUT"
	# every line whole and in order, up to the last
	first=$(sed -n '1s/^info line //p' "$OUT")
	[ "$(cat "$OUT")" = "$(seq "$first" 200 | sed 's/^/info line /')" ]
}

@test "record: a damaged buffer whose head is near 2^64 is read to its end, not for ever" {
	start PRINTK_SHIM_RECORD=4K PRINTK_SHIM_OUTPUT=file:/dev/null
	for i in $(seq 1 20); do tell "info line $i"; done
	quit
	for head in '\377\377\377\377\377\377\377\377' '\370\377\377\377\377\377\377\377'; do
		printf "$head" | dd of="$CTL/$PID.rec" bs=1 seek=32 conv=notrunc status=none
		capture timeout 20 "$WRAPPER" --dmesg --pid="$PID" --format=plain
		[ "$status" -eq 0 ]
		out_is ''
	done
}

@test "record: a buffer whose size no module makes (4 GiB, sparse) is refused at once" {
	local head
	start PRINTK_SHIM_RECORD=4K PRINTK_SHIM_OUTPUT=file:/dev/null
	tell "info line"
	quit
	head=$(( $(stat -c %s "$CTL/$PID.rec") - 4096 ))
	printf '\000\000\000\000\001\000\000\000' | dd of="$CTL/$PID.rec" bs=1 seek=24 conv=notrunc status=none
	truncate -s $((head + 4294967296)) "$CTL/$PID.rec"
	capture timeout 20 "$WRAPPER" --dmesg --pid="$PID"
	[ "$status" -eq 1 ]
	out_is ''
	err_is "printk-shim: pid $PID: its record buffer is of another version of the module
"
}

@test "record: a fork child records into a buffer of its own" {
	start PRINTK_SHIM_RECORD=64K
	tell "info parent-before" fork
	for _ in $(seq 1 1000); do [ "$(wc -l <"$PO")" -lt 2 ] || break; sleep 0.01; done
	CHILD=$(sed -n 2p "$PO")
	tell "info child" quit
	for _ in $(seq 1 500); do [ -e "$CTL/$CHILD.ctl" ] || break; sleep 0.01; done
	tell "info parent-after"
	done_
	dmesg_ --format=plain
	out_is $'info parent-before\ninfo parent-after\n'
	capture "$WRAPPER" --dmesg --pid="$CHILD" --format=plain
	out_is $'info child\n'
}

@test "record: another user cannot read a running process's buffer" {
	public
	start PRINTK_SHIM_RECORD=64K
	capture setpriv --reuid=nobody --regid=nogroup --clear-groups "$PWRAPPER" --dmesg --pid="$PID"
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	err_is "printk-shim: pid $PID: permission denied: only its user and root may read its record buffer
"
	[ "$(stat -c %a "$CTL/$PID.rec")" = 600 ]
}

@test "record: dead processes' buffers are kept 16 at most, none older than 7 days" {
	mkdir -m 700 "$CTL"
	for _ in $(seq 1 18); do
		printf 'info x\nquit\n' | env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" "$FIX/ctl-run" 2>/dev/null
	done
	# each swept at its start: 15 dead kept, then it died too
	[ "$(ls "$CTL" | grep -c '\.rec$')" -eq 16 ]
	old=$(ls -t "$CTL" | grep '\.rec$' | sed -n 3p)
	touch -d '8 days ago' "$CTL/$old"
	start PRINTK_SHIM_RECORD=4K
	[ "$(ls "$CTL" | grep -c '\.rec$')" -eq 16 ]	# 15 dead and its own
	[ ! -e "$CTL/$old" ]
	[ -f "$CTL/$PID.rec" ]
}

# A fork server's children each record into a buffer of their own, which
# stays once they end: only a process that started swept them, so 200
# children left 200 buffers (hunt U: 217 MB). Each child sweeps as it
# makes its own now.
@test "record: a fork server's children leave no more buffers than processes would" {
	local t=$BATS_TEST_TMPDIR
	mkdir -m 700 "$CTL"
	cat >"$t/forks.c" <<'EOF'
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* N children, one after another, each a line, then _exit. */
int main(int argc, char **argv)
{
	int (*pk)(const char *, ...) = (int (*)(const char *, ...))dlsym(RTLD_DEFAULT, "printk");

	for (int i = 0; i < atoi(argv[1]); i++) {
		pid_t c = fork();

		if (c == 0) {
			pk("\0016child %d\n", i);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	pk("\0016parent\n");
	return 0;
}
EOF
	"${CC:-cc}" -o "$t/forks" "$t/forks.c" -ldl
	env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" "$t/forks" 40 2>/dev/null
	# the last child kept 15 dead and its own; the parent's is the 17th
	run sh -c "ls '$CTL' | grep -c '\.rec$'"
	[ "$output" -le 17 ] || { echo "$output buffers" >&2; false; }
}

# Every program a command started made a buffer, printing or not: a shell
# loop's 60 tools pushed the crashed program's buffer out of the 16 kept.
@test "record: a process that recorded nothing leaves no buffer; the ones that tell are kept" {
	mkdir -m 700 "$CTL"
	printf 'info before the crash\nsegv\n' | env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" \
		sh -c 'echo $$ >"$0"; exec "$1"' "$BATS_TEST_TMPDIR/pid" "$FIX/ctl-run" 2>/dev/null || :
	PID=$(cat "$BATS_TEST_TMPDIR/pid")
	[ -f "$CTL/$PID.rec" ]
	for _ in $(seq 1 20); do
		env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" sh -c 'ls / >/dev/null; true'
		env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" sh -c 'kill -KILL $$' || :
	done
	env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" true	# its start sweeps the killed ones
	[ "$(ls "$CTL" | grep '\.rec$')" = "$PID.rec" ]
	dmesg_ --format=plain
	[ "$status" -eq 0 ]
	out_is $'info before the crash\n'
}

@test "record: past 64 dead buffers, the 15 newest are the ones kept beside the new one" {
	local one
	mkdir -m 700 "$CTL"
	printf 'info x\nquit\n' | env PRINTK_SHIM_RECORD=4K LD_PRELOAD="$MODULE" "$FIX/ctl-run" 2>/dev/null
	one=$(ls "$CTL" | grep '\.rec$')
	# 80 buffers of processes gone, dead pids, a minute apart: 4000080 the newest
	for i in $(seq 1 80); do
		cp "$CTL/$one" "$CTL/$((4000000 + i)).rec"
		perl -e 'open(my $f, "+<", $ARGV[0]) or die; seek($f, 8, 0); print $f pack("l<", $ARGV[1]);' \
			"$CTL/$((4000000 + i)).rec" "$((4000000 + i))"
		touch -d "@$(( $(date +%s) - 6000 + 60 * i ))" "$CTL/$((4000000 + i)).rec"
	done
	rm "$CTL/$one"
	start PRINTK_SHIM_RECORD=4K
	[ "$(ls "$CTL" | grep '\.rec$' | grep -v "^$PID\.rec$" | sort)" = "$(seq 4000066 4000080 | sed 's/$/.rec/')" ]
	quit
}

@test "record: a bad PRINTK_SHIM_RECORD is named, and nothing is recorded" {
	start PRINTK_SHIM_RECORD=1K
	tell "info a"
	quit
	file_is "$PE" 'printk-shim: warning: PRINTK_SHIM_RECORD="1K": expected 0, or 4K..256M (a number of bytes, K or M: KiB or MiB); using 0
info a
'
	[ ! -e "$CTL/$PID.rec" ]
}
