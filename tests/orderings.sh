#!/bin/sh
# SPDX-License-Identifier: MIT
# Every acquire, release, acq_rel or seq_cst ordering written in shim/ says
# what it pairs with: "pairs with" on its line or within the 3 lines above.
# Speaks TAP: one test, with each line that lacks it.
root=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)
strong='memory_order_(acquire|release|seq_cst|acq_rel)|__ATOMIC_(ACQUIRE|RELEASE|SEQ_CST|ACQ_REL)'
bare=$(cd "$root" && grep -rlE "$strong" shim --include='*.[ch]' | sort | while read -r f; do
	awk -v f="$f" -v strong="$strong" '{ l[NR] = tolower($0) }
	$0 ~ strong {
		ok = 0
		for (i = NR - 3; i <= NR; i++)
			if (i > 0 && l[i] ~ /pairs with/)
				ok = 1
		if (!ok)
			print f ":" NR ": " $0
	}' "$f"
done)
echo 1..1
if [ -z "$bare" ]; then
	echo "ok 1 - each strong ordering in shim/ names its pair"
else
	echo "not ok 1 - each strong ordering in shim/ names its pair"
	echo "$bare" | sed 's/^/#   /'
fi
[ -z "$bare" ]
