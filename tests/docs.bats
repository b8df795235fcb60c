#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The documentation: both man pages render without a warning from groff,
# mandoc or man; the variables, options and defaults they document are
# those of pks_vars[], as doc/vars-dump prints them, and those that
# printk-shim --help offers; the README's Quick start commands are commands
# of tests/setup.sh; and the links of the Markdown files lead to files and
# headings of the tree. When a check fails after a variable was added or
# changed, document it in doc/printk-shim.7 (ENVIRONMENT) and
# doc/printk-shim.1 (OPTIONS); `doc/vars-dump --roff` prints a first draft.

load helper

MAN1=$abs_top_srcdir/doc/printk-shim.1
MAN7=$abs_top_srcdir/doc/printk-shim.7
README=$abs_top_srcdir/README.md
SETUP=$abs_top_srcdir/tests/setup.sh
DUMP=$abs_top_builddir/doc/vars-dump

# Plain text, one paragraph a line: no hyphenation, no line breaks, no bold.
render() {
	groff -man -Tascii -rLL=5000n -rHY=0 -P-cbou "$1"
}

# The line after each ".TP" inside section $2 of page $1, with roff's
# minus and no-hyphenation escapes removed.
tags() {
	awk -v sect="$2" '
		/^\.SH/ { insect = ($0 == ".SH " sect) }
		insect && tagnext { gsub(/\\%/, ""); gsub(/\\-/, "-"); print; tagnext = 0; next }
		insect && /^\.TP/ { tagnext = 1 }
	' "$1"
}

# same NAME_A FILE_A NAME_B FILE_B: the two sets of lines are equal, or say
# which lines each lacks.
same() {
	local a b
	a=$(comm -23 <(sort -u "$2") <(sort -u "$4"))
	b=$(comm -13 <(sort -u "$2") <(sort -u "$4"))
	[[ -z "$a" && -z "$b" ]] && return 0
	[[ -z "$a" ]] || printf 'in %s but not in %s:\n%s\n' "$1" "$3" "$a" >&2
	[[ -z "$b" ]] || printf 'in %s but not in %s:\n%s\n' "$3" "$1" "$b" >&2
	return 1
}

# defaults PAGE SECTION: for each "TAG<TAB>DEFAULT" on stdin, the entry of
# SECTION of the rendered PAGE whose tag starts with TAG says "Default: DEFAULT".
defaults() {
	local text tag dflt body bad=0
	text=$(render "$1")
	while IFS=$'\t' read -r tag dflt; do
		body=$(awk -v tag="$tag" -v sect="$2" '
			/^[^ ]/ { insect = $0 == sect }
			found && match($0, /[^ ]/) && RSTART <= 8 { exit }
			found { print }
			insect && index($0, "       " tag) == 1 {
				c = substr($0, 8 + length(tag), 1)
				found = c == "" || c == "=" || c == ","
			}
		' <<<"$text")
		if [[ -z "$body" ]]; then
			printf '%s: no entry for %s\n' "$1" "$tag" >&2
			bad=1
		elif [[ "$body" != *"Default: $dflt"[.,\;\ \(]* && "$body" != *"Default: $dflt" ]]; then
			printf '%s: %s should say "Default: %s", it says:\n%s\n' "$1" "$tag" "$dflt" "$body" >&2
			bad=1
		fi
	done
	return "$bad"
}

# links FILE: the target of each inline or reference link of the Markdown
# FILE, one a line, outside code blocks and code spans.
links() {
	awk '
		/^```/ { code = !code; next }
		code { next }
		{
			line = $0
			gsub(/`[^`]*`/, "", line)
			if (match(line, /^ *\[[^]]+\]: */)) {
				t = substr(line, RLENGTH + 1)
				sub(/[ \t].*/, "", t)
				print t
				next
			}
			while (match(line, /\]\([^) ]+/)) {
				print substr(line, RSTART + 2, RLENGTH - 2)
				line = substr(line, RSTART + RLENGTH)
			}
		}
	' "$1"
}

