/* analysis/trace_reader_child.c - the trace reader's work in a child process.
 *
 * The checks of trace_reader_check.c and trace_reader_raw.c keep libhdf5 from what is known
 * to make it crash; they cannot cover what is not known - libhdf5 1.10 decodes object
 * headers, B-trees and heaps with few checks of its own, and fuzzing keeps finding ways to
 * crash it (a division by zero on a chunk dimension of 0 in H5Dopen, before any API call can
 * look at the layout).  So the public functions of analysis/trace_reader.h run the reading in
 * a fork: the child opens the file, checks it, reads, and sends the result back through a
 * pipe (the trace's information as a GVariant, rows as their bytes, or an error); if it dies
 * instead, by a signal or otherwise, the caller gets a one-line error naming the signal.  The
 * child's stderr goes to /dev/null, so that a dying libhdf5 (or a sanitizer report about it)
 * adds nothing to the one line - unless WEFT_TRACE_READER_CHILD_STDERR is set, as the tests
 * set it: a sanitizer report from the child is then theirs to see.  A fork costs about a
 * millisecond; the rows cross the pipe once.  Where fork fails, the work runs in the caller's
 * process.  The direct functions (analysis/trace_reader_private.h) are for the fuzz target, which
 * wants the crashes.  For the tests, WEFT_TRACE_READER_CHILD_RAISE=N makes the child raise signal N
 * at once.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/trace_reader_private.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The most the child may send besides rows: /meta's strings are at most 16 MiB each. */
#define MAX_INFO_BYTES (128 * 1024 * 1024)

#define INFO_TYPE "(bbbmsuimsttdtmsmsmsmsmsxxxxxx)"
#define RESULT_TYPE "(bs" INFO_TYPE ")" /* (is a trace, the error if not, the information) */
#define RESULT_GET "(b&s" INFO_TYPE ")" /* the same, the error borrowed */

static gboolean
write_all (int fd, const void *data, gsize n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write (fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return FALSE;
        p += w;
        n -= (gsize) w;
    }
    return TRUE;
}

