# models/: one file pair per mechanism, instantiated from the graph by the assembly step (network/)
libweft_a_SOURCES += models/link.c models/link.h models/port.c models/port.h
libweft_a_SOURCES += models/fabric.c models/fabric.h models/routing.h
libweft_a_SOURCES += models/switch.c models/switch.h models/buffer.c models/buffer.h models/transport.c models/transport.h \
	models/pathcache.c models/pathcache.h
libweft_a_SOURCES += models/nic.c models/nic.h models/registry.c models/registry.h
libweft_a_SOURCES += models/infiniband.c models/infiniband.h models/ib_credit.c models/ib_credit.h \
	models/vlarb.c models/vlarb.h models/ibcc.c models/ibcc.h \
	models/ecn.c models/ecn.h models/dcqcn.c models/dcqcn.h \
	models/pfc.c models/pfc.h models/fault.c models/fault.h models/sm.c models/sm.h \
	models/frn.c models/frn.h \
	models/uet.c models/uet.h models/uet_pds.c models/nscc.c models/nscc.h \
	models/rccc.c models/rccc.h
