#!/bin/sh
# SPDX-License-Identifier: MIT
# The module's layers (HACKING.md): each folder of shim/ (and cmd/, the
# command) includes only from the layers below it, no two files need each
# other through any chain, the pure folders call nothing of the process,
# and only the files that must carry exports or constructors do; the
# sources are read, and then the built objects with readelf and nm.
# Speaks TAP; `layers.sh --graph` prints the include graph instead.
root=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)
src=$root/shim
build=${abs_top_builddir:-$(dirname "$0")/..}/shim
n=0
bad=0

# graph: the include graph at file level, one "FROM TO" a line, the
# module's files and the command's: a .c and the .h beside it are one node
# (shim/ctx/ctx.c and ctx.h are ctx/ctx; cmd/dmesg.c is cmd/dmesg).
graph() {
	(cd "$src" && find . -name '*.[ch]'; cd "$root" && find cmd -name '*.[ch]') |
		sed 's|^\./||' | sort | while read -r f; do
		case $f in cmd/*) path=$root/$f ;; *) path=$src/$f ;; esac
		grep -o '^#include "[^"]*"' "$path" | sed 's/^#include "//; s/"$//; s/\.[ch]$//' |
			awk -v from="${f%.*}" '$0 != from { print from, $0 }'
	done | sort -u
}

if [ "${1:-}" = --graph ]; then
	graph
	exit 0
fi

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
	files "shim/$1/" "$2" "$src/$1"/*.[ch]
}

# files NAME REGEX FILE...: every '#include "…"' of the FILEs must name a header REGEX matches.
files() {
	name=$1 re=$2
	shift 2
	check "$name includes only $(printf %s "$re" | tr -d "\\\\")" "$(grep -Hn '^#include "' "$@" |
		grep -Ev "#include \"($re)" | sed "s|^$src/||; s|^$root/||")"
}

allow base	'base/'
allow core	'base/(compiler|digits)\.h|core/'
allow format	'base/(compiler|digits)\.h|elf/(name|loaded)\.h|format/'
allow config	'base/|core/|config/'
allow ctl	'base/|core/|config/|ctl/'
allow sink	'base/|core/|config/|ctl/(ctl|record)\.h|elf/name\.h|sink/'
allow defer	'base/|core/|config/|ctl/record\.h|format/tally\.h|sink/(batch|sink)\.h|defer/'
allow ctx	'base/|core/|config/|ctl/(ctl|record)\.h|elf/name\.h|sink/(sink|file)\.h|defer/defer\.h|ctx/'
allow elf	'base/|elf/'
allow patch	'base/|config/|core/|elf/|patch/'

# The command, beside shim/, on the layers the module's start-up uses too;
# its reading of a binary's file (inspect.c) on the ELF reader, patch's
# tables, the messages' quoting and the watch on a file cut short only.
files cmd/inspect.c 'base/sym\.h|core/|elf/|patch/(arch|why)\.h|cmd/(inspect|quote|shrunk)\.h' "$root"/cmd/inspect.[ch]
files cmd/ 'base/|core/|config/vars\.h|ctl/(dir|page|recbuf)\.h|elf/(elf|calls)\.h|patch/(arch|why)\.h|cmd/' "$root"/cmd/*.[ch]

# The pure folders know nothing of the environment, descriptors, the heap
# or threads: their unit tests call them with bytes in and bytes out.
for dir in core format; do
	check "shim/$dir/ calls no getenv, write, malloc or pthread_*" "$(grep -HnE \
		'\b(getenv|secure_getenv|write|writev|malloc|calloc|realloc|free|pthread_[a-z_]+)[[:space:]]*\(' \
		"$src/$dir"/*.[ch] | grep -v '^[^:]*:[0-9]*:[[:space:]]*\*' | sed "s|^$src/||")"
done

# No two files need each other, through any chain: every loop of the
# graph (tsort names the files of each) fails. `layers.sh --graph` prints it.
check "the include graph has no cycle between files" "$(graph | tsort 2>&1 >/dev/null |
	sed 's/^tsort: //')"

# Exports are the printk family and the hooks; start and end are init.c's.
check "only entry.c and ctx/signals.c, sigcalls.c, exec.c, exit.c, fds.c, spawn.c, cancel.c export" "$(grep -rlE 'PKS_EXPORT|\.globl' \
	"$src" --include='*.c' | sed "s|^$src/||" |
	grep -vxE 'entry\.c|ctx/signals\.c|ctx/sigcalls\.c|ctx/exec\.c|ctx/exit\.c|ctx/fds\.c|ctx/spawn\.c|ctx/cancel\.c')"
check "only init.c has constructors and destructors" "$(grep -rlE \
	'__attribute__\(\((constructor|destructor)' "$src" --include='*.c' |
	sed "s|^$src/||" | grep -vx 'init\.c')"

# The built objects (libtool's PIC ones) say the same, whatever a header
# brings in: .init_array and .fini_array entries (constructors, destructors)
# only in init.o, the sanitizers' own module constructors aside; the pure
# folders' objects import nothing of the process; the module exports
# exactly the names printk-shim.map lists.
objs=$(find "$build" -path '*/.libs/*' -name '*.o' | sort)
if [ -z "$objs" ]; then
	n=$((n + 1))
	echo "ok $n - the built objects # SKIP not built"
else
	# entries OBJECT: its constructor and destructor entries, at any
	# priority, less the sanitizers' own.
	entries() {
		total=$(readelf -rW "$1" |
			sed -nE "s/^Relocation section '\.rela?\.(init_array|fini_array|ctors|dtors)(\.[0-9]+)?' .* contains ([0-9]+) entr.*/\3/p" |
			awk '{ t += $1 } END { print t + 0 }')
		# clang's asan.module_ctor and the like; GCC's at priority 99, _sub_I_00099_1
		san=$(readelf -sW "$1" |
			awk '$4 == "FUNC" && ($8 ~ /^[a-z]+\.module_[cd]tor$/ || $8 ~ /^_sub_[ID]_00099_[0-9]+$/)' | wc -l)
		echo $((total - san))
	}
	all=0
	for o in $objs; do
		all=$((all + $(entries "$o")))
	done
	check "only init.o has constructors and destructors ($all entries in all)" "$(
		for o in $objs; do
			case ${o##*/} in *_la-init.o) continue ;; esac
			e=$(entries "$o")
			[ "$e" -eq 0 ] || echo "${o#"$build"/}: $e constructor or destructor entries"
		done)"

	check "the objects of core/ and format/ import no dl*, getauxval, getenv, I/O, heap or thread call" "$(
		for o in $(printf '%s\n' "$objs" | grep -E '/(core|format)/'); do
			# a checked build's PKS_WARN_ON_ONCE (base/compiler.h) writes its line
			w=write
			! grep -q ': WARN_ON_ONCE(' "$o" || w=
			nm -u "$o" | awk -v o="${o#"$build"/}" -v w="$w" '$2 ~ /^(dl[a-z_0-9]*|getauxval|(secure_)?getenv|open(at)?|read|writev|mmap|syscall|malloc|calloc|realloc|free|pthread_[a-z_]+)$/ || $2 == w { print o ": " $2 }'
		done)"

	so=$build/.libs/libprintk-shim.so
	tmp=${TMPDIR:-/tmp}/layers.$$
	nm -D --defined-only "$so" | awk '$2 ~ /^[TWDBViu]$/ { print $3 }' | sed 's/@.*//' | sort -u >"$tmp.so"
	tr '\n' ' ' <"$src/printk-shim.map" | sed -e 's|/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/||g' \
		-e 's/.*global:\(.*\)local:.*/\1/' | tr ';' '\n' | tr -d ' \t' | grep . | sort -u >"$tmp.map"
	check "libprintk-shim.so exports exactly printk-shim.map's names ($(wc -l <"$tmp.so"))" "$(
		diff "$tmp.map" "$tmp.so" | sed -n 's/^< /listed, not exported: /p; s/^> /exported, not listed: /p')"
	rm -f "$tmp.so" "$tmp.map"
fi

# A comment names the behaviour, not a document that is not in the tree.
check "no comment cites a document outside the tree" "$(grep -rnE \
	'SPEC( section|\.md)|[Ii]ssue [0-9]|the issue' "$src" "$root/cmd" \
	--include='*.[ch]' --include='*.map' | sed "s|^$src/||; s|^$root/||")"

echo "1..$n"
exit $bad