/* Exactly @n bytes; FALSE at an early end. */
static gboolean
read_all (int fd, void *data, gsize n)
{
    char *p = data;
    while (n > 0) {
        ssize_t r = read (fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return FALSE;
        p += r;
        n -= (gsize) r;
    }
    return TRUE;
}

/* Forks; in the child, runs @work (@path, @data) writing to the pipe, and exits.  Returns the
 * child's pid and the pipe's read end, or -1 if there is no child (then the caller works). */
static pid_t
spawn (void (*work) (int fd, const char *path, gconstpointer data), const char *path,
       gconstpointer data, int *fd)
{
    int p[2];
    if (pipe (p) != 0)
        return -1;
    fflush (stdout); /* nothing buffered twice */
    fflush (stderr);
    pid_t pid = fork ();
    if (pid < 0) {
        close (p[0]);
        close (p[1]);
        return -1;
    }
    if (pid == 0) {
        close (p[0]);
        int null = g_getenv ("WEFT_TRACE_READER_CHILD_STDERR") ? -1 : open ("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2 (null, STDERR_FILENO);
        signal (SIGPIPE, SIG_IGN);
        /* the tests' stand-in for a libhdf5 that dies (tests/check_trace_reader.c) */
        const char *raise_signal = g_getenv ("WEFT_TRACE_READER_CHILD_RAISE");
        if (raise_signal != NULL)
            raise ((int) g_ascii_strtoll (raise_signal, NULL, 10));
        work (p[1], path, data);
        _exit (0); /* not exit(): the parent's atexit handlers and stdio are its own */
    }
    close (p[1]);
    *fd = p[0];
    return pid;
}

/* Waits for the child; NULL if it ended well, else why not.  (transfer full) */
static char *
reap (pid_t pid)
{
    int status = 0;
    while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
            return g_strdup ("the reading process vanished");
    if (WIFSIGNALED (status))
        return g_strdup_printf ("libhdf5 crashed reading it (signal %d, %s)", WTERMSIG (status),
                                g_strsignal (WTERMSIG (status)));
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        return g_strdup_printf ("the reading process failed (exit %d)", WEXITSTATUS (status));
    return NULL;
}

/* ---- weft_trace_reader_open ------------------------------------------------------------- */

/* @s as a GVariant string may hold it: valid UTF-8 (bytes that are not - a flipped byte in a
 * /meta string, or an experiment file's comment in Latin-1 - become U+FFFD; GVariant refuses
 * them with a critical).  NULL stays NULL.  (transfer full) */
static char *
utf8 (const char *s)
{
    return s == NULL ? NULL : g_utf8_make_valid (s, -1);
}

static void
open_work (int fd, const char *path, gconstpointer data)
{
    (void) data;
    GError *error = NULL;
    WeftTraceInfo *i = weft_trace_reader_open_direct (path, &error);
    GVariant *v;
    if (i == NULL) {
        char *message = utf8 (error->message);
        v = g_variant_new (RESULT_TYPE, FALSE, message, FALSE, FALSE, FALSE, NULL, 0, 0, NULL, 0, 0,
                           0.0, 0, NULL, NULL, NULL, NULL, NULL, -1, -1, -1, -1, -1, -1);
        g_free (message);
    } else {
        char *reason = utf8 (i->reason), *status = utf8 (i->status_text);
        char *version = utf8 (i->weft_version), *rev = utf8 (i->git_revision);
        char *exp_path = utf8 (i->experiment_path), *exp_text = utf8 (i->experiment_text);
        char *message = utf8 (i->message);
        v = g_variant_new (RESULT_TYPE, TRUE, "", i->readable, i->complete, i->damaged, reason,
                           i->schema_version, (gint32) i->status, status, i->seed, i->sim_time_ps,
                           i->wall_time_s, i->events, version, rev, exp_path, exp_text, message,
                           i->n_nodes, i->n_links, i->n_flows, i->n_link_samples, i->n_ports,
                           i->n_collectives);
        g_free (reason);
        g_free (status);
        g_free (version);
        g_free (rev);
        g_free (exp_path);
        g_free (exp_text);
        g_free (message);
    }
    g_variant_ref_sink (v);
    guint64 n = g_variant_get_size (v);
    gboolean ok = write_all (fd, &n, sizeof n) && write_all (fd, g_variant_get_data (v), n);
    g_variant_unref (v);
    _exit (ok ? 0 : 1);
}

WeftTraceInfo *
weft_trace_reader_open (const char *path, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);
    int fd;
    pid_t pid = spawn (open_work, path, NULL, &fd);
    if (pid < 0)
        return weft_trace_reader_open_direct (path, error);
    guint64 n = 0;
    char *bytes = NULL;
    gboolean got = read_all (fd, &n, sizeof n) && n <= MAX_INFO_BYTES &&
                   (bytes = g_try_malloc (MAX (n, 1))) != NULL && read_all (fd, bytes, n);
    close (fd);
    char *died = reap (pid);
    WeftTraceInfo *info = g_new0 (WeftTraceInfo, 1);
    info->path = g_strdup (path);
    info->n_nodes = info->n_links = info->n_flows = info->n_link_samples = info->n_ports = -1;
    info->n_collectives = -1;
    GVariant *v = got && died == NULL ? g_variant_new_from_data (G_VARIANT_TYPE (RESULT_TYPE),
                                                                 bytes, n, FALSE, g_free, bytes)
                                      : NULL;
    if (v == NULL)
        g_free (bytes);
    if (v != NULL && g_variant_is_normal_form (v)) {
        gboolean trace;
        const char *not_trace;
        gint32 status;
        g_variant_get (v, RESULT_GET, &trace, &not_trace, &info->readable, &info->complete,
                       &info->damaged, &info->reason, &info->schema_version, &status,
                       &info->status_text, &info->seed, &info->sim_time_ps, &info->wall_time_s,
                       &info->events, &info->weft_version, &info->git_revision,
                       &info->experiment_path, &info->experiment_text, &info->message,
                       &info->n_nodes, &info->n_links, &info->n_flows, &info->n_link_samples,
                       &info->n_ports, &info->n_collectives);
        info->status = (WeftTraceStatus) status;
        if (!trace) {
            g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s", not_trace);
            weft_trace_info_free (info);
            info = NULL;
        }
    } else {
        /* the child died: nothing it read can be trusted, but the file is HDF5 enough to
         * have got that far */
        info->status = WEFT_TRACE_STATUS_RUNNING;
        info->damaged = TRUE;
        info->reason = died != NULL ? g_strdup (died) : g_strdup ("the reading process failed");
    }
    if (v != NULL)
        g_variant_unref (v);
    g_free (died);
    return info;
}

/* ---- the row readers ---------------------------------------------------------------------- */

static void
rows_work (int fd, const char *path, gconstpointer data)
{
    const WeftTraceRecord *rec = data;
    GError *error = NULL;
    GArray *rows = weft_trace_reader_read_direct (path, rec, &error);
    guint8 ok = rows != NULL;
    guint64 n = rows != NULL ? rows->len : strlen (error->message);
    gboolean sent = write_all (fd, &ok, 1) && write_all (fd, &n, sizeof n) &&
                    write_all (fd, rows != NULL ? rows->data : error->message,
                               rows != NULL ? n * rec->row_size : n);
    _exit (sent ? 0 : 1);
}

GArray *
weft_trace_reader_read_record (const char *path, const WeftTraceRecord *rec, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);
    int fd;
    pid_t pid = spawn (rows_work, path, rec, &fd);
    if (pid < 0)
        return weft_trace_reader_read_direct (path, rec, error);
    guint8 ok = 0;
    guint64 n = 0;
    GArray *rows = NULL;
    char *message = NULL, *why = NULL;
    gboolean got = read_all (fd, &ok, 1) && read_all (fd, &n, sizeof n);
    if (got && ok && n <= G_MAXUINT) {
        /* the child read them: whether this process may hold them too is asked before GArray's
         * allocator, which aborts, is */
        gpointer probe = n > 0 ? g_try_malloc (n * rec->row_size) : NULL;
        if (n > 0 && probe == NULL)
            why = g_strdup_printf ("its %" G_GUINT64_FORMAT " rows need %" G_GUINT64_FORMAT
                                   " MiB, more memory than this process may use",
                                   n, (n * rec->row_size) >> 20);
        g_free (probe);
        if (why == NULL) {
            rows = g_array_sized_new (FALSE, TRUE, rec->row_size, (guint) n);
            g_array_set_size (rows, (guint) n);
            got = read_all (fd, rows->data, n * rec->row_size);
        }
    } else if (got && !ok && n <= 4096) {
        message = g_malloc0 (n + 1);
        got = read_all (fd, message, n);
    } else
        got = FALSE;
    close (fd);
    char *died = reap (pid);
    if (died != NULL || !got || why != NULL) {
        if (rows != NULL)
            g_array_free (rows, TRUE);
        rows = NULL;
        g_free (message);
        message = g_strdup_printf ("%s: cannot read %s: %s", path, rec->dataset,
                                   why    ? why
                                   : died ? died
                                          : "the reading process failed");
    }
    if (rows == NULL)
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s", message);
    g_free (message);
    g_free (why);
    g_free (died);
    return rows;
}

