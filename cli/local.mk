# cli/: the weft front end, one file per subcommand
weft_SOURCES += cli/main.c cli/cli.h cli/run.c cli/validate.c cli/params.c cli/report.c
weft_SOURCES += cli/topo.c cli/compare.c cli/diag.c cli/plot.c cli/sweep.c
# weft plot finds analysis/weft_plot.py in the source tree, or installed in pkgdatadir: the
# folders as make knows them (configure leaves them unexpanded), written like weft-gitrev.h.
BUILT_SOURCES += cli/plot-dirs.h
DISTCLEANFILES += cli/plot-dirs.h
cli/plot-dirs.h: FORCE
	@$(MKDIR_P) cli; \
	 text=`printf '#define WEFT_BINDIR "%s"\n#define WEFT_PKGDATADIR "%s"\n#define WEFT_ABS_SRCDIR "%s"' \
	   '$(bindir)' '$(pkgdatadir)' '$(abs_top_srcdir)'`; \
	 if ! test -f $@ || test "`cat $@`" != "$$text"; then echo "$$text" > $@; fi
cli/plot.$(OBJEXT): cli/plot-dirs.h
libweft_a_SOURCES += cli/session.c cli/session.h cli/footprint.c cli/footprint.h
# BUILT_SOURCES only precede `make all` and `make check`: say it for `make weft` too.
cli/main.$(OBJEXT) cli/run.$(OBJEXT): weft-gitrev.h
