# sim/: the engine (time, events, packets, RNG streams, experiment files, graph, traces)
libweft_a_SOURCES += sim/time.h sim/errors.c sim/errors.h
libweft_a_SOURCES += sim/sim.c sim/sim.h sim/model.h
libweft_a_SOURCES += sim/rng.c sim/rng.h
libweft_a_SOURCES += sim/event.c sim/event.h
libweft_a_SOURCES += sim/timer.c sim/timer.h
libweft_a_SOURCES += sim/packet.c sim/packet.h
libweft_a_SOURCES += sim/runcfg.c sim/runcfg.h
libweft_a_SOURCES += sim/units.c sim/units.h sim/params.c sim/params.h sim/experiment.c sim/experiment.h
libweft_a_SOURCES += sim/graph.c sim/graph.h sim/graph_private.h sim/routes.c
libweft_a_SOURCES += sim/trace.c sim/trace.h sim/trace_schema.c sim/trace_schema.h sim/trace_types.h
libweft_a_SOURCES += sim/trace_doc.c sim/trace_doc.h
libweft_a_SOURCES += sim/trace_table.c sim/trace_table.h
libweft_a_SOURCES += sim/records.c sim/records.h
libweft_a_SOURCES += sim/input.c sim/input.h
libweft_a_SOURCES += sim/sweep.c sim/sweep.h
libweft_a_SOURCES += sim/partition.c sim/partition.h
libweft_a_SOURCES += sim/parallel.c sim/parallel.h
