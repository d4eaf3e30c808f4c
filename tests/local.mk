# tests/: Check unit tests (tests/check_X from tests/check_X.c, main() in the harness) and
# end-to-end shell tests (tests/e2e/*.sh) that drive the weft binary.
check_LIBRARIES += tests/libharness.a
tests_libharness_a_SOURCES = tests/harness.c tests/harness.h
LDADD = tests/libharness.a $(WEFT_LIBS) $(CHECK_LIBS)
AM_CFLAGS += $(CHECK_CFLAGS)
TESTS += $(check_PROGRAMS)
# The shell tests are listed file by file (not the whole folder) so that a tarball never
# carries the .log/.trs results of an in-tree run, which a VPATH build would take as up to date.
e2e_tests =
TESTS += $(e2e_tests)
EXTRA_DIST += $(e2e_tests) tests/e2e/lib.sh tests/e2e/uplinks_bound.py tests/e2e/staging.py
check_PROGRAMS += tests/check_units tests/check_params tests/check_experiment
tests_check_units_SOURCES = tests/check_units.c
tests_check_params_SOURCES = tests/check_params.c
tests_check_experiment_SOURCES = tests/check_experiment.c
check_PROGRAMS += tests/check_event tests/check_packet
tests_check_event_SOURCES = tests/check_event.c
check_PROGRAMS += tests/check_timer
tests_check_timer_SOURCES = tests/check_timer.c
tests_check_packet_SOURCES = tests/check_packet.c
check_PROGRAMS += tests/check_graph tests/check_topology tests/check_routes
tests_check_graph_SOURCES = tests/check_graph.c
tests_check_routes_SOURCES = tests/check_routes.c
check_PROGRAMS += tests/check_footprint
tests_check_footprint_SOURCES = tests/check_footprint.c
check_PROGRAMS += tests/check_partition
e2e_tests += tests/e2e/mpi_ranks.sh tests/e2e/mpi_identity.sh tests/e2e/superpod64_ranks.sh
tests_check_partition_SOURCES = tests/check_partition.c
tests_check_topology_SOURCES = tests/check_topology.c
check_PROGRAMS += tests/check_workload
tests_check_workload_SOURCES = tests/check_workload.c
check_PROGRAMS += tests/check_trace
tests_check_trace_SOURCES = tests/check_trace.c
# tests/mktrace writes a small trace for the shell tests; it is not a test itself (and, having
# its own main(), does not link the harness).
noinst_PROGRAMS += tests/mktrace
tests_mktrace_SOURCES = tests/mktrace.c
tests_mktrace_LDADD = $(WEFT_LIBS)
# doc/hdf5-schema.md's field tables and analysis/weft_trace.py's record table come from the
# records in sim/trace_schema.h: tests/check_trace_doc fails while they differ, and
# `make schema-doc` rewrites them (in the source tree) with tests/schemadoc.
check_PROGRAMS += tests/check_trace_doc
tests_check_trace_doc_SOURCES = tests/check_trace_doc.c
noinst_PROGRAMS += tests/schemadoc
tests_schemadoc_SOURCES = tests/schemadoc.c
tests_schemadoc_LDADD = $(WEFT_LIBS)
schema-doc: tests/schemadoc$(EXEEXT)
	tests/schemadoc$(EXEEXT) $(srcdir)/doc/hdf5-schema.md $(srcdir)/analysis/weft_trace.py
.PHONY: schema-doc
e2e_tests += tests/e2e/trace_python.sh tests/e2e/report_ports.sh tests/e2e/report_nccl.sh \
	tests/e2e/nccl_layout.sh tests/e2e/server_presets.sh
check_PROGRAMS += tests/check_network
tests_check_network_SOURCES = tests/check_network.c
e2e_tests += tests/e2e/roce_trace.sh tests/e2e/roce_ecmp.sh
e2e_tests += tests/e2e/readme.sh
e2e_tests += tests/e2e/determinism.sh tests/e2e/bad_input.sh tests/e2e/hang.sh \
	tests/e2e/incast_trace.sh tests/e2e/interrupt.sh tests/e2e/topo.sh tests/e2e/ib_trace.sh \
	tests/e2e/experiments.sh tests/e2e/gpudirect_rails.sh tests/e2e/report_mechanisms.sh \
	tests/e2e/scale.sh tests/e2e/ue.sh tests/e2e/ue_trace.sh tests/e2e/fabric_compare.sh \
	tests/e2e/ue_rccc.sh tests/e2e/roce_spray.sh tests/e2e/compare.sh \
	tests/e2e/report_export.sh tests/e2e/faults.sh tests/e2e/fault_after.sh tests/e2e/uplinks.sh tests/e2e/uplinks_ar.sh \
	tests/e2e/diag.sh tests/e2e/diag_at.sh tests/e2e/diag_at_errors.sh tests/e2e/diag_check.sh tests/e2e/gpudirect_off.sh \
	tests/e2e/gpudirect_later.sh tests/e2e/nic_lost.sh tests/e2e/nic_removed_live.sh tests/e2e/topo_faults.sh tests/e2e/ue_reps_failure.sh tests/e2e/ue_credits.sh \
	tests/e2e/ue_llr.sh tests/e2e/ue_shared_trim.sh
