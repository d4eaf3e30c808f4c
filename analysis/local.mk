# analysis/: trace readers and reports (know the HDF5 schema only)
