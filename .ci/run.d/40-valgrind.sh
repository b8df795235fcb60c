# Memcheck and helgrind over the thread, fork and signal fixtures.
make check-valgrind
