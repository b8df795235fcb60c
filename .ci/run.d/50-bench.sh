# The benchmarks build (with every CPU) and a few-second smoke run, so they
# cannot rot.
make -j"$(nproc)" bench BENCH_QUICK=1
