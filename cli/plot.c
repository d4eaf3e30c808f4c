/* cli/plot.c - `weft plot TRACE.h5... --kind KIND --out DIR [--format png|svg] [--links ...]
 * [--flows ...]`: figures from traces, drawn by analysis/weft_plot.py (matplotlib).
 *
 * This file only finds the two things the Python module needs and hands over to it (exec, so
 * the module's exit status is weft plot's): the Python 3 configure found with matplotlib,
 * h5py and numpy (WEFT_PYTHON in config.h; configure --with-python=PATH chooses another), and
 * the module itself - in the source tree's analysis/ folder for a weft run from its build
 * tree, in the package data folder for an installed weft (the running program is the
 * installed one when it is bindir's weft).  The module calls `weft compare --format json`
 * (this very program, passed as WEFT_EXE) to name what differs between the runs in legends.
 * Options are checked, and --help printed, by the module, so that the two never disagree.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/plot-dirs.h"
#include "sim/errors.h"

/* The running program's path ("weft" resolved through PATH when /proc is missing).
 * (transfer full) */
static char *
self_path (const char *argv0)
{
    char *exe = g_file_read_link ("/proc/self/exe", NULL);
    if (exe != NULL)
        return exe;
    if (strchr (argv0, '/') != NULL)
        return g_canonicalize_filename (argv0, NULL);
    char *found = g_find_program_in_path (argv0);
    return found != NULL ? found : g_strdup (argv0);
}

/* Whether @a and @b name the same existing file. */
static gboolean
same_file (const char *a, const char *b)
{
    GStatBuf sa, sb;
    return g_stat (a, &sa) == 0 && g_stat (b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* analysis/weft_plot.py for the program at @exe.  (transfer full) */
static char *
module_path (const char *exe)
{
    g_autofree char *installed = g_build_filename (WEFT_BINDIR, "weft", NULL);
    if (same_file (exe, installed))
        return g_build_filename (WEFT_PKGDATADIR, "weft_plot.py", NULL);
    return g_build_filename (WEFT_ABS_SRCDIR, "analysis", "weft_plot.py", NULL);
}

int
weft_cli_plot (int argc, char **argv)
{
    if (WEFT_PYTHON[0] == '\0') {
        g_printerr ("weft plot: no Python 3 with matplotlib, h5py and numpy was found when weft "
                    "was configured: install them (Debian: apt-get install python3-matplotlib "
                    "python3-h5py python3-numpy) and run ./configure again, or ./configure "
                    "--with-python=PATH\n");
        return WEFT_EXIT_FAILURE;
    }
    g_autofree char *exe = self_path (argv[0]);
    g_autofree char *module = module_path (exe);
    if (!g_file_test (module, G_FILE_TEST_IS_REGULAR)) {
        g_printerr ("weft plot: %s is missing (reinstall weft, or run make in its build tree)\n",
                    module);
        return WEFT_EXIT_FAILURE;
    }
    g_setenv ("WEFT_EXE", exe, TRUE);
    /* -I: neither PYTHONPATH nor the user's site-packages, as configure checked it. */
    GPtrArray *args = g_ptr_array_new ();
    g_ptr_array_add (args, (char *) WEFT_PYTHON);
    g_ptr_array_add (args, (char *) "-I");
    g_ptr_array_add (args, module);
    for (int i = 1; i < argc; i++)
        g_ptr_array_add (args, argv[i]);
    g_ptr_array_add (args, NULL);
    fflush (stdout);
    execv (WEFT_PYTHON, (char **) args->pdata);
    int err = errno;
    g_ptr_array_free (args, TRUE);
    g_printerr ("weft plot: cannot run %s: %s (./configure --with-python=PATH names another)\n",
                WEFT_PYTHON, g_strerror (err));
    return WEFT_EXIT_FAILURE;
}
