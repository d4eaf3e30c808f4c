# topologies/: pure generators from parameters to the fabric graph
libweft_a_SOURCES += topologies/lft.c topologies/lft.h topologies/minhop.c topologies/minhop.h \
	topologies/updn.c topologies/updn.h
libweft_a_SOURCES += topologies/topology.c topologies/topology.h \
	topologies/leafspine.c topologies/leafspine.h \
	topologies/server.c topologies/server.h \
	topologies/railopt.c topologies/railopt.h
libweft_a_SOURCES += topologies/file.c topologies/file.h
libweft_a_SOURCES += topologies/summary.c topologies/summary.h topologies/export.c topologies/export.h
