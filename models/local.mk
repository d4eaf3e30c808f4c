# models/: one file pair per mechanism, instantiated from the graph by the builder
