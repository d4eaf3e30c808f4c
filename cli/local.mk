# cli/: the weft front end, one file per subcommand
weft_SOURCES += cli/main.c cli/cli.h cli/run.c cli/validate.c cli/params.c cli/report.c
weft_SOURCES += cli/topo.c cli/compare.c cli/sweep.c
libweft_a_SOURCES += cli/session.c cli/session.h cli/footprint.c cli/footprint.h
# BUILT_SOURCES only precede `make all` and `make check`: say it for `make weft` too.
cli/main.$(OBJEXT) cli/run.$(OBJEXT): weft-gitrev.h
