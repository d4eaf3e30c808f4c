# bench/: benchmarks (not tests): `make bench` builds them, bench/run.sh runs them
# bench/topogen: generation time and peak RSS of the 16- and 64-SU SuperPOD fabrics
noinst_PROGRAMS += bench/topogen
bench_topogen_SOURCES = bench/topogen.c
bench_topogen_LDADD = $(WEFT_LIBS)
