# SPDX-License-Identifier: MIT
# One system, 32- and 64-bit programs: the module packaged for amd64 (the
# Debian step's packages) and, cross-built, for i386, installed side by side
# under one wrapper; a 64-bit and a 32-bit fixture write the same bytes, and
# a 32-bit program started by a 64-bit one loads its own module.
export PKS_DEBS=/tmp/printk-shim-ci-debs
sh debian/ci-multiarch.sh
rm -rf "$PKS_DEBS"
