# analysis/: trace readers and reports (know the HDF5 schema only)
libweft_a_SOURCES += analysis/trace_reader.c analysis/trace_reader.h analysis/trace_reader_check.c \
	analysis/trace_reader_raw.c analysis/trace_reader_child.c \
	analysis/trace_reader_private.h
libweft_a_SOURCES += analysis/nccl_table.c analysis/nccl_table.h
libweft_a_SOURCES += analysis/perftest_table.c analysis/perftest_table.h
libweft_a_SOURCES += analysis/headline.c analysis/headline.h
libweft_a_SOURCES += analysis/compare.c analysis/compare.h
libweft_a_SOURCES += analysis/export.c analysis/export.h
# the Python reader's record table (tests/schemadoc writes it into analysis/weft_trace.py)
libweft_a_SOURCES += analysis/schema_py.c analysis/schema_py.h
# the Python reader (h5py + numpy), installed next to weft's other data
dist_pkgdata_DATA += analysis/weft_trace.py
# weft plot's figures (matplotlib), run by cli/plot.c with configure's Python
dist_pkgdata_DATA += analysis/weft_plot.py
