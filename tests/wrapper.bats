#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(1): the printk-shim command.

load helper

@test "wrapper: runs the command with the shim preloaded" {
	capture "$WRAPPER" --format=prefix -- "$FIX/emit" $'\0016foo' $'bar\n'
	[ "$status" -eq 0 ]
	err_is $'<6>foobar\n'
}

@test "wrapper: the command's exit status and signals are its own" {
	run "$WRAPPER" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	run "$WRAPPER" -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run "$WRAPPER" -- sh -c 'echo $$; exec sleep 0'
	[ "$status" -eq 0 ]
}

@test "wrapper: exit 125 for a bad option or value, naming it" {
	run --separate-stderr "$WRAPPER" --bogus -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: unknown option '--bogus'; nothing is run (see --help)" ]
	# a control option without the process it is for: named as one, not unknown
	run --separate-stderr "$WRAPPER" --dmesg
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --dmesg: expected --pid=PID; nothing is done" ]
	run --separate-stderr "$WRAPPER" --flush -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --flush: expected --pid=PID or --all; nothing is done" ]
	run --separate-stderr "$WRAPPER" --level=loud -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --level=loud: expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; nothing is run" ]
	run --separate-stderr "$WRAPPER" --no-output -- true
	[ "$status" -eq 125 ]
	run --separate-stderr "$WRAPPER"
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: expected a command to run, got none; nothing is run (see --help)" ]
}

@test "wrapper: --no- is for an on/off option only, without a value" {
	run --separate-stderr "$WRAPPER" --no-level=3 --print-env
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: unknown option '--no-level=3'; nothing is run (see --help)" ]
	[ "$output" = "" ]
	# the command is not taken for the value of an option that has none
	run --separate-stderr "$WRAPPER" --no-output true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: unknown option '--no-output'; nothing is run (see --help)" ]
	run --separate-stderr "$WRAPPER" --no-time=1 -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: unknown option '--no-time=1'; nothing is run (see --help)" ]
	run --separate-stderr env -u PRINTK_SHIM_TIME "$WRAPPER" --no-time --print-env
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "export PRINTK_SHIM_TIME='0'" ]
}

@test "wrapper: a bad --dyndbg query is the wrapper's error, as the module reads it" {
	run --separate-stderr "$WRAPPER" --dyndbg='file a.c +p' --dyndbg 'module x +zz' -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --dyndbg=module x +zz: 'module x +zz': unknown flag 'z', expected p, m, f, s, l, t or _; nothing is run" ]
	run --separate-stderr "$WRAPPER" --dyndbg='file a.c +p; # a comment' --print-env
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "export PRINTK_SHIM_DYNDBG='file a.c +p; # a comment'" ]
}

@test "wrapper: output it could not write is an error, not a silent 0" {
	local opt
	for opt in --help --version --lib --print-env; do
		run --separate-stderr sh -c '"$0" "$1" > /dev/full' "$WRAPPER" "$opt"
		[ "$status" -eq 125 ]
		[ "$stderr" = "printk-shim: $opt: writing the output: No space left on device" ]
	done
	run --separate-stderr sh -c '"$0" --dyndbg-list "$1" > /dev/full' "$WRAPPER" "$FIX/emit"
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --dyndbg-list: writing the output: No space left on device" ]
	run --separate-stderr sh -c '"$0" --version >&-' "$WRAPPER"
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: --version: writing the output: Bad file descriptor" ]
}

@test "wrapper: the PATH search skips what cannot run, as execvp does" {
	local d=$BATS_TEST_TMPDIR
	mkdir -p "$d/p1" "$d/p2" "$d/p3/cmd"
	: > "$d/p1/cmd"
	printf '#!/bin/sh\necho from p2\n' > "$d/p2/cmd"
	chmod +x "$d/p2/cmd"
	run --separate-stderr env PATH="$d/p1:$d/p3:$d/p2:/usr/bin:/bin" "$WRAPPER" cmd
	[ "$status" -eq 0 ]
	[ "$output" = "from p2" ]
	# only ones that cannot run: execvp's EACCES
	run --separate-stderr env PATH="$d/p1:$d/p3:/usr/bin:/bin" "$WRAPPER" cmd
	[ "$status" -eq 126 ]
	[ "$stderr" = "printk-shim: cmd: Permission denied" ]
	run -127 --separate-stderr "$WRAPPER" ''
	[ "$status" -eq 127 ]
	[ "$stderr" = "printk-shim: : command not found" ]
}

