# SPDX-License-Identifier: MIT
# shellcheck shell=sh
#
# apt_get ARG...: apt-get as every install step here runs it (tests/setup.sh,
# debian/ci-lib.sh, .ci/run.d/); sourced, not run. No questions, another
# apt's lock waited for, a failed download tried again.

apt_get() {
	[ "$1" = update ] || {
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			-o Acquire::Retries=3 "$@"
		return
	}
	# A mirror in the middle of a sync, or a proxy that cached its Release
	# file apart from its indexes, serves an index of another size than
	# the Release file gives: apt-get update fails it, and exits 100 even
	# though it updated every other list. Such an index may mend itself
	# in minutes or stay broken for hours: a short wait, then the lists
	# there are; a package that only the failed index offers is then
	# missing, and the install that wants it says so.
	for pause in 10 30 -; do
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			-o Acquire::Retries=3 "$@" && return 0
		[ "$pause" != - ] || break
		echo "apt-get update failed; trying again in $pause s" >&2
		sleep "$pause"
	done
	echo "apt-get update failed 3 times: going on with the package lists it has" >&2
}
