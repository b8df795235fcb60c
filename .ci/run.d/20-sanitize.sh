# The whole suite under ASan+UBSan, the thread tests under TSan.
sh tests/sanitize.sh all
