# sim/: the engine (time, events, packets, RNG streams, experiment files, graph, traces)
libweft_a_SOURCES += sim/time.h sim/errors.c sim/errors.h
libweft_a_SOURCES += sim/sim.c
libweft_a_SOURCES += sim/trace.c sim/trace.h sim/trace_schema.h
