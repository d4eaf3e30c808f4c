# cli/: the weft front end, one file per subcommand
weft_SOURCES += cli/main.c
