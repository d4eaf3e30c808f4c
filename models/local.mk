# models/: one file pair per mechanism, instantiated from the graph by the builder
libweft_a_SOURCES += models/workload.c models/workload.h models/workload_gen.c \
	models/workload_private.h models/flowsize.c models/flowsize.h
