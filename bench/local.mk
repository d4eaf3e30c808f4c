# bench/: benchmarks (not tests): `make bench` builds them, bench/run.sh runs them
#
# The event-queue hold benchmark is built twice from one source, each compiling sim/event.c in
# directly with its own arity (sim/event.h honours WEFT_EVQ_ARITY), so the two heaps can be
# compared on the same machine: that comparison is how the 4-ary heap was chosen.
bench_programs = bench/evq_hold bench/evq_hold_d2
noinst_PROGRAMS += $(bench_programs)
bench_evq_hold_SOURCES = bench/evq_hold.c sim/event.c sim/event.h
bench_evq_hold_CPPFLAGS = $(AM_CPPFLAGS) -DWEFT_EVQ_ARITY=4
bench_evq_hold_LDADD = libweft.a $(GSL_LIBS) $(GLIB_LIBS) -lm
bench_evq_hold_d2_SOURCES = $(bench_evq_hold_SOURCES)
bench_evq_hold_d2_CPPFLAGS = $(AM_CPPFLAGS) -DWEFT_EVQ_ARITY=2
bench_evq_hold_d2_LDADD = $(bench_evq_hold_LDADD)
EXTRA_DIST += bench/README.md

bench: $(bench_programs) weft$(EXEEXT)
.PHONY: bench

# bench/topogen: generation time and peak RSS of the 16- and 64-SU SuperPOD fabrics
noinst_PROGRAMS += bench/topogen
bench_topogen_SOURCES = bench/topogen.c
bench_topogen_LDADD = $(WEFT_LIBS)
