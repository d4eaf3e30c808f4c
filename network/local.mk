# network/: the assembly step, above models/ and workloads/: builds the models from the graph,
# attaches the workload, samples the traces, computes the results, diagnoses hangs
libweft_a_SOURCES += network/network.h network/build.c network/sample.c network/stats.c \
	network/diagnose.c network/groups.c network/report.c network/window.c network/window.h
libweft_a_SOURCES += network/results.c network/results.h
