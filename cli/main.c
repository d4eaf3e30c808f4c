#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
    if (argc > 1 && strcmp (argv[1], "--version") == 0) {
        printf ("weft %s\n", PACKAGE_VERSION);
        return 0;
    }
    g_printerr ("usage: weft --version\n");
    return 2;
}
