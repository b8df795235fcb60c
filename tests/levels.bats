#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim(7) LEVELS AND MARKERS: markers, levels, the default level, the filter, and the
# return value and errno of printk-shim(7) SYMBOLS.

load helper

prefix() {
	capture env PRINTK_SHIM_FORMAT=prefix LD_PRELOAD="$MODULE" "$@"
	[ "$status" -eq 0 ]
}

@test "levels: each SOH digit sets its level and is removed" {
	for l in 0 1 2 3 4 5 6 7; do
		prefix "$FIX/emit" $'\001'"$l"$'msg\n'
		err_is "<$l>msg"$'\n'
	done
}

@test "levels: no marker gives the default level 4" {
	prefix "$FIX/emit" $'plain\n'
	err_is $'<4>plain\n'
}

@test "levels: PRINTK_SHIM_DEFAULT_LEVEL sets the default, by number or name" {
	prefix env PRINTK_SHIM_DEFAULT_LEVEL=6 "$FIX/emit" $'a\n'
	err_is $'<6>a\n'
	prefix env PRINTK_SHIM_DEFAULT_LEVEL=err "$FIX/emit" $'a\n'
	err_is $'<3>a\n'
}

@test "levels: in a run of markers the first digit wins and the whole run goes" {
	prefix "$FIX/emit" $'\0013\0016x\n'
	err_is $'<3>x\n'
}

@test "levels: a level passed through %s counts" {
	prefix "$FIX/emit" @s $'\0013from an argument\n'
	err_is $'<3>from an argument\n'
}

@test "levels: markers after text stay in the text" {
	prefix "$FIX/emit" $'\0016x\0013y\n'
	err_is $'<6>x\0013y\n'
}

@test "levels: legacy <N> markers set the level" {
	prefix "$FIX/emit" $'<3>legacy\n' $'<c><6>x\n'
	err_is $'<3>legacy\n<6>x\n'
}

@test "levels: legacy <c> continues and <d> starts a line at the default level" {
	prefix "$FIX/emit" $'<6>a' $'<c>b\n' $'<6>c' $'<d>d\n'
	err_is $'<6>ab\n<6>c\n<4>d\n'
}

@test "levels: PRINTK_SHIM_LEGACY_MARKERS=0 keeps <N> as text" {
	prefix env PRINTK_SHIM_LEGACY_MARKERS=0 "$FIX/emit" $'<3>legacy\n'
	err_is $'<4><3>legacy\n'
}

@test "levels: SOH followed by something else is text" {
	prefix "$FIX/emit" $'\0019x\n'
	err_is $'<4>\0019x\n'
}

@test "levels: plain format removes the markers and shows no level" {
	capture pemit $'\0013an error\n' $'\001cnothing open\n'
	err_is $'an error\nnothing open\n'
}

@test "levels: PRINTK_SHIM_LEVEL=warn shows levels 0 to 4 only" {
	prefix env PRINTK_SHIM_LEVEL=warn "$FIX/emit" $'\0013e\n' $'\0014w\n' $'\0015n\n' $'\0016i\n' $'\0017d\n' $'u\n'
	err_is $'<3>e\n<4>w\n<4>u\n'
}

@test "levels: PRINTK_SHIM_LEVEL=info hides debug, as console_loglevel=7" {
	prefix env PRINTK_SHIM_LEVEL=info "$FIX/emit" $'\0016i\n' $'\0017d\n'
	err_is $'<6>i\n'
}

@test "levels: a filtered line still collects its continuations" {
	prefix env PRINTK_SHIM_LEVEL=3 "$FIX/emit" $'\0017hidden' $'\001c more\n' $'\0013shown\n'
	err_is $'<3>shown\n'
}

@test "levels: return value counts text bytes without markers and final newline; errno kept" {
	capture pemit @ret $'\0016foo\n' 'bar' $'\001c\n' '' $'a\nb' $'\0013\0016x\n' $'<3>y\n'
	out_is $'3 errno-kept\n3 errno-kept\n0 errno-kept\n0 errno-kept\n3 errno-kept\n1 errno-kept\n1 errno-kept\n'
}

@test "levels: return value is the same when the line is filtered out" {
	capture shim env PRINTK_SHIM_LEVEL=0 "$FIX/emit" @ret $'\0017hidden\n'
	out_is $'6 errno-kept\n'
	err_is ''
}

# A filtered fragment whose markers are literal is measured, not formatted
# (emit.c, quiet()); one whose level comes from an argument is formatted.
# Both must return what a written one returns and leave the line as it would.
FRAGS=(@ret $'\0017x' $'\001c y\n' @d $'\0017n=%d' 12345 @d $'\001c,%5d|\n' -7
	@s $'\0017abc\n' $'\0017a\nb' $'\001c c\n' $'\0017' $'\001c\n' $'\0010shown\n')
RETS=$'1 errno-kept\n2 errno-kept\n7 errno-kept\n7 errno-kept\n3 errno-kept\n3 errno-kept\n2 errno-kept\n0 errno-kept\n0 errno-kept\n5 errno-kept\n'

@test "levels: filtered fragments return what written ones do and keep the line's state" {
	prefix env PRINTK_SHIM_LEVEL=debug "$FIX/emit" "${FRAGS[@]}"
	out_is "$RETS"
	err_is $'<7>x y\n<7>n=12345,   -7|\n<7>abc\n<7>a\n<7>b c\n<7>\n<0>shown\n'
	prefix env PRINTK_SHIM_LEVEL=emerg "$FIX/emit" "${FRAGS[@]}"
	out_is "$RETS"
	err_is $'<0>shown\n'
}

@test "levels: after a filtered line, an unmarked fragment continues it only while it is open (legacy)" {
	prefix env PRINTK_SHIM_LEVEL=warn "$FIX/emit" $'\0017done\n' $'shown\n' $'\0017open' $'plain\n' $'\0013e\n'
	err_is $'<4>shown\n<3>e\n'
	prefix env PRINTK_SHIM_LEVEL=warn PRINTK_SHIM_CONT=strict "$FIX/emit" $'\0017done\n' $'shown\n' $'\0017open' $'plain\n' $'\0013e\n'
	err_is $'<4>shown\n<4>plain\n<3>e\n'
}

@test "levels: every entry point is interposed" {
	for s in printk _printk vprintk printk_deferred _printk_deferred; do
		prefix "$FIX/emit" @sym "$s" @ret $'\0016via ' @d $'\001c%d\n' 42
		err_is $'<6>via 42\n'
		out_is $'4 errno-kept\n2 errno-kept\n'
	done
}

@test "levels: a fragment whose text would pass INT_MAX bytes: what fits is written, and a warning says how much" {
	capture shim "$FIX/emit" $'x%2147483645dy\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: a fragment's text passes 2147483647 bytes; it is cut to its first 2047, any markers among them
x$(printf '%1023s')
$(printf '%1023s')
"
	# the marker is among the 2047: 2045 bytes of text
	capture shim env PRINTK_SHIM_LINE_MAX=4096 "$FIX/emit" $'\0016AB%2147483645dCD\n'
	[ "$status" -eq 0 ]
	err_is "printk-shim: warning: a fragment's text passes 2147483647 bytes; it is cut to its first 2047, any markers among them
AB$(printf '%2043s')
"
}
