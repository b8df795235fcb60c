# The benchmarks build and a few-second smoke run, so they cannot rot.
make bench BENCH_QUICK=1
