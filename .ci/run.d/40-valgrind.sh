# Memcheck and helgrind over the thread, fork and signal fixtures; the
# helgrind copy of the module is built with every CPU.
make -j"$(nproc)" check-valgrind
