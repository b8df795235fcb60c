# Each libFuzzer target for 60 s on its seed corpus.
make fuzz FUZZ_SECONDS=60
