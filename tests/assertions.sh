#!/bin/sh
# SPDX-License-Identifier: MIT
# Assertions a Bats test cannot fail on. Bats runs a test under errexit,
# which ignores a failing "! CMD" and every command of an "A && B" list but
# the last, so such a line in the middle of a test asserts nothing: a
# negative check is written "run ! CMD", and checks stand one to a line.
# Speaks TAP.
top=${abs_top_srcdir:-$(dirname "$0")/..}
n=0
bad=0

# check NAME OFFENDING: "ok" when OFFENDING (the lines found) is empty.
check() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		bad=1
		echo "not ok $n - $1"
		printf '%s\n' "$2" | sed 's/^/# /'
	fi
}

suites=$(find "$top/tests" -name '*.bats' | sort)

# "! CMD" on a line of its own; "! CMD || skip ..." is a condition, not a check.
# shellcheck disable=SC2086
check 'no "! CMD" assertion (errexit ignores it): use "run ! CMD"' \
	"$(grep -HnE '^[[:space:]]*! ' $suites | grep -v '||' | sed "s|^$top/||")"

# "[ a ] && [ b ]": only the last check can fail. "&& break" and the like
# are control flow.
check 'no chain of checks joined by && (one check a line)' \
	"$(grep -HnE '&& (\[\[? |test |grep |cmp |diff |assert_bytes |(file|err|out)_is )' $suites |
		grep -vE '\|\||&& (break|continue|return)\b' | sed "s|^$top/||")"

echo "1..$n"
exit $bad