# anchors FILE: the anchor GitHub gives each heading of the Markdown FILE:
# lower case, punctuation dropped, blanks as hyphens.
anchors() {
	awk '
		/^```/ { code = !code; next }
		!code && /^#+ / {
			h = tolower($0)
			sub(/^#+ +/, "", h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			print h
		}
	' "$1"
}

# broken_links FILE: say which links of FILE lead nowhere; fails if any does.
broken_links() {
	local dir target path anchor bad=0
	dir=$(dirname "$1")
	while read -r target; do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		anchor=
		[[ "$target" == *"#"* ]] && anchor=${target#*#}
		[[ -n "$path" ]] && path=$dir/$path || path=$1
		if [[ ! -e "$path" ]]; then
			printf '%s: link to %s: no such file\n' "$1" "$target" >&2
			bad=1
		elif [[ -n "$anchor" ]] && ! anchors "$path" | grep -qxF -- "$anchor"; then
			printf '%s: link to %s: no such heading in %s\n' "$1" "$target" "$path" >&2
			bad=1
		fi
	done < <(links "$1")
	return "$bad"
}

setup() {
	[[ -x "$DUMP" ]] || skip "$DUMP is not built (make check builds it)"
	T=$BATS_TEST_TMPDIR
	"$DUMP" >"$T/vars"
	[[ -s "$T/vars" ]]
	cut -f1 "$T/vars" >"$T/names"
	{
		cut -f2 "$T/vars"
		awk -F '\t' '$3 == "bool" { sub(/^--/, "--no-", $2); print $2 }' "$T/vars"
	} >"$T/options.vars"
	{
		cat "$T/options.vars"
		printf '%s\n' --index --check --lib --print-env --help --version -- --dyndbg-list
	} >"$T/options"
}

@test "docs: vars-dump prints every variable with its option, kind and default" {
	run awk -F '\t' 'NF != 6 || $1 !~ /^PRINTK_SHIM_[A-Z0-9_]+$/ ||
		$2 !~ /^--[a-z0-9-]+$/ || ($3 != "bool" && $3 != "value") || $4 == ""' "$T/vars"
	[ -z "$output" ]
	grep -qx 'PRINTK_SHIM_LINE_MAX' "$T/names"
	grep -qx -- '--no-legacy-markers' "$T/options"
}

@test "docs: the wrapper's --help offers the options vars-dump derives" {
	"$WRAPPER" --help | grep -o '^  --[a-z0-9-]*\(, --no-[a-z0-9-]*\)\?' |
		grep -o -- '--[a-z0-9-]*' >"$T/help"
	printf '%s\n' -- >>"$T/help"
	same "printk-shim --help" "$T/help" "vars-dump" "$T/options"
}

@test "docs: the wrapper's --help names each variable of pks_vars with its default" {
	"$WRAPPER" --help |
		sed -n 's/.*(\(PRINTK_SHIM_[A-Z0-9_]*\), default \(.*\))$/\1\t\2/p' >"$T/helpvars"
	cut -f1,4 "$T/vars" >"$T/vardefaults"
	same "printk-shim --help" "$T/helpvars" "pks_vars" "$T/vardefaults"
}

@test "docs: printk-shim.1 has no groff warnings" {
	run groff -man -ww -z "$MAN1"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "docs: printk-shim.7 has no groff warnings" {
	run groff -man -ww -z "$MAN7"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "docs: mandoc -T lint finds nothing in either page" {
	command -v mandoc >/dev/null || skip "mandoc is not installed (apt-get install mandoc)"
	run mandoc -T lint "$MAN1" "$MAN7"
	[ -z "$output" ]
	[ "$status" -eq 0 ]
}

@test "docs: man -l renders both pages at 80 columns without warnings" {
	command -v man >/dev/null || skip "man is not installed"
	# What lintian runs for its manpage-has-errors-from-man check.
	local err
	err=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$MAN1" "$MAN7" 2>&1 >/dev/null)
	[ -z "$err" ] || { echo "$err" >&2; return 1; }
}

@test "docs: printk-shim.7 documents exactly the variables of pks_vars" {
	tags "$MAN7" ENVIRONMENT | grep -o '^\.[A-Z]* PRINTK_SHIM_[A-Z0-9_]*' | sed 's/^[^ ]* //' >"$T/man7"
	same "printk-shim.7 ENVIRONMENT" "$T/man7" "pks_vars" "$T/names"
}

@test "docs: printk-shim.7 documents exactly the variables the wrapper's --help names" {
	tags "$MAN7" ENVIRONMENT | grep -o '^\.[A-Z]* PRINTK_SHIM_[A-Z0-9_]*' | sed 's/^[^ ]* //' >"$T/man7"
	"$WRAPPER" --help | grep -o '(PRINTK_SHIM_[A-Z0-9_]*, default ' |
		grep -o 'PRINTK_SHIM_[A-Z0-9_]*' >"$T/helpnames"
	[[ -s "$T/helpnames" ]] || { echo "printk-shim --help names no PRINTK_SHIM_ variable" >&2; return 1; }
	same "printk-shim.7 ENVIRONMENT" "$T/man7" "printk-shim --help" "$T/helpnames"
}

@test "docs: printk-shim.7 gives each variable its default from pks_vars" {
	cut -f1,4 "$T/vars" | defaults "$MAN7" ENVIRONMENT
}

@test "docs: printk-shim.1 documents every option of the wrapper" {
	tags "$MAN1" OPTIONS | grep -o -- '--[a-z0-9-]*' | sort -u >"$T/man1"
	comm -12 "$T/man1" <(sort -u "$T/options") >"$T/known"
	same "printk-shim.1 OPTIONS" "$T/known" "the wrapper (pks_vars)" "$T/options"
}

@test "docs: printk-shim.1 documents no option the wrapper does not take" {
	# Beyond the options derived from pks_vars, the wrapper has aliases
	# (--symbol); whatever else the page lists, the wrapper must accept.
	local opt bad=0
	for opt in $(comm -23 <(tags "$MAN1" OPTIONS | grep -o -- '--[a-z0-9-]*' | sort -u) \
			<(sort -u "$T/options")); do
		if "$WRAPPER" "$opt=x" --print-env 2>&1 >/dev/null | grep -q 'unknown option'; then
			echo "printk-shim.1 documents $opt, which the wrapper does not take" >&2
			bad=1
		fi
	done
	return "$bad"
}

@test "docs: printk-shim.1 gives each variable's option its default from pks_vars" {
	cut -f2,4 "$T/vars" | defaults "$MAN1" OPTIONS
}

# commands: the options of printk-shim --help that are not a variable's
# (those [option]... stands for): its modes, --lib, --help, and the
# options of the runtime-control lines. One a line, sorted.
commands() {
	"$WRAPPER" --help | grep -E '^  (--|printk-shim )|^ +\[--' |
		grep -oE -- '--[a-z0-9-]+' | sort -u | comm -23 - <(sort -u "$T/options.vars")
}

# section PAGE NAME: the rendered text of section NAME of PAGE.
section() {
	render "$1" | awk -v sect="$2" '/^[^ ]/ { insect = $0 == sect; next } insect'
}

# installed_headers: what make install puts under include/printk-shim, as
# "linux/printk.h", one a line, sorted.
installed_headers() {
	local root=$T/root inc
	run env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS ${MAKE:-make} -s -C "$abs_top_builddir" \
		install-pkslinuxHEADERS install-pksnetHEADERS DESTDIR="$root"
	[ "$status" -eq 0 ] || { echo "$output" >&2; return 1; }
	inc=$(find "$root" -type d -name printk-shim -path '*/include/*')
	[ -d "$inc" ] || { echo "make install put no include/printk-shim under $root" >&2; return 1; }
	(cd "$inc" && find . -name '*.h' | sed 's|^\./||' | sort)
}

@test "docs: printk-shim.1's SYNOPSIS shows every command of printk-shim --help" {
	commands >"$T/commands"
	grep -qx -- --dyndbg-list "$T/commands"
	section "$MAN1" SYNOPSIS | grep -oE -- '--[a-z0-9-]+' | sort -u >"$T/synopsis"
	comm -23 "$T/commands" "$T/synopsis" >"$T/missing"
	[ ! -s "$T/missing" ] || { printf 'printk-shim.1 SYNOPSIS lacks %s\n' $(cat "$T/missing") >&2; return 1; }
}

@test "docs: the README's usage shows every command of printk-shim --help" {
	commands >"$T/commands"
	awk '/^## / { u = $0 == "## Usage" } u && /^```/ { n++; next } u && n == 1' "$README" |
		grep -oE -- '--[a-z0-9-]+' | sort -u >"$T/usage"
	comm -23 "$T/commands" "$T/usage" >"$T/missing"
	[ ! -s "$T/missing" ] || { printf "README.md's Usage block lacks %s\\n" $(cat "$T/missing") >&2; return 1; }
}