e2e_tests += tests/e2e/summary_json.sh tests/e2e/sweep.sh tests/e2e/slurm.sh
e2e_tests += tests/e2e/compare_metrics.sh tests/e2e/plot_interrupt.sh tests/e2e/report_derived.sh \
	tests/e2e/report_perftest.sh tests/e2e/plot_rails.sh
e2e_tests += tests/e2e/gpudirect_at.sh

# The whole suite again under AddressSanitizer and UndefinedBehaviorSanitizer, in a build of its
# own (sanitize-build/build) so that the developer's objects are left alone.  It builds from a
# `make distdir` copy of the sources (sanitize-build/src), not from $(srcdir): configure refuses
# a VPATH build of a source folder that is itself configured in place, as the README's commands
# and CI have it.  The copy keeps the files' times, so a second run recompiles only what changed.
# The build is configured with this build's own options (config.status --config) plus the
# sanitizer flags and subbuild_config_add (no link-time or profile-guided optimisation;
# Makefile.am), again only when those change (tests/subbuild-configure.sh, as for `make fuzz`).
# (LeakSanitizer is off: GLib and HDF5 keep one-time allocations until exit; valgrind covers
# leaks instead.  allocator_may_return_null: a request beyond what can be had - libhdf5 asks for
# what a damaged trace declares - fails as a plain malloc's does, for the caller to handle,
# instead of stopping the process.)
SANITIZE_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SANITIZE_LINKFLAGS = -fsanitize=address,undefined
SANITIZE_ENV = ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
	UBSAN_OPTIONS=print_stacktrace=1
sanitize_dir = sanitize-build
check-sanitize:
	@$(MKDIR_P) $(sanitize_dir)
	@echo "  DISTDIR  $(sanitize_dir)/src"; \
	 $(MAKE) $(AM_MAKEFLAGS) distdir distdir=$(sanitize_dir)/src > /dev/null
	@$(SANITIZE_ENV) $(SHELL) $(srcdir)/tests/subbuild-configure.sh \
	   $(abs_top_builddir)/config.status $(sanitize_dir) '$(subbuild_config_drop)' \
	   $(subbuild_config_add) "CFLAGS=$(CFLAGS) $(SANITIZE_CFLAGS)" \
	   "LDFLAGS=$(LDFLAGS) $(SANITIZE_LINKFLAGS)"
	@cd $(sanitize_dir)/build && $(SANITIZE_ENV) $(MAKE) $(AM_MAKEFLAGS) check || \
	  { echo "check-sanitize: failed; the logs are in $(sanitize_dir)/build (test-suite.log)" >&2; \
	    exit 1; }
clean-local: clean-sanitize
clean-sanitize:
	-rm -rf $(sanitize_dir)
