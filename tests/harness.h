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

#include "cli/session.h"

/* Defined by each check_X.c. */
Suite *test_suite (void);

/* Absolute path of a file in the source tree (WEFT_SRCDIR, or "." when unset).  (transfer full) */
char *harness_srcpath (const char *relative);

/* A scratch directory for one test, and its removal with everything in it.  The checked
 * fixtures harness_tmp_setup / harness_tmp_teardown keep it in harness_tmp. */
extern char *harness_tmp;
void harness_tmp_setup (void);
void harness_tmp_teardown (void);

/* Writes @text to harness_tmp/t.ini and prepares a session from it (cli/session.h) as
 * `weft run` would; FALSE with @error on bad input. */
gboolean harness_try_prepare (WeftSession *session, const char *text, GError **error);
/* The same, failing the test on bad input. */
void harness_prepare (WeftSession *session, const char *text);

/* The id of the node named @name in @session's graph, and its endpoint (a host or GPU); fails
 * the test when there is no such node. */
guint32 harness_node (const WeftSession *session, const char *name);
guint32 harness_endpoint (const WeftSession *session, const char *name);

#endif /* WEFT_TESTS_HARNESS_H */
