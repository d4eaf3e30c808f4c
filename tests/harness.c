#include "config.h"
#include "tests/harness.h"

#include <stdlib.h>

char *
harness_srcpath (const char *relative)
{
    const char *top = g_getenv ("WEFT_SRCDIR");
    return g_build_filename (top ? top : ".", relative, NULL);
}

int
main (void)
{
    SRunner *sr = srunner_create (test_suite ());
    srunner_set_tap (sr, "-");
    srunner_run_all (sr, CK_SILENT);
    int failed = srunner_ntests_failed (sr);
    srunner_free (sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
