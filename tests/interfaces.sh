#!/bin/sh
# SPDX-License-Identifier: MIT
# Each .h beside a .c declares that file's functions and nothing else, and
# a function another file calls is declared in its own .h (or, for a header
# with no .c beside it, in its folder's). The declarations are gcc's own
# (-aux-info), read from every file of shim/ and cmd/. Speaks TAP.
root=$(cd "${abs_top_srcdir:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pks-ifc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo 1..2
command -v gcc >/dev/null || { echo "not ok 1 - gcc, which -aux-info needs, is missing"; exit 1; }
cd "$root" || exit 1

# One "KIND FILE NAME" a line: C a declaration, F a definition, of a
# function that is not static, at FILE (shim/ or cmd/ only).
for c in $(find shim cmd -name '*.c' | sort); do
	gcc -I. -Iinclude -Ishim -D_GNU_SOURCE -DPACKAGE_VERSION='""' -DPKS_PKGLIBDIR='""' \
		-DPKS_BINDIR='""' -fsyntax-only -aux-info "$tmp/aux" "$c" 2>"$tmp/err" ||
		{ echo "not ok 1 - gcc -aux-info $c: $(head -n 1 "$tmp/err")"; exit 1; }
	sed -n 's|^/\* \(\./\)\{0,1\}\([^:]*\):[0-9]*:N\([CF]\) \*/ extern [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*|\3 \2 \4|p' \
		"$tmp/aux" | grep -E '^[CF] (shim|cmd)/'
done | sort -u >"$tmp/decls"

# A declaration through a function type (format/internal.h's pks_fmt_ext_fn).
for h in $(find shim cmd -name '*.h'); do
	awk -v h="$h" '/^[a-z_]+_fn / { on = 1; sub(/^[a-z_]+_fn /, "") }
		on { sub(/\/\*.*/, ""); gsub(/[ \t;]/, ""); n = split($0, w, ",")
			for (i = 1; i <= n; i++) if (w[i] != "") print "C", h, w[i] }
		/;/ { on = 0 }' "$h"
done >>"$tmp/decls"

awk '
	$1 == "F" { def[$3] = $2; next }
	{ decl[$3] = decl[$3] " " $2; in_h[$2, $3] = 1; hdr[$2] = hdr[$2] " " $3 }
	function own(f) { sub(/\.c$/, ".h", f); return f }
	function dir(f) { sub(/\/[^\/]*$/, "", f); return f }
	END {
		for (h in hdr) {
			if (h !~ /\.h$/)
				continue
			sib = h; sub(/\.h$/, ".c", sib)
			n = split(hdr[h], names, " ")
			for (i = 1; i <= n; i++) {
				d = def[names[i]]
				if (d == "" || d == sib)
					continue
				if (system("test -e " sib) == 0)
					print "1 " h " declares " names[i] ", defined in " d
				else if (dir(d) != dir(h))
					print "1 " h " declares " names[i] ", defined in " d " (another folder)"
			}
		}
		for (f in def) {
			c = def[f]
			if (f !~ /^pks_/ || (own(c), f) in in_h)
				continue
			ok = decl[f] == "" || decl[f] == " " c
			n = split(decl[f], hs, " ")
			for (i = 1; i <= n && !ok; i++) {
				sib = hs[i]; sub(/\.h$/, ".c", sib)
				ok = hs[i] ~ /\.h$/ && dir(hs[i]) == dir(c) && system("test -e " sib) != 0
			}
			if (!ok)
				print "2 " c " defines " f ", declared in" decl[f]
		}
	}' "$tmp/decls" | sort -u >"$tmp/bad"

report() {	# NUMBER NAME
	if grep -q "^$1 " "$tmp/bad"; then
		echo "not ok $1 - $2"
		sed -n "s/^$1 /# /p" "$tmp/bad"
	else
		echo "ok $1 - $2"
	fi
}
report 1 "each .h beside a .c declares only that .c's functions"
report 2 "a function other files call is declared in its own .h (or its folder's header)"
! [ -s "$tmp/bad" ]
