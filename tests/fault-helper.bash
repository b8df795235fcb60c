# SPDX-License-Identifier: MIT
# Loaded after helper.bash by the reliability suites (faults, signals,
# security, stress): the preloaded fault injectors, sanitizer-built modules,
# and the expected text of fault-host's lines.

FIXLIB=$FIX/.libs
export FIXLIB

# A module built with ASan (./configure --enable-sanitizers=address,...) needs
# the ASan runtime loaded before any other library. The fixtures are built
# with the same flags and load it themselves, as their first DT_NEEDED, but
# LD_PRELOAD puts the module before it: tell ASan that this order is fine.
# Fatal signals stay the shim's to handle (it writes open lines, then dies
# of the signal as before), as they are in a normal build.
if readelf -d "$MODULE" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	case ${ASAN_OPTIONS-} in
	*verify_asan_link_order*) ;;
	*) export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:detect_leaks=0" ;;
	esac
fi

if readelf -d "$MODULE" 2>/dev/null | grep -q 'NEEDED.*libtsan'; then
	case ${TSAN_OPTIONS-} in
	*handle_segv*) ;;
	*) export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}report_signal_unsafe=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0" ;;
	esac
fi

# shim_with LIB... -- CMD...: CMD with the module preloaded, then each LIB
# (a name in $FIXLIB), which thus sees the calls the module makes.
shim_with() {
	local pre=$MODULE
	while [[ $1 != -- ]]; do
		pre+=":$FIXLIB/$1"
		shift
	done
	shift
	env LD_PRELOAD="$pre" "$@"
}

# fault_lines N LEN [FROM]: what fault-host's "lines N LEN" prints, one line each.
fault_lines() {
	awk -v n="$1" -v len="$2" -v from="${3:-0}" 'BEGIN {
		for (i = from; i < from + n; i++) {
			s = sprintf("L%06d ", i)
			for (j = 0; j < len; j++)
				s = s sprintf("%c", 97 + (i + j) % 26)
			print s
		}
	}'
}

# same_lines FILE N LEN: FILE holds exactly fault-host's N lines of LEN letters.
same_lines() {
	if ! cmp -s "$1" <(fault_lines "$2" "$3"); then
		echo "$1 differs from $2 lines of $3 letters:" >&2
		diff <(fault_lines "$2" "$3") "$1" | head -20 >&2
		return 1
	fi
}
