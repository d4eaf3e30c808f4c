# fuzz/: fuzz targets for libFuzzer, the corpus each one grew, and the inputs that ever
# crashed one (fuzz/README.md).  `make check` replays both through tests/check_fuzz, built by
# whatever compiler configure found; `make fuzz` builds each target with clang, libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer in fuzz-build/ and runs it for FUZZ_SECONDS.
fuzz_targets = trace_reader experiment
EXTRA_PROGRAMS += fuzz/trace_reader_fuzz fuzz/experiment_fuzz fuzz/mkseeds
fuzz_trace_reader_fuzz_SOURCES = fuzz/trace_reader_fuzz.c fuzz/trace_reader_fuzz.h
fuzz_trace_reader_fuzz_LDADD = $(WEFT_LIBS)
fuzz_trace_reader_fuzz_LDFLAGS = $(NO_LTO_LDFLAGS) $(FUZZ_LINKFLAGS)
fuzz_experiment_fuzz_SOURCES = fuzz/experiment_fuzz.c fuzz/experiment_fuzz.h
fuzz_experiment_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DWEFT_FUZZ_SRCDIR='"$(abs_top_srcdir)"'
fuzz_experiment_fuzz_LDADD = $(WEFT_LIBS)
fuzz_experiment_fuzz_LDFLAGS = $(NO_LTO_LDFLAGS) $(FUZZ_LINKFLAGS)
fuzz_mkseeds_SOURCES = fuzz/mkseeds.c
fuzz_mkseeds_LDADD = $(WEFT_LIBS)
check_PROGRAMS += tests/check_fuzz
tests_check_fuzz_SOURCES = tests/check_fuzz.c fuzz/trace_reader_fuzz.c fuzz/trace_reader_fuzz.h \
	fuzz/experiment_fuzz.c fuzz/experiment_fuzz.h
# both targets in one program: without libFuzzer's entry points, which would clash
tests_check_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DWEFT_FUZZ_NO_ENTRY
EXTRA_DIST += fuzz/README.md fuzz/mkseeds.sh fuzz/corpus fuzz/crashers

# The fuzzing build, like check-sanitize's: a `make distdir` copy of the sources
# (fuzz-build/src) configured with this build's options, clang and the fuzzing flags, no LTO
# or PGO (fuzz-build/build), with the sanitizers of FUZZ_SANITIZE: AddressSanitizer and
# UndefinedBehaviorSanitizer by default; FUZZ_SANITIZE=undefined runs about twenty times as
# many inputs a second (AddressSanitizer's allocator maps and faults in every large buffer
# libhdf5 allocates per open), and `make check-sanitize` then replays what it found under
# both.  Each run reads the committed corpus and adds what it finds to
# fuzz-build/corpus/TARGET; an input that crashes lands in fuzz-build/crashers/TARGET, to be
# fixed and then copied to fuzz/crashers/TARGET.  `make fuzz-merge` keeps, of what the runs
# found, the inputs that reach code the committed corpus does not (libFuzzer's -merge=1).
FUZZ_SECONDS = 60
FUZZ_CC = clang
FUZZ_SANITIZE = address,undefined
FUZZ_CFLAGS = -g -O2 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,$(FUZZ_SANITIZE) \
	-fno-sanitize-recover=all
FUZZ_LINK = -fsanitize=fuzzer,$(FUZZ_SANITIZE)
FUZZ_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
# -malloc_limit_mb: libhdf5 asks malloc for what a damaged header declares (gigabytes) and
# reads nothing into it before it finds the bytes are not in the file; what counts is memory
# used, which -rss_limit_mb bounds (and RLIMIT_AS, in tests/e2e/damaged_traces.sh, refuses).
FUZZ_ARGS = -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1048576 -print_final_stats=1
# FUZZ_RUNS=N: N inputs per target from a fixed seed instead of FUZZ_SECONDS, so the same inputs
# every time (CI runs that, so it cannot pass or fail by luck)
FUZZ_RUNS =
# FUZZ_PUBLIC=1: through the public functions, which read in a child (WEFT_FUZZ_PUBLIC)
FUZZ_PUBLIC =
fuzz_dir = fuzz-build
fuzz-build-targets:
	@$(MKDIR_P) $(fuzz_dir)
	@if ! $(FUZZ_CC) --version > /dev/null 2>&1; then \
	   echo "fuzz: $(FUZZ_CC) not found (Debian: apt-get install clang)" >&2; exit 1; \
	 fi
	@echo "  DISTDIR  $(fuzz_dir)/src"; \
	 $(MAKE) $(AM_MAKEFLAGS) distdir distdir=$(fuzz_dir)/src > /dev/null
	@$(SHELL) $(srcdir)/tests/subbuild-configure.sh \
	   $(abs_top_builddir)/config.status $(fuzz_dir) \
	   '$(subbuild_config_drop)|--enable-werror|CC=*|CFLAGS=*' \
	   $(subbuild_config_add) "CC=$(FUZZ_CC)" "CFLAGS=$(FUZZ_CFLAGS)"
	@cd $(fuzz_dir)/build && \
	 for t in $(fuzz_targets); do \
	   $(MAKE) $(AM_MAKEFLAGS) fuzz/$${t}_fuzz FUZZ_LINKFLAGS="$(FUZZ_LINK)" || exit 1; \
	 done
fuzz: fuzz-build-targets
	@for t in $(fuzz_targets); do \
	   $(MKDIR_P) $(fuzz_dir)/corpus/$$t $(fuzz_dir)/crashers/$$t; \
	   if test -n "$(FUZZ_RUNS)"; then \
	     budget="-runs=$(FUZZ_RUNS) -seed=1"; what="$(FUZZ_RUNS) inputs from seed 1"; \
	   else \
	     budget="-max_total_time=$(FUZZ_SECONDS)"; what="$(FUZZ_SECONDS) s"; \
	   fi; \
	   echo "  FUZZ     $$t for $$what (log: $(fuzz_dir)/$$t.log)"; \
	   public="$(FUZZ_PUBLIC)"; \
	   env $(FUZZ_ENV) $${public:+WEFT_FUZZ_PUBLIC=1} $(fuzz_dir)/build/fuzz/$${t}_fuzz $(FUZZ_ARGS) \
	     $$budget -artifact_prefix=$(fuzz_dir)/crashers/$$t/ \
	     $(fuzz_dir)/corpus/$$t $(srcdir)/fuzz/corpus/$$t > $(fuzz_dir)/$$t.log 2>&1; \
	   rc=$$?; \
	   grep -E '^(Done|stat::number_of_executed_units)' $(fuzz_dir)/$$t.log | sed 's/^/  /'; \
	   if test $$rc -ne 0; then \
	     echo "fuzz: $$t failed (exit $$rc): see $(fuzz_dir)/$$t.log and $(fuzz_dir)/crashers/$$t" >&2; \
	     exit 1; \
	   fi; \
	 done
fuzz-merge: fuzz-build-targets
	@for t in $(fuzz_targets); do \
	   $(FUZZ_ENV) $(fuzz_dir)/build/fuzz/$${t}_fuzz -merge=1 $(srcdir)/fuzz/corpus/$$t \
	     $(fuzz_dir)/corpus/$$t 2>&1 | grep -E '^MERGE-OUTER: [0-9]+ new files'; \
	 done
clean-local: clean-fuzz
clean-fuzz:
	-rm -rf $(fuzz_dir)
.PHONY: fuzz fuzz-merge fuzz-build-targets clean-fuzz
