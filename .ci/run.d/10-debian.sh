# Issue 9: build the Debian packages, lint them, install them, run a fixture
# through the installed wrapper, remove them.
sh debian/ci-test.sh
