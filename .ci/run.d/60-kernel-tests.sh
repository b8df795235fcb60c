# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# The kernel's own tests of the printing API (printk-shim(7) THE KERNEL'S
# TESTS), against the tree .ci/run built: Debian's linux-source-6.1 is
# installed now, at test time (no kernel source is kept in this tree), and
# tests/kernel/run.sh builds and runs its test files, saying what it
# skipped and why.
set -eu
# shellcheck source=tests/apt.sh
. tests/apt.sh
apt_get update -qq
candidate=$(apt-cache policy linux-source-6.1 | sed -n 's/^ *Candidate: //p')
if [ -z "$candidate" ] || [ "$candidate" = "(none)" ]; then
	echo "kernel-tests: Debian offers no linux-source-6.1 here (apt-cache policy)" >&2
	exit 1
fi
echo "kernel-tests: linux-source-6.1 $candidate"
apt_get install -y -qq --no-install-recommends linux-source-6.1 >/dev/null
sh tests/kernel/run.sh /usr/src/linux-source-6.1.tar.xz
