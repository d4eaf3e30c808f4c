# bench/: benchmarks (not tests): `make bench` builds them, bench/run.sh runs them.
#
# They are EXTRA_PROGRAMS: a plain `make` (and `make check`, and `make distcheck`) leaves them
# alone, since no user of the simulator needs them; automake still knows their sources, so a
# tarball carries them and `make bench` works from one.
#
# The event-queue hold benchmark is built twice from one source: against weft's queue
# (sim/event.c, in libweft) and against the 4-ary heap it replaced (bench/evq_heap.c), so the
# two can be compared on the same machine: that comparison is how the radix heap was chosen.
bench_programs = bench/evq_hold bench/evq_hold_heap
bench_evq_hold_SOURCES = bench/evq_hold.c
bench_evq_hold_LDADD = libweft.a $(GSL_LIBS) $(GLIB_LIBS) -lm
bench_evq_hold_heap_SOURCES = bench/evq_hold.c bench/evq_heap.c bench/evq_heap.h
bench_evq_hold_heap_CPPFLAGS = $(AM_CPPFLAGS) -DEVQ_HEAP
bench_evq_hold_heap_LDADD = $(bench_evq_hold_LDADD)
EXTRA_DIST += bench/README.md bench/cachegrind.sh bench/same-bytes.sh bench/fattree-scale.sh \
	bench/cpu.sh

# bench/topogen: generation time and peak RSS of the 16- and 64-SU SuperPOD fabrics
bench_programs += bench/topogen
bench_topogen_SOURCES = bench/topogen.c
bench_topogen_LDADD = $(WEFT_LIBS)

EXTRA_PROGRAMS += $(bench_programs)
CLEANFILES += bench/evq_hold$(EXEEXT) bench/evq_hold_heap$(EXEEXT) bench/topogen$(EXEEXT)
bench: bench/evq_hold$(EXEEXT) bench/evq_hold_heap$(EXEEXT) bench/topogen$(EXEEXT) weft$(EXEEXT)
.PHONY: bench
