# Issue 10: memcheck and helgrind over the thread, fork and signal fixtures.
make check-valgrind
