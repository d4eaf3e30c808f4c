# analysis/: trace readers and reports (know the HDF5 schema only)
libweft_a_SOURCES += analysis/trace_reader.c analysis/trace_reader.h analysis/trace_reader_check.c \
	analysis/trace_reader_raw.c analysis/trace_reader_child.c \
	analysis/trace_reader_private.h
libweft_a_SOURCES += analysis/nccl_table.c analysis/nccl_table.h
libweft_a_SOURCES += analysis/perftest_table.c analysis/perftest_table.h
libweft_a_SOURCES += analysis/headline.c analysis/headline.h
libweft_a_SOURCES += analysis/compare.c analysis/compare.h
libweft_a_SOURCES += analysis/collected.c analysis/collected.h
libweft_a_SOURCES += analysis/export.c analysis/export.h
libweft_a_SOURCES += analysis/derived.c analysis/derived.h
libweft_a_SOURCES += analysis/ibdiag.c analysis/ibdiag.h analysis/ibdiag_check.c \
	analysis/ibdiag_private.h
# the Python reader's record table (tests/schemadoc writes it into analysis/weft_trace.py)
libweft_a_SOURCES += analysis/schema_py.c analysis/schema_py.h
# the Python reader (h5py + numpy), installed next to weft's other data
dist_pkgdata_DATA += analysis/weft_trace.py
# weft plot's figures (matplotlib), run by cli/plot.c with configure's Python
dist_pkgdata_DATA += analysis/weft_plot.py
# `make figures`: the README's figures (doc/figures/*.png), drawn by weft plot from shipped
# experiments, and the data drawn in them (*.csv, which tests/e2e/figures.sh compares with a
# fresh run), rewritten in the source tree by doc/figures/figures.py.
figures: weft$(EXEEXT)
	@test -n "$(WEFT_PYTHON)" || { echo "figures: configure found no Python 3 with matplotlib, h5py and numpy" >&2; exit 1; }
	$(WEFT_PYTHON) -I $(srcdir)/doc/figures/figures.py ./weft$(EXEEXT) $(srcdir) $(srcdir)/doc/figures
.PHONY: figures
