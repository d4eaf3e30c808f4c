# models/: one file pair per mechanism, instantiated from the graph by the builder
libweft_a_SOURCES += models/link.c models/link.h models/port.c models/port.h
libweft_a_SOURCES += models/fabric.c models/fabric.h models/routing.h
libweft_a_SOURCES += models/switch.c models/switch.h models/buffer.c models/buffer.h models/transport.c models/transport.h
libweft_a_SOURCES += models/nic.c models/nic.h
libweft_a_SOURCES += models/builder.c models/builder.h
libweft_a_SOURCES += models/workload.c models/workload.h models/workload_coll.c models/workload_gen.c \
	models/workload_perf.c \
	models/workload_train.c \
	models/workload_private.h models/flowsize.c models/flowsize.h
libweft_a_SOURCES += models/infiniband.c models/infiniband.h models/ib_credit.c models/ib_credit.h \
	models/vlarb.c models/vlarb.h models/ibcc.c models/ibcc.h \
	models/ecn.c models/ecn.h models/dcqcn.c models/dcqcn.h \
	models/pfc.c models/pfc.h
libweft_a_SOURCES += models/collective.c models/collective.h