@test "wrapper: exit 125 when the module is missing or its path is unsafe" {
	run --separate-stderr env PRINTK_SHIM_LIB=/nonexistent/libprintk-shim.so "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: module '/nonexistent/libprintk-shim.so' not found: No such file or directory; nothing is run" ]
	run --separate-stderr env PRINTK_SHIM_LIB="$BATS_TEST_TMPDIR" "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: module '$BATS_TEST_TMPDIR' is a directory: expected a shared object; nothing is run" ]
	run --separate-stderr env PRINTK_SHIM_LIB="$BATS_TEST_TMPDIR" "$WRAPPER" --lib
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	run --separate-stderr env PRINTK_SHIM_LIB="/tmp/a:b.so" "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	run --separate-stderr env PRINTK_SHIM_LIB="relative.so" "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "printk-shim: module path 'relative.so' must be absolute, without ':' or blanks; nothing is run" ]
}

@test "wrapper: exit 127 when the command is not found, 126 when it cannot run" {
	run --separate-stderr "$WRAPPER" -- no-such-command-here
	[ "$status" -eq 127 ]
	[ "$stderr" = "printk-shim: no-such-command-here: command not found" ]
	printf 'data\n' > "$BATS_TEST_TMPDIR/notexec"
	run --separate-stderr "$WRAPPER" -- "$BATS_TEST_TMPDIR/notexec"
	[ "$status" -eq 126 ]
	[ "$stderr" = "printk-shim: $BATS_TEST_TMPDIR/notexec: Permission denied" ]
	run --separate-stderr "$WRAPPER" -- "$BATS_TEST_TMPDIR/missing"
	[ "$status" -eq 127 ]
}

@test "wrapper: an empty PATH entry is the current directory, as for execvp" {
	T=$BATS_TEST_TMPDIR
	printf '#!/bin/sh\necho here\n' >"$T/here"
	chmod +x "$T/here"
	for p in ":/bin" "/bin:" "/bin::/usr/bin" ""; do
		capture sh -c 'cd "$1" && PATH=$2 exec "$3" here' sh "$T" "$p" "$WRAPPER"
		[ "$status" -eq 0 ]
		out_is $'here\n'
	done
}

@test "wrapper: a script without #! runs under /bin/sh, as execvp runs it" {
	T=$BATS_TEST_TMPDIR
	printf 'echo "ran $0 $*: ${LD_PRELOAD%%%%:*}"\nexit 3\n' >"$T/plain"
	chmod +x "$T/plain"
	capture "$WRAPPER" -- "$T/plain" a 'b c'
	[ "$status" -eq 3 ]
	out_is "ran $T/plain a b c: $MODULE"$'\n'
	err_is ''
	capture env PATH="$T:$PATH" "$WRAPPER" plain x
	[ "$status" -eq 3 ]
	out_is "ran $T/plain x: $MODULE"$'\n'
}

# Each program a command started warned of the configuration at its start,
# printing or not: a shell loop's tools each said the same.
@test "wrapper: the programs a command starts hold their start-up warnings until they print" {
	w="printk-shim: warning: PRINTK_SHIM_OUTPUT: file:/nonexistent/x.log: No such file or directory; skipping it"
	capture "$WRAPPER" --output=stderr,file:/nonexistent/x.log -- \
		sh -c 'ls / >/dev/null; cat /dev/null; echo hi | wc -c >/dev/null; "$0" "$1"' "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 0 ]
	err_is "$w"$'\n'"$w"$'\nx\n'
}