.PHONY: check-sanitize clean-sanitize
check_PROGRAMS += tests/check_railopt
tests_check_railopt_SOURCES = tests/check_railopt.c
check_PROGRAMS += tests/check_server
tests_check_server_SOURCES = tests/check_server.c
check_PROGRAMS += tests/check_topology_build
tests_check_topology_build_SOURCES = tests/check_topology_build.c
check_PROGRAMS += tests/check_infiniband
tests_check_infiniband_SOURCES = tests/check_infiniband.c
check_PROGRAMS += tests/check_reroute
tests_check_reroute_SOURCES = tests/check_reroute.c
check_PROGRAMS += tests/check_frn
tests_check_frn_SOURCES = tests/check_frn.c
check_PROGRAMS += tests/check_ibcc
tests_check_ibcc_SOURCES = tests/check_ibcc.c
check_PROGRAMS += tests/check_dcqcn
tests_check_dcqcn_SOURCES = tests/check_dcqcn.c
check_PROGRAMS += tests/check_nccl_table
tests_check_nccl_table_SOURCES = tests/check_nccl_table.c
check_PROGRAMS += tests/check_perftest_table
tests_check_perftest_table_SOURCES = tests/check_perftest_table.c
check_PROGRAMS += tests/check_ibdiag
tests_check_ibdiag_SOURCES = tests/check_ibdiag.c
check_PROGRAMS += tests/check_collective
tests_check_collective_SOURCES = tests/check_collective.c
check_PROGRAMS += tests/check_collective_run
tests_check_collective_run_SOURCES = tests/check_collective_run.c
check_PROGRAMS += tests/check_nccl_tune
tests_check_nccl_tune_SOURCES = tests/check_nccl_tune.c
check_PROGRAMS += tests/check_collective_proto
tests_check_collective_proto_SOURCES = tests/check_collective_proto.c
check_PROGRAMS += tests/check_collective_switch
tests_check_collective_switch_SOURCES = tests/check_collective_switch.c
check_PROGRAMS += tests/check_perftest_run
tests_check_perftest_run_SOURCES = tests/check_perftest_run.c
check_PROGRAMS += tests/check_latency
tests_check_latency_SOURCES = tests/check_latency.c
check_PROGRAMS += tests/check_training
tests_check_training_SOURCES = tests/check_training.c
check_PROGRAMS += tests/check_updn
tests_check_updn_SOURCES = tests/check_updn.c
check_PROGRAMS += tests/check_vlarb
tests_check_vlarb_SOURCES = tests/check_vlarb.c
check_PROGRAMS += tests/check_pfc
tests_check_pfc_SOURCES = tests/check_pfc.c
check_PROGRAMS += tests/check_buffer
tests_check_buffer_SOURCES = tests/check_buffer.c
check_PROGRAMS += tests/check_registry
tests_check_registry_SOURCES = tests/check_registry.c
check_PROGRAMS += tests/check_uet
tests_check_uet_SOURCES = tests/check_uet.c
check_PROGRAMS += tests/check_results
tests_check_results_SOURCES = tests/check_results.c
check_PROGRAMS += tests/check_topo_summary
tests_check_topo_summary_SOURCES = tests/check_topo_summary.c
check_PROGRAMS += tests/check_input
tests_check_input_SOURCES = tests/check_input.c
check_PROGRAMS += tests/check_headline
tests_check_headline_SOURCES = tests/check_headline.c
check_PROGRAMS += tests/check_derived
tests_check_derived_SOURCES = tests/check_derived.c
check_PROGRAMS += tests/check_export
tests_check_export_SOURCES = tests/check_export.c
check_PROGRAMS += tests/check_transport
tests_check_transport_SOURCES = tests/check_transport.c
check_PROGRAMS += tests/check_pathcache
tests_check_pathcache_SOURCES = tests/check_pathcache.c
e2e_tests += tests/e2e/rc_timeout.sh
e2e_tests += tests/e2e/full_disk.sh
e2e_tests += tests/e2e/crash_drills.sh
check_PROGRAMS += tests/check_trace_reader
tests_check_trace_reader_SOURCES = tests/check_trace_reader.c
# analysis/weft_trace.py's defences: its checks in a child process, one-line errors
e2e_tests += tests/e2e/python_reader.sh
# Damaged and hostile traces: tests/mkdamaged.py derives them from mktrace's, and
# tests/damaged_check.py runs both readers over them (tests/e2e/damaged_traces.sh).
e2e_tests += tests/e2e/damaged_traces.sh
EXTRA_DIST += tests/mkdamaged.py tests/damaged_check.py tests/subbuild-configure.sh
check_PROGRAMS += tests/check_fault
tests_check_fault_SOURCES = tests/check_fault.c
# weft plot: every kind against the traces, bad input and the damaged-trace corpus
e2e_tests += tests/e2e/plot.sh
# analysis/weft_trace.py's tables with units, against doc/hdf5-schema.md
e2e_tests += tests/e2e/trace_tables.sh
# the README's figures (doc/figures, `make figures`) against a fresh run
e2e_tests += tests/e2e/figures.sh
check_PROGRAMS += tests/check_sweep
tests_check_sweep_SOURCES = tests/check_sweep.c
check_PROGRAMS += tests/check_collected
tests_check_collected_SOURCES = tests/check_collected.c
# experiments/superpod-64su.ini (issue 17's 16,384 GPUs): weft topo's counts, weft validate's
# memory estimate against its peak, refusals below it (built, never simulated: a few seconds)
e2e_tests += tests/e2e/superpod64.sh