@test "docs: both DESCRIPTION sections name every output and the JSON format" {
	# PRINTK_SHIM_OUTPUT's kinds, as prose names them
	local page word bad=0
	for page in "$MAN1" "$MAN7"; do
		section "$page" DESCRIPTION | tr '\n' ' ' >"$T/desc"
		for word in "standard error" "standard output" syslog journal "a file" descriptor JSON; do
			grep -qF -- "$word" "$T/desc" ||
				{ echo "${page##*/} DESCRIPTION does not name $word" >&2; bad=1; }
		done
	done
	return "$bad"
}

@test "docs: printk-shim.pc's comment names exactly the headers make install installs" {
	installed_headers >"$T/installed"
	grep -qx linux/sprintf.h "$T/installed"
	sed -n '/^#/p' "$abs_top_srcdir/printk-shim.pc.in" | grep -oE '<[a-z_/]+\.h>' | tr -d '<>' |
		sort -u >"$T/pc"
	same "make install" "$T/installed" "printk-shim.pc.in's comment" "$T/pc"
}

@test "docs: printk-shim.7's HEADERS names every header make install installs" {
	installed_headers >"$T/installed"
	section "$MAN7" HEADERS | grep -oE '<[a-z_]+/[a-z_]+\.h>' | tr -d '<>' | sort -u >"$T/man7h"
	comm -23 "$T/installed" "$T/man7h" >"$T/missing"
	[ ! -s "$T/missing" ] || { printf 'printk-shim.7 HEADERS does not name <%s>\n' $(cat "$T/missing") >&2; return 1; }
}

