# workloads/: traffic generators over sim/ (flow lists, permutation, incast, all-to-all,
# flow-size distributions, the collective engine, nccl-tests, perftest, training steps)
libweft_a_SOURCES += workloads/workload.c workloads/workload.h workloads/workload_private.h \
	workloads/workload_coll.c workloads/workload_gen.c workloads/workload_perf.c \
	workloads/workload_train.c workloads/flowsize.c workloads/flowsize.h \
	workloads/collective.c workloads/collective.h workloads/nccl_tune.c workloads/nccl_tune.h
