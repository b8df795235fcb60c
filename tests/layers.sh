#!/bin/sh
# SPDX-License-Identifier: MIT
# The module's layers (HACKING.md): each folder of shim/ includes only from
# the layers below it, the pure folders call nothing of the process, and
# only the files that must carry exports or constructors do. Speaks TAP.
src=${abs_top_srcdir:-$(dirname "$0")/..}/shim
n=0
bad=0

# check NAME OFFENDING: "ok" when OFFENDING (the lines found) is empty.
check() {
	n=$((n + 1))
	offending=$2
	if [ -z "$offending" ]; then
		echo "ok $n - $1"
	else
		bad=1
		echo "not ok $n - $1"
		printf '%s\n' "$offending" | sed 's/^/# /'
	fi
}

# allow DIR REGEX: every '#include "…"' of shim/DIR must name a header it matches.
allow() {
	check "shim/$1/ includes only $(printf %s "$2" | tr -d "\\\\")" "$(grep -Hn '^#include "' "$src/$1"/*.[ch] |
		grep -Ev "#include \"($2)" | sed "s|^$src/||")"
}

allow base	'base/'
allow core	'base/(compiler|digits)\.h|core/'
allow format	'base/(compiler|digits)\.h|elf/name\.h|format/'
allow config	'base/|core/|config/'
allow ctl	'base/|core/|config/|ctl/'
allow out	'base/|core/|config/|ctl/(ctl|record)\.h|elf/name\.h|out/'
allow defer	'base/|core/|config/|ctl/record\.h|format/tally\.h|out/(batch|sink)\.h|defer/'
allow ctx	'base/|core/|config/|ctl/(ctl|record)\.h|out/(sink|file)\.h|defer/defer\.h|ctx/'
allow elf	'base/|elf/'
allow patch	'base/|config/|core/|elf/|patch/'
allow inspect	'base/sym\.h|core/|elf/|patch/(arch|why)\.h|inspect/'
allow wrapper	'base/|core/|config/vars\.h|ctl/(dir|page|recbuf)\.h|elf/elf\.h|inspect/inspect\.h|wrapper/'

# The pure folders know nothing of the environment, descriptors, the heap
# or threads: their unit tests call them with bytes in and bytes out.
for dir in core format; do
	check "shim/$dir/ calls no getenv, write, malloc or pthread_*" "$(grep -HnE \
		'\b(getenv|secure_getenv|write|writev|malloc|calloc|realloc|free|pthread_[a-z_]+)[[:space:]]*\(' \
		"$src/$dir"/*.[ch] | grep -v '^[^:]*:[0-9]*:[[:space:]]*\*' | sed "s|^$src/||")"
done

# Exports are the printk family and the hooks; start and end are init.c's.
check "only entry.c, dyndbg.c and ctx/signals.c, exec.c, exit.c, fds.c, vfork.c export" "$(grep -rlE 'PKS_EXPORT|\.globl' \
	"$src" --include='*.c' | sed "s|^$src/||" |
	grep -vxE 'entry\.c|dyndbg\.c|ctx/signals\.c|ctx/exec\.c|ctx/exit\.c|ctx/fds\.c|ctx/vfork\.c')"
check "only init.c has constructors and destructors" "$(grep -rlE \
	'__attribute__\(\((constructor|destructor)' "$src" --include='*.c' |
	sed "s|^$src/||" | grep -vx 'init\.c')"

# A comment names the behaviour, not a document that is not in the tree.
check "no comment cites a document outside the tree" "$(grep -rnE \
	'SPEC( section|\.md)|[Ii]ssue [0-9]|the issue' "$src" \
	--include='*.[ch]' --include='*.map' | sed "s|^$src/||")"

echo "1..$n"
exit $bad
