# SPDX-License-Identifier: MIT
# Build the Debian packages, lint them, install them as an upgrade from the
# release whose printk-shim held the module, run a fixture through the
# installed wrapper, remove them. The packages stay in PKS_DEBS for the
# multiarch step, which would otherwise build the same amd64 ones again.
export PKS_DEBS=/tmp/printk-shim-ci-debs
rm -rf "$PKS_DEBS"
sh debian/ci-test.sh
