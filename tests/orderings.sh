#!/bin/sh
# SPDX-License-Identifier: MIT
# Every atomic operation in shim/ says what its ordering is for, on its line
# or within the 3 lines above: "pairs with" and the other side, or "no pair:"
# and why none is needed. An operation is a C11 atomic_*() call, explicit or
# not (the plain ones are seq_cst), a __atomic_* or __sync_* builtin, or a
# fence. An acquire, release, acq_rel or seq_cst written out always names its
# pair, and no _Atomic object is read or written by a plain operator, an
# access no grep tells from any other (clang's -Watomic-implicit-seq-cst
# finds them). Speaks TAP: one test per rule, each with the lines that break it.
root=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)

# Files being rewritten: the second rule skips them until they carry their
# notes. Empty it, then it checks all of shim/.
pending=''

strong='memory_order_(acquire|release|seq_cst|acq_rel)|__ATOMIC_(ACQUIRE|RELEASE|SEQ_CST|ACQ_REL)'
op='(^|[^_[:alnum:]])(atomic_(load|store|exchange|fetch_[a-z]+|compare_exchange_(strong|weak)|flag_test_and_set|flag_clear|thread_fence|signal_fence)(_explicit)?|__atomic_[a-z_]+|__sync_[a-z_]+)[[:space:]]*[(]'
n=0
bad=0

# scan RULE: each line of shim/ that RULE (ops: any operation; strong: an
# ordering written out) finds without its note, as FILE:LINE: TEXT; then
# "#count OPS NOTES" for the files scanned.
scan() {
	cd "$root" && find shim -name '*.[ch]' | sort | while read -r f; do
		if [ "$1" = ops ]; then
			for p in $pending; do
				case $f in "$p"*) continue 2 ;; esac
			done
		fi
		echo "$f"
	done | xargs awk -v rule="$1" -v op="$op" -v strong="$strong" '
	FNR == 1 { delete l }
	{ l[FNR] = tolower($0); code = $0; s = l[FNR] }
	{ notes += gsub(/pairs with|no pair:/, "", s) }
	# the code alone: a comment may name an operation, it is not one
	code ~ /^[[:space:]]*(\/?\*|\/\/)/ { next }
	{ sub(/\/\*.*/, "", code); sub(/\/\/.*/, "", code) }
	{
		k = 0
		rest = code
		while (match(rest, op)) {
			k++
			rest = substr(rest, RSTART + RLENGTH)
		}
		ops += k
		if (rule == "ops" ? !k : $0 !~ strong)
			next
		ok = 0
		for (i = FNR - 3; i <= FNR; i++)
			if (i > 0 && (l[i] ~ /pairs with/ || (rule == "ops" && l[i] ~ /no pair:/)))
				ok = 1
		if (!ok)
			print FILENAME ":" FNR ": " $0
	}
	END { print "#count", ops + 0, notes + 0 }'
}

# operators: each line outside the pending files where clang finds an
# _Atomic object read or written by an operator, as FILE:LINE: TEXT, and
# whatever else clang says is wrong (it then cannot see them all).
operators() {
	cd "$root" && find shim -name '*.c' | sort |
		xargs clang -fsyntax-only -D_GNU_SOURCE -DPACKAGE_VERSION='""' \
			-Iinclude -Ishim -pthread -Wno-everything -Watomic-implicit-seq-cst 2>&1 |
		awk -v pending="$pending" '
		BEGIN { np = split(pending, p, " ") }
		/error:/ { print; next }
		/Watomic-implicit-seq-cst/ {
			split($0, w, ":")
			for (i = 1; i <= np; i++)
				if (index(w[1], p[i]) == 1)
					next
			if (!seen[w[1] ":" w[2]]++) {
				getline text < w[1]
				for (k = 2; k <= w[2]; k++)
					getline text < w[1]
				close(w[1])
				print w[1] ":" w[2] ": " text
			}
		}'
}

# check NAME RULE: one TAP test; count is what scan counted.
check() {
	n=$((n + 1))
	if [ "$2" = operators ]; then
		out=$(operators)
	else
		out=$(scan "$2")
	fi
	count=$(echo "$out" | sed -n 's/^#count //p')
	offending=$(echo "$out" | grep -v '^#count ')
	# a scan that counted nothing read nothing (an awk that refused it): no pass
	case $2:$count in
	operators:*|*:[1-9]*) ;;
	*) offending="${offending:+$offending
}the scan counted no atomic operation in shim/" ;;
	esac
	if [ -z "$offending" ]; then
		echo "ok $n - $1"
	else
		bad=1
		echo "not ok $n - $1"
		echo "$offending" | sed 's/^/#   /'
	fi
}

echo 1..3
check "each acquire, release or seq_cst written out in shim/ names its pair" strong
all=$count
check "each atomic operation in shim/ names its pair or why it needs none" ops
outside=$count
if command -v clang >/dev/null; then
	check "no _Atomic object in shim/ is read or written by an operator" operators
else
	n=$((n + 1))
	echo "ok $n # SKIP no clang: the operators on _Atomic objects are not checked"
fi
set -- $all $outside
echo "# shim/: $1 atomic operations, $2 ordering notes;" \
	"outside the pending files ($pending): $3 operations, $4 notes"
[ "$bad" = 0 ]
