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
	# A mirror in the middle of a sync serves an index whose size its
	# Release file does not give; apt-get update then fails every index
	# of that suite until the sync ends, minutes later.
	for pause in 15 30 60 120 240 -; do
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			-o Acquire::Retries=3 "$@" && return 0
		[ "$pause" != - ] || break
		echo "apt-get update failed; trying again in $pause s" >&2
		sleep "$pause"
	done
	echo "apt-get update failed 6 times: going on with the package lists it has" >&2
}
