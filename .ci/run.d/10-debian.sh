# SPDX-License-Identifier: MIT
# Build the Debian packages, lint them, install them as an upgrade from the
# release whose printk-shim held the module, run a fixture through the
# installed wrapper, remove them.
sh debian/ci-test.sh
