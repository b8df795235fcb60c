#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) LEVELS and SYMBOLS: a line PRINTK_SHIM_LEVEL drops still
# returns the kernel's count and keeps errno, and the continuation rules
# hold around it: a line open before it is written, a KERN_CONT after it is
# an orphan or dropped with it, a signal handler's dropped line leaves the
# thread's line alone. The fixture runs its calls twice: the second round
# takes the shim's shortcut for dropped lines, and must answer as the first.

load helper

# filtered SCENARIO [VAR=VALUE...]: the fixture under the shim, prefix format
filtered() {
	local sc=$1
	shift
	capture env LD_PRELOAD="$MODULE" PRINTK_SHIM_FORMAT=prefix "$@" "$FIX/filtered" "$sc"
	[ "$status" -eq 0 ]
}

# twice TEXT: TEXT, then "--", two times over
twice() { printf '%s\n--\n%s\n--\n' "$1" "$1"; }

@test "filtered: a dropped line returns the kernel's count for %d %u %x %s %c %% %px %pI4, errno kept; KERN_WARNING is written at warning, KERN_NOTICE dropped" {
	filtered returns PRINTK_SHIM_LEVEL=warning
	out_is "$(twice $'d 8\ns 12\nnull 9\nu 23\nlong 51\nshort 19\nzero 3\npx 19\nip 22\nflags 18\nnl 10\nnotice 8\nwarning 9')"$'\n'
	err_is $'<4>warning 4\n<3>shown\n<4>warning 4\n<3>shown\n'
}

@test "filtered: a line open from an earlier call is written when a dropped one starts" {
	filtered open PRINTK_SHIM_LEVEL=warning
	out_is "$(twice $'open 7\ndrop 9\norphan 6')"$'\n'
	err_is $'<3>first 1\n<4>tail t\n<3>first 1\n<4>tail t\n'
}

@test "filtered: KERN_CONT after a dropped line is an orphan once it closed, dropped with it while open" {
	filtered cont PRINTK_SHIM_LEVEL=warning
	out_is "$(twice $'closed 3\norphan 3\nunclosed 6\njoined 3\nafter 1\nend 3')"$'\n'
	err_is $'<4>b 2\n<3>end\n<4>b 2\n<3>end\n'
}

@test "filtered: KERN_CONT after a dropped line is dropped with it in strict mode too" {
	filtered cont PRINTK_SHIM_LEVEL=warning PRINTK_SHIM_CONT=strict
	out_is "$(twice $'closed 3\norphan 3\nunclosed 6\njoined 3\nafter 1\nend 3')"$'\n'
	err_is $'<4>b 2\n<3>end\n<4>b 2\n<3>end\n'
}

@test "filtered: a signal handler's dropped line between two fragments leaves the line whole" {
	filtered signal PRINTK_SHIM_LEVEL=warning
	out_is "$(twice $'x 2\nhandler 12\nfive 1')"$'\n'
	err_is $'<3>x=5\n<3>x=5\n'
}

@test "filtered: no marker at a dropped default level; markers from %s or legacy ones still count" {
	filtered bare PRINTK_SHIM_LEVEL=info PRINTK_SHIM_DEFAULT_LEVEL=debug
	out_is "$(twice $'bare 7\nmarks 5\nlegacy 8\nrun 3')"$'\n'
	err_is $'<3>shown\n<3>legacy 3\n<3>shown\n<3>legacy 3\n'
}

@test "filtered: measured without formatting: digit edges, strings, widths, six arguments, vprintk, a rewritten format" {
	local each='int-min 11 int-max 13 nines 28 tens 32 zero 8 uint-max 25 short 29 wide 55 str 310
		str-null 11 char 7 widths 23 five 22 six 29 six-str 19 text 20' counts= name n

	# each call twice in a row (the fixture's CALL2), then vprintk's pair twice
	while read -r name n; do
		counts+="$name $n"$'\n'"$name $n"$'\n'
	done < <(printf '%s %s\n' $each)
	counts+=$'vprintk 16\nvprintk-far 16\nvprintk 16\nvprintk-far 16\n'
	counts+=$'buf 9\nbuf 9\nbuf-rewritten 8\nbuf-rewritten 8'
	filtered quick PRINTK_SHIM_LEVEL=warning
	out_is "$(twice "$counts")"$'\n'
	err_is $'<3>shown\n<3>shown\n'
	filtered quick
	out_is "$(twice "$counts")"$'\n'
	[ "$(grep -c '^<6>q: 10 100 1000000000 -1000000000$' "$ERR")" = 4 ]
	[ "$(grep -c '^<6>buf abc!$' "$ERR")" = 4 ]
}

@test "filtered: a %s of 0 to 40 bytes at every alignment and at a page's end counts its bytes, with the filter and without" {
	local want= n i

	for n in $(seq 0 40); do
		want+="$n:"
		for i in $(seq 0 16); do
			want+=" $((n + 5))"
		done
		want+=$'\n'
	done
	filtered strings PRINTK_SHIM_LEVEL=warning
	out_is "$(twice "${want%$'\n'}")"$'\n'
	err_is ''
	filtered strings
	out_is "$(twice "${want%$'\n'}")"$'\n'
	[ "$(grep -c '^<6>str x*\.$' "$ERR")" = $((2 * 41 * 17)) ]
}

@test "filtered: with the filter off every line is written, with the same return values" {
	filtered returns
	out_is "$(twice $'d 8\ns 12\nnull 9\nu 23\nlong 51\nshort 19\nzero 3\npx 19\nip 22\nflags 18\nnl 10\nnotice 8\nwarning 9')"$'\n'
	[ "$(grep -c '^<7>n=-12345$' "$ERR")" = 2 ]
}

@test "filtered: a handler the module does not wrap, counting formats of its own every 20 us, leaves every count right" {
	filtered thrashed PRINTK_SHIM_LEVEL=warning
	out_is $'many 0 0 ran\n--\nmany 0 0 ran\n--\n'
	err_is ''
}
