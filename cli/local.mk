# cli/: the weft front end, one file per subcommand
weft_SOURCES += cli/main.c
weft_SOURCES += cli/report.c cli/cli.h
