#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# printk-shim --check over every file of this machine's /usr/bin, /usr/sbin
# and multiarch library folder, as a new user would try it: each ELF file
# that neither defines nor imports a printk function (readelf says which)
# must get "no printk". The counts by verdict go to the test log.

load helper

NAMES='printk|_printk|printk_deferred|_printk_deferred|vprintk'

# The folders swept: the library folder is the compiler's multiarch one.
folders() {
	local triplet
	echo /usr/bin
	echo /usr/sbin
	triplet=$(${CC:-cc} -print-multiarch 2>/dev/null)
	if [[ -n $triplet && -d /usr/lib/$triplet ]]; then
		echo "/usr/lib/$triplet"
	else
		echo /usr/lib
	fi
}

# Does FILE's .dynsym or .symtab name a printk function, defined or imported?
has_printk() {
	readelf -W --dyn-syms --syms "$1" 2>/dev/null |
		awk -v re="^($NAMES)(@.*)?\$" '$8 ~ re { found = 1 } END { exit !found }'
}

@test "sweep: every system binary that defines and imports no printk gets 'no printk'" {
	local dirs v rc n=0 wrong=()
	mapfile -t dirs < <(folders)
	find "${dirs[@]}" -maxdepth 1 -type f -print0 >"$BATS_TEST_TMPDIR/files"
	# One --check per few thousand files; the whole sweep bounded in time.
	# xargs says 123 when one said 1 (no printk) or 125 (not ELF).
	timeout 600 xargs -0 "$WRAPPER" --check <"$BATS_TEST_TMPDIR/files" \
		>"$BATS_TEST_TMPDIR/verdicts" 2>"$BATS_TEST_TMPDIR/errors" || rc=$?
	[ "${rc:-0}" -eq 0 ] || [ "$rc" -eq 123 ]
	while IFS= read -r line; do
		v=${line#*: }
		n=$((n + 1))
		[[ $v == "no printk:"* ]] && continue
		has_printk "${line%%: "$v"}" || wrong+=("$line")
	done <"$BATS_TEST_TMPDIR/verdicts"
	{
		echo "# swept ${dirs[*]}: $n ELF files"
		sed -E 's/^.*: (no printk|interposed|patched|not reachable)(: (statically linked|set-[a-z]+-ID|[a-z ]*stripped))?.*$/\1 \3/' \
			"$BATS_TEST_TMPDIR/verdicts" | sort | uniq -c | sed 's/^/# /'
		grep -c "not an ELF file" "$BATS_TEST_TMPDIR/errors" | sed 's/^/#       /; s/$/ files not ELF/'
		grep -v "not an ELF file" "$BATS_TEST_TMPDIR/errors" | sed 's/^/# /'
	} >&3
	[ "$n" -gt 0 ]
	if ((${#wrong[@]})); then
		printf 'a verdict other than "no printk" for a file without printk:\n' >&2
		printf '  %s\n' "${wrong[@]}" >&2
		return 1
	fi
}