@test "wrapper: so do their fork children: a control file a child cannot make is said at its first line" {
	local t=$BATS_TEST_TMPDIR
	mkdir -m 700 "$t/run"
	cat >"$t/forkn.c" <<'EOF'
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* A child with no descriptor free for its control file; it prints if asked. */
int main(int argc, char **argv)
{
	struct rlimit r = { 3, 3 };
	int (*printk)(const char *, ...) = (int (*)(const char *, ...))dlsym(RTLD_DEFAULT, "printk");
	pid_t pid;

	(void)argv;
	setrlimit(RLIMIT_NOFILE, &r);
	pid = fork();
	if (pid == 0) {
		if (argc > 1 && printk)
			printk("\0016x\n");
		_exit(0);
	}
	return pid > 0 && waitpid(pid, NULL, 0) == pid ? 0 : 1;
}
EOF
	$CC -o "$t/forkn" "$t/forkn.c" -ldl
	capture env XDG_RUNTIME_DIR="$t/run" "$WRAPPER" -- sh -c '"$0"; true' "$t/forkn"
	[ "$status" -eq 0 ]
	err_is ''
	capture env XDG_RUNTIME_DIR="$t/run" "$WRAPPER" -- sh -c '"$0" print; true' "$t/forkn"
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: PRINTK_SHIM_CONTROL: $t/run/printk-shim: cannot make this child's control file: Too many open files; runtime control is off in it
x
"
}

@test "wrapper: LD_PRELOAD gets the module in front, once, keeping the rest" {
	run "$WRAPPER" -- sh -c 'printf %s "$LD_PRELOAD"'
	[ "$output" = "$MODULE" ]
	# With a library already preloaded, what the command would get is read
	# from --print-env: a plain program next to a sanitizer build of the
	# module would not start.
	run env LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 "$WRAPPER" --print-env
	grep -qx "export LD_PRELOAD='$MODULE:/lib/x86_64-linux-gnu/libm.so.6'" <<< "$output"
	run "$WRAPPER" -- "$WRAPPER" -- sh -c 'printf %s "$LD_PRELOAD"'
	[ "$output" = "$MODULE" ]
	run env LD_PRELOAD="/lib/x86_64-linux-gnu/libm.so.6 $MODULE" "$WRAPPER" --print-env
	grep -qx "export LD_PRELOAD='/lib/x86_64-linux-gnu/libm.so.6 $MODULE'" <<< "$output"
}

@test "wrapper: every variable has its option, mapped one to one" {
	run "$WRAPPER" --disable --output=fd:2 --format=kmsg --level=3 --default-level=5 \
		--cont=strict --no-legacy-markers --line-max=77 --time --caller --color=never \
		--no-crash-flush --syslog-socket=/tmp/s --syslog-facility=local3 --syslog-ident=id \
		--syslog-format=rfc5424 --journal-socket=/tmp/j --debug --lint -- env
	[ "$status" -eq 0 ]
	for kv in DISABLE=1 OUTPUT=fd:2 FORMAT=kmsg LEVEL=3 DEFAULT_LEVEL=5 CONT=strict \
		LEGACY_MARKERS=0 LINE_MAX=77 TIME=1 CALLER=1 COLOR=never CRASH_FLUSH=0 \
		SYSLOG_SOCKET=/tmp/s SYSLOG_FACILITY=local3 SYSLOG_IDENT=id SYSLOG_FORMAT=rfc5424 \
		JOURNAL_SOCKET=/tmp/j DEBUG=1 LINT=1; do
		grep -qx "PRINTK_SHIM_$kv" <<< "$output"
	done
	# and the mark of the process the wrapper ran, env's own pid
	grep -qx 'PRINTK_SHIM_WRAPPED=[1-9][0-9]*' <<< "$output"
	n=$(grep -c '^PRINTK_SHIM_' <<< "$output")
	[ "$n" -eq 20 ]
}

@test "wrapper: an option's value may follow as the next argument" {
	run "$WRAPPER" --level warn -- env
	grep -qx PRINTK_SHIM_LEVEL=warn <<< "$output"
}

@test "wrapper: --lib prints the module path" {
	run "$WRAPPER" --lib
	[ "$status" -eq 0 ]
	[ "$output" = "$MODULE" ]
}

# unprinted MODULE WHAT: --lib and --print-env with PRINTK_SHIM_LIB=MODULE
# print nothing, status 125, and say MODULE is WHAT (x86-64's words).
unprinted() {
	for opt in --lib --print-env; do
		capture env PRINTK_SHIM_LIB="$1" "$WRAPPER" $opt
		[ "$status" -eq 125 ]
		out_is ''
		err_is "printk-shim: module '$1' is $2: expected a 64-bit x86-64 shared object for $opt; nothing is printed"$'\n'
	done
}

