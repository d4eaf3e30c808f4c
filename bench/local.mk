# bench/: benchmarks (not tests): `make bench` builds them, bench/run.sh runs them