/* ---- any reading, as a GVariant ------------------------------------------------------------ */

typedef struct {
    GVariant *(*work) (const char *path);
} VariantWork;

static void
variant_work (int fd, const char *path, gconstpointer data)
{
    const VariantWork *w = data;
    GVariant *v = g_variant_ref_sink (w->work (path));
    guint64 n = g_variant_get_size (v);
    gboolean ok = write_all (fd, &n, sizeof n) && write_all (fd, g_variant_get_data (v), n);
    g_variant_unref (v);
    _exit (ok ? 0 : 1);
}

GVariant *
weft_trace_reader_in_child (GVariant *(*work) (const char *path), const char *path,
                            const GVariantType *type, char **why)
{
    g_return_val_if_fail (work != NULL && path != NULL && type != NULL, NULL);
    VariantWork w = { work };
    int fd;
    pid_t pid = spawn (variant_work, path, &w, &fd);
    if (pid < 0)
        return g_variant_ref_sink (work (path));
    guint64 n = 0;
    char *bytes = NULL;
    gboolean got = read_all (fd, &n, sizeof n) && n <= MAX_INFO_BYTES &&
                   (bytes = g_try_malloc (MAX (n, 1))) != NULL && read_all (fd, bytes, n);
    close (fd);
    char *died = reap (pid);
    GVariant *v = NULL;
    if (got && died == NULL) {
        v = g_variant_ref_sink (g_variant_new_from_data (type, bytes, n, FALSE, g_free, bytes));
        bytes = NULL;
        if (!g_variant_is_normal_form (v)) {
            g_variant_unref (v);
            v = NULL;
        }
    }
    g_free (bytes);
    if (v == NULL)
        *why = died != NULL ? died : g_strdup ("the reading process failed");
    else
        g_free (died);
    return v;
}