@test "wrapper: --lib and --print-env refuse a module the dynamic linker would not preload" {
	[ "$(uname -m)" = x86_64 ] || skip "the messages name x86-64"
	T=$BATS_TEST_TMPDIR
	printf 'not an object\n' >"$T/text.so"
	unprinted "$T/text.so" 'not an ELF file'
	printf 'int main(void) { return 0; }\n' >"$T/pie.c"
	${CC:-cc} -fPIE -pie -o "$T/pie" "$T/pie.c"
	capture env PRINTK_SHIM_LIB="$T/pie" "$WRAPPER" --lib
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/pie' is a 64-bit x86-64 position-independent executable: expected a 64-bit x86-64 shared object for --lib; nothing is printed"$'\n'
	capture env PRINTK_SHIM_LIB="$MODULE" "$WRAPPER" --lib
	[ "$status" -eq 0 ]
	out_is "$MODULE"$'\n'
}

@test "wrapper: a module cut short is refused, for --lib, --print-env and a command" {
	[ "$(uname -m)" = x86_64 ] || skip "the messages name x86-64"
	T=$BATS_TEST_TMPDIR
	head -c 3000 "$MODULE" >"$T/cut.so"
	unprinted "$T/cut.so" 'a 64-bit x86-64 shared object cut short (its segments run past the end of the file)'
	capture env PRINTK_SHIM_LIB="$T/cut.so" "$WRAPPER" "$FIX/emit" $'\0013x\n'
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/cut.so' is a 64-bit x86-64 shared object cut short (its segments run past the end of the file): expected a 64-bit x86-64 shared object for $FIX/emit; nothing is run"$'\n'
	head -c 100 "$MODULE" >"$T/head.so"
	unprinted "$T/head.so" 'an ELF file cut short or corrupt (its headers do not fit it)'
}

@test "wrapper: a command it may run but not read gets one warning and runs all the same" {
	[ "$(id -u)" -eq 0 ] || skip "it runs the command as nobody, in a directory it makes for them"
	T=$(mktemp -d /tmp/printk-shim-unread.XXXXXX)
	chmod 755 "$T"
	cp "$WRAPPER" "$MODULE" "$T/"
	printf 'int main(void) { return 3; }\n' >"$T/static.c"
	${CC:-cc} -static -o "$T/static" "$T/static.c"
	chmod 111 "$T/static"
	capture setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env PRINTK_SHIM_LIB="$T/libprintk-shim.so" "$T/printk-shim" "$T/static"
	rm -rf "$T"
	[ "$status" -eq 3 ]
	out_is ''
	err_is "printk-shim: warning: $T/static cannot be read (Permission denied): its class and its printk are not checked; it is run all the same"$'\n'
}

@test "wrapper: without /proc it still finds its own build tree's module, by argv[0]" {
	unshare -m true 2>/dev/null || skip "no mount namespace here"
	! readelf -d "$MODULE" | grep -qE 'NEEDED.*lib(asan|tsan|ubsan)' ||
		skip "a sanitizer's runtime cannot start without /proc"
	dir=$(dirname "$WRAPPER")
	script='umount -l /proc || exit 9
		"$1" --lib || exit
		(cd "$(dirname "$1")" && PATH=.:$PATH printk-shim --lib) || exit
		"$1" --format=prefix -- "$2" "$(printf "\0016hi\n")"'
	capture unshare -m sh -c "$script" sh "$WRAPPER" "$FIX/emit"
	[ "$status" -eq 0 ]
	out_is "$MODULE"$'\n'"$MODULE"$'\n'
	err_is $'<6>hi\n'
}

@test "wrapper: --print-env prints export lines that eval back" {
	run "$WRAPPER" --time --output="file:/tmp/it's" --print-env
	[ "$status" -eq 0 ]
	eval "$output"
	[ "$PRINTK_SHIM_TIME" = 1 ]
	[ "$PRINTK_SHIM_OUTPUT" = "file:/tmp/it's" ]
	[ "$LD_PRELOAD" = "$MODULE" ]
}