@test "docs: the README's Quick start commands are commands of tests/setup.sh" {
	local cmd word n=0 bad=0
	[[ -f "$README" ]] || { echo "no README.md in $abs_top_srcdir" >&2; return 1; }
	awk '/^## / { in_qs = $0 == "## Quick start" } in_qs' "$README" |
		grep -o '^sh tests/setup\.sh [a-z]*' >"$T/quick" || true
	while read -r cmd; do
		n=$((n + 1))
		word=${cmd##* }
		if ! grep -Eq "^[[:space:]]*$word\)" "$SETUP"; then
			echo "README.md Quick start runs \"$cmd\"; tests/setup.sh has no \"$word)\" case" >&2
			bad=1
		fi
	done <"$T/quick"
	if [[ $n -lt 2 ]]; then
		echo "README.md has $n \"sh tests/setup.sh WHAT\" lines under \"## Quick start\"; it should have the demo and the test command" >&2
		return 1
	fi
	return "$bad"
}

@test "docs: the README links to the man pages, HACKING.md and bench/README.md" {
	local want bad=0
	links "$README" | sed 's/#.*//' | sort -u >"$T/readme-links"
	for want in doc/printk-shim.1 doc/printk-shim.7 HACKING.md bench/README.md; do
		grep -qxF "$want" "$T/readme-links" || { echo "README.md has no link to $want" >&2; bad=1; }
	done
	return "$bad"
}

@test "docs: every link of README.md, HACKING.md and bench/README.md leads somewhere" {
	local f bad=0
	for f in README.md HACKING.md bench/README.md; do
		[[ -f "$abs_top_srcdir/$f" ]] || { echo "no $f in $abs_top_srcdir" >&2; bad=1; continue; }
		broken_links "$abs_top_srcdir/$f" || bad=1
	done
	return "$bad"
}

@test "docs: HACKING.md's layout names every file of the module and the command" {
	local f missing=
	cd "$abs_top_srcdir"
	for f in $(find shim cmd -name '*.c' -o -name '*.h' -o -name '*.map' -o -name '*.am'); do
		# a header beside its .c is that file's interface, which the layout says once
		case $f in *.h) [ ! -e "${f%.h}.c" ] || continue ;; esac
		grep -q "^ *$(basename "$f")[ ,]" "$abs_top_srcdir/HACKING.md" || missing+=" $f"
	done
	[ -z "$missing" ] || { echo "not in HACKING.md:$missing"; false; }
}
