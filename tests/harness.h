/* tests/harness.h - shared test support.
 *
 * harness.c owns main(): every tests/check_X.c defines test_suite(), and the harness runs it
 * with TAP output on stdout (Automake's tap-driver reads it).  CK_FORK=no under gdb or
 * valgrind; CK_RUN_SUITE / CK_RUN_CASE pick subsets; CK_EXCLUDE_TAGS=slow skips slow cases.
 */
#ifndef WEFT_TESTS_HARNESS_H
#define WEFT_TESTS_HARNESS_H

#include <check.h>
#include <glib.h>

/* Defined by each check_X.c. */
Suite *test_suite (void);

/* Absolute path of a file in the source tree (WEFT_SRCDIR, or "." when unset).  (transfer full) */
char *harness_srcpath (const char *relative);

#endif /* WEFT_TESTS_HARNESS_H */
