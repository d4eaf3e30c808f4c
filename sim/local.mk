# sim/: the engine (time, events, packets, RNG streams, experiment files, graph, traces)
libweft_a_SOURCES += sim/time.h sim/errors.c sim/errors.h
libweft_a_SOURCES += sim/sim.c
libweft_a_SOURCES += sim/rng.c sim/rng.h
libweft_a_SOURCES += sim/units.c sim/units.h sim/params.c sim/params.h sim/experiment.c sim/experiment.h
