# analysis/: trace readers and reports (know the HDF5 schema only)
libweft_a_SOURCES += analysis/trace_reader.c analysis/trace_reader.h