@test "wrapper: --help lists every option and --version the version" {
	run "$WRAPPER" --help
	[ "$status" -eq 0 ]
	for o in --disable --output --format --level --default-level --cont --legacy-markers \
		--line-max --time --caller --color --crash-flush --syslog-socket --syslog-facility \
		--syslog-ident --syslog-format --debug --lint --lib --print-env; do
		grep -q -- "$o" <<< "$output"
	done
	run "$WRAPPER" --version
	[[ "$output" =~ ^printk-shim\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "wrapper: a set-ID command that keeps the caller's IDs is interposed, without a warning" {
	# Its owner and group are the caller's: for root, a set-user-ID-root
	# program. The effective IDs stay the real ones, so no AT_SECURE.
	cp "$FIX/emit" "$BATS_TEST_TMPDIR/suid"
	chmod u+s,g+s "$BATS_TEST_TMPDIR/suid"
	capture "$WRAPPER" --format=prefix -- "$BATS_TEST_TMPDIR/suid" $'\0016foo' $'bar\n'
	[ "$status" -eq 0 ]
	err_is $'<6>foobar\n'
}

@test "wrapper: a command with file capabilities, run by root, is interposed, without a warning" {
	[ "$(id -u)" -eq 0 ] || skip "root holds every capability: only root's run keeps LD_PRELOAD"
	cp "$FIX/emit" "$BATS_TEST_TMPDIR/capped"
	setcap cap_net_raw+ep "$BATS_TEST_TMPDIR/capped" || skip "no security.capability attribute here"
	capture "$WRAPPER" --format=prefix -- "$BATS_TEST_TMPDIR/capped" $'\0016foo' $'bar\n'
	[ "$status" -eq 0 ]
	err_is $'<6>foobar\n'
}

@test "wrapper: warns that a command set-ID to another user or group ignores LD_PRELOAD" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to give a file to another user"
	! grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || skip "no_new_privs: set-ID bits do nothing"
	! findmnt -n -o OPTIONS -T "$BATS_TEST_TMPDIR" | grep -qw nosuid || skip "$BATS_TEST_TMPDIR is on a nosuid mount"
	f=$BATS_TEST_TMPDIR/setid
	cp "$FIX/emit" "$f"
	chown 65534 "$f"
	chmod u+s "$f"
	# What the command itself then says is its own (a sanitizer runtime
	# under AT_SECURE has its say too): only the wrapper's line is checked.
	capture "$WRAPPER" --format=prefix -- "$f" $'\0016raw\n'
	assert_bytes "$(head -n 1 "$ERR")" "printk-shim: warning: $f is set-user-ID: the dynamic linker ignores LD_PRELOAD for it, so printk will not be interposed"
	chown 0:65534 "$f"
	chmod g+s,g+x "$f"
	capture "$WRAPPER" -- "$f"
	assert_bytes "$(head -n 1 "$ERR")" "printk-shim: warning: $f is set-group-ID: the dynamic linker ignores LD_PRELOAD for it, so printk will not be interposed"
	# Set-group-ID without group execute permission marks mandatory locking.
	chmod g-x "$f"
	capture "$WRAPPER" --format=prefix -- "$f" $'\0016shimmed\n'
	err_is $'<6>shimmed\n'
}

@test "wrapper: warns when its own real and effective IDs differ: any command ignores LD_PRELOAD" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to take another real user ID"
	# in a directory closed to the real user: the exec checks the effective one
	local d=$BATS_TEST_TMPDIR/private
	mkdir -m 700 "$d"
	cp "$FIX/emit" "$d/emit"
	capture setpriv --ruid=65534 --euid=0 "$WRAPPER" --format=prefix -- "$d/emit" $'\0016raw\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: this command runs with real and effective IDs that differ: the dynamic linker ignores LD_PRELOAD for $d/emit, so printk will not be interposed
"$'\0016raw\n'
}

@test "wrapper: warns that a static command with a printk cannot be interposed" {
	printf '%s\n' 'int printk(const char *fmt, ...) { return 0; }' \
		'int main(void) { return printk("x"); }' > "$BATS_TEST_TMPDIR/s.c"
	${CC:-cc} -static -o "$BATS_TEST_TMPDIR/static" "$BATS_TEST_TMPDIR/s.c"
	run --separate-stderr "$WRAPPER" -- "$BATS_TEST_TMPDIR/static"
	[ "$status" -eq 0 ]
	[ "$stderr" = "printk-shim: warning: $BATS_TEST_TMPDIR/static is statically linked: printk cannot be interposed" ]
}

@test "wrapper: a static command without a printk runs without a warning" {
	printf 'int main(void) { return 3; }\n' > "$BATS_TEST_TMPDIR/s.c"
	${CC:-cc} -static -o "$BATS_TEST_TMPDIR/static" "$BATS_TEST_TMPDIR/s.c"
	run --separate-stderr "$WRAPPER" -- "$BATS_TEST_TMPDIR/static"
	[ "$status" -eq 3 ]
	[ "$stderr" = "" ]
	strip "$BATS_TEST_TMPDIR/static"
	run --separate-stderr "$WRAPPER" -- "$BATS_TEST_TMPDIR/static"
	[ "$status" -eq 3 ]
	[ "$stderr" = "" ]
}

@test "wrapper: works after make install DESTDIR=" {
	d=$BATS_TEST_TMPDIR/inst
	make -s -C "$abs_top_builddir" install DESTDIR="$d" >/dev/null
	w=$(find "$d" -path '*/bin/printk-shim')
	[ -x "$w" ]
	m=$("$w" --lib)
	[[ "$m" == "$d"/*/libprintk-shim.so ]]
	capture "$w" --format=prefix -- "$FIX/emit" $'\0013installed\n'
	err_is $'<3>installed\n'
}

@test "wrapper: a value quoted in a message is escaped, so the message stays one line" {
	capture "$WRAPPER" --output=$'stderr\n<0>forged' true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --output=stderr\\n<0>forged: expected stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes); nothing is run\n'
	capture "$WRAPPER" $'--bo\tgus\x1b[31m\\' true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: unknown option \'--bo\\tgus\\x1b[31m\\\\\'; nothing is run (see --help)\n'
	capture "$WRAPPER" -- $'no-such\n<0>forged'
	[ "$status" -eq 127 ]
	err_is $'printk-shim: no-such\\n<0>forged: command not found\n'
	capture env PRINTK_SHIM_LIB=$'/nonexistent/\x7f.so' "$WRAPPER" -- true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: module \'/nonexistent/\\x7f.so\' not found: No such file or directory; nothing is run\n'
	# C1 controls, raw or encoded in UTF-8, escaped; other UTF-8 kept
	capture "$WRAPPER" --level=$'a\x9b31mb\xc2\x9bc\xc3\xa9\xe2\x82\xac' true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --level=a\\x9b31mb\\xc2\\x9bc\xc3\xa9\xe2\x82\xac: expected 0..7 or emerg|alert|crit|err|warn|notice|info|debug; nothing is run\n'
}

@test "wrapper: -h and -v are --help and --version; after -- they are a command" {
	"$WRAPPER" --help >"$BATS_TEST_TMPDIR/help"
	capture "$WRAPPER" -h
	[ "$status" -eq 0 ]
	err_is ''
	cmp "$OUT" "$BATS_TEST_TMPDIR/help"
	capture "$WRAPPER" --time -v
	[ "$status" -eq 0 ]
	err_is ''
	out_is "$("$WRAPPER" --version)"$'\n'
	capture "$WRAPPER" -- -h
	[ "$status" -eq 127 ]
	err_is $'printk-shim: -h: command not found\n'
}

@test "wrapper: --print-env with a command is refused, not run without it" {
	capture "$WRAPPER" --print-env -- sh -c 'echo ran'
	[ "$status" -eq 125 ]
	out_is ''
	err_is $'printk-shim: --print-env: expected no command, got \'sh\'; nothing is run\n'
	capture "$WRAPPER" --print-env --time true
	[ "$status" -eq 125 ]
	out_is ''
	err_is $'printk-shim: --print-env: expected no command, got \'true\'; nothing is run\n'
}

@test "wrapper: a relative file: output is refused for what it is" {
	capture "$WRAPPER" --output=file:rel.log true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --output=file:rel.log: the path \'rel.log\' must be absolute; nothing is run\n'
	capture "$WRAPPER" --output stderr,file:logs/x.log true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --output=stderr,file:logs/x.log: the path \'logs/x.log\' must be absolute; nothing is run\n'
	capture "$WRAPPER" --output=file:/ok.log,sislog true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --output=file:/ok.log,sislog: expected stderr|stdout|syslog|journal|file:PATH|fd:N[,...] (at most 8; PATH absolute, under 1024 bytes); nothing is run\n'
}

@test "wrapper: a bad on/off value lists every word that is accepted" {
	capture "$WRAPPER" --time=maybe true
	[ "$status" -eq 125 ]
	err_is $'printk-shim: --time=maybe: expected 0|1|no|yes|off|on|false|true; nothing is run\n'
	for w in 0 1 no yes off on false true; do
		run "$WRAPPER" --time="$w" --print-env
		[ "$status" -eq 0 ]
		grep -qx "export PRINTK_SHIM_TIME='$w'" <<< "$output"
	done
}

@test "wrapper: stdout is an output, the same as fd:1, as an option and as a variable" {
	capture "$WRAPPER" --output=stdout --format=prefix -- "$FIX/emit" $'\0016to stdout\n'
	[ "$status" -eq 0 ]
	out_is $'<6>to stdout\n'
	err_is ''
	capture env PRINTK_SHIM_OUTPUT=stderr,stdout "$WRAPPER" -- "$FIX/emit" $'\0013both\n'
	[ "$status" -eq 0 ]
	out_is $'both\n'
	err_is $'both\n'
}

@test "wrapper: an output listed twice is used once, with one warning" {
	capture "$WRAPPER" --output=stderr,stderr -- "$FIX/emit" $'\0016once\n'
	[ "$status" -eq 0 ]
	err_is $'printk-shim: warning: --output=stderr,stderr: an output is listed more than once; using stderr\nonce\n'
	capture "$WRAPPER" --output stdout,stderr,fd:1,stderr,stdout --print-env
	[ "$status" -eq 0 ]
	err_is $'printk-shim: warning: --output=stdout,stderr,fd:1,stderr,stdout: an output is listed more than once; using stdout,stderr\n'
	grep -qx "export PRINTK_SHIM_OUTPUT='stdout,stderr'" "$OUT"
	capture "$WRAPPER" --output=file:/tmp/a,file:/tmp/b,fd:3,fd:4 --print-env
	err_is ''
	grep -qx "export PRINTK_SHIM_OUTPUT='file:/tmp/a,file:/tmp/b,fd:3,fd:4'" "$OUT"
}

# lib_like FILE OFFSET BYTES: FILE, a copy of the module with BYTES (printf
# escapes) written over its ELF header at OFFSET.
lib_like() {
	cp "$MODULE" "$1"
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "wrapper: a module the dynamic linker would ignore is refused, not run without" {
	[ "$(uname -m)" = x86_64 ] || skip "the messages name x86-64"
	T=$BATS_TEST_TMPDIR
	want="expected a 64-bit x86-64 shared object for $FIX/emit"
	printf 'not an object\n' >"$T/text.so"
	capture env PRINTK_SHIM_LIB="$T/text.so" "$WRAPPER" -- "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 125 ]
	out_is ''
	err_is "printk-shim: module '$T/text.so' is not an ELF file: $want; nothing is run"$'\n'
	lib_like "$T/m32.so" 4 '\001'
	capture env PRINTK_SHIM_LIB="$T/m32.so" "$WRAPPER" -- "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/m32.so' is a 32-bit x86-64 shared object: $want; nothing is run"$'\n'
	lib_like "$T/arm.so" 18 '\267\000'
	capture env PRINTK_SHIM_LIB="$T/arm.so" "$WRAPPER" -- "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/arm.so' is a 64-bit aarch64 shared object: $want; nothing is run"$'\n'
	lib_like "$T/exec.so" 16 '\002\000'
	capture env PRINTK_SHIM_LIB="$T/exec.so" "$WRAPPER" -- "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/exec.so' is a 64-bit x86-64 executable: $want; nothing is run"$'\n'
	printf 'int main(void) { return 0; }\n' >"$T/pie.c"
	${CC:-cc} -fPIE -pie -o "$T/pie" "$T/pie.c"
	capture env PRINTK_SHIM_LIB="$T/pie" "$WRAPPER" -- "$FIX/emit" $'\0016x\n'
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/pie' is a 64-bit x86-64 position-independent executable: $want; nothing is run"$'\n'
}

@test "wrapper: for a #! script or a static command, the module must be a shared object of any class" {
	T=$BATS_TEST_TMPDIR
	printf '#!%s\n' "$FIX/emit" >"$T/script"
	chmod +x "$T/script"
	capture "$WRAPPER" --format=prefix -- "$T/script"
	[ "$status" -eq 0 ]
	err_is "<4>$T/script"$'\n'
	printf 'not an object\n' >"$T/text.so"
	capture env PRINTK_SHIM_LIB="$T/text.so" "$WRAPPER" -- "$T/script"
	[ "$status" -eq 125 ]
	err_is "printk-shim: module '$T/text.so' is not an ELF file: expected a shared object for $T/script; nothing is run"$'\n'
	# The script may start programs of another class, which would load
	# this module: its class is not held against it.
	printf '#!/bin/sh\necho ran\n' >"$T/sh-script"
	chmod +x "$T/sh-script"
	lib_like "$T/m32.so" 4 '\001'
	capture env PRINTK_SHIM_LIB="$T/m32.so" "$WRAPPER" -- "$T/sh-script"
	[ "$status" -eq 0 ]
	out_is $'ran\n'
	printf '%s\n' 'int printk(const char *fmt, ...) { return 0; }' \
		'int main(void) { return printk("x"); }' >"$T/s.c"
	${CC:-cc} -static -o "$T/static" "$T/s.c"
	capture env PRINTK_SHIM_LIB="$T/m32.so" "$WRAPPER" -- "$T/static"
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: $T/static is statically linked: printk cannot be interposed"$'\n'
	capture env PRINTK_SHIM_LIB="$T/text.so" "$WRAPPER" -- "$T/static"
	[ "$status" -eq 125 ]
	err_is "printk-shim: warning: $T/static is statically linked: printk cannot be interposed"$'\n'"printk-shim: module '$T/text.so' is not an ELF file: expected a shared object for $T/static; nothing is run"$'\n'
}

@test "wrapper: a multiarch build's --lib prints this class's module; LD_PRELOAD keeps \$LIB" {
	# What configure --enable-multiarch-lib --prefix=$T/usr
	# --libdir=$T/usr/<$LIB> defines, with $LIB found the way configure
	# finds it: what the dynamic linker makes of it in a search path.
	T=$BATS_TEST_TMPDIR
	lib=$(LD_LIBRARY_PATH='/pks-nowhere/$LIB' LD_DEBUG=libs /bin/true 2>&1 |
		sed -n 's|.*[=:]/pks-nowhere/\([^: 	]*\)[ 	]*(LD_LIBRARY_PATH)$|\1|p' | sed 1q)
	[ -n "$lib" ] || skip "the dynamic linker did not say what \$LIB is"
	mkdir -p "$T/usr/bin" "$T/usr/$lib/printk-shim"
	cp "$MODULE" "$T/usr/$lib/printk-shim/libprintk-shim.so"
	src=$abs_top_srcdir/shim
	cmd=$abs_top_srcdir/cmd
	# the core library is built with the sanitizers, if the tree is
	# shellcheck disable=SC2086
	${CC:-cc} $SAN_CFLAGS $SAN_LDFLAGS -I"$src" -I"$abs_top_srcdir" -DPACKAGE_VERSION='"0"' -DPKS_BINDIR="\"$T/usr/bin\"" \
		-DPKS_PKGLIBDIR="\"$T/usr/$lib/printk-shim\"" \
		-DPKS_MULTIARCH_DIR="\"$T/usr/\$LIB/printk-shim\"" \
		-o "$T/usr/bin/printk-shim" "$cmd/printk-shim.c" "$cmd/quote.c" "$cmd/inspect.c" \
		"$cmd/dyndbg-list.c" "$cmd/control.c" "$cmd/dmesg.c" "$cmd/shrunk.c" \
		"$abs_top_builddir/shim/.libs/libpks-common.a"
	capture "$T/usr/bin/printk-shim" --lib
	[ "$status" -eq 0 ]
	out_is "$T/usr/$lib/printk-shim/libprintk-shim.so"$'\n'
	capture "$T/usr/bin/printk-shim" --print-env
	out_is "export LD_PRELOAD='$T/usr/\$LIB/printk-shim/libprintk-shim.so'"$'\n'
	capture "$T/usr/bin/printk-shim" --format=prefix -- "$FIX/emit" $'\0013via $LIB\n'
	[ "$status" -eq 0 ]
	err_is $'<3>via $LIB\n'
}
