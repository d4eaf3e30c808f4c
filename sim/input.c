/* sim/input.c - reading an input file whole, within limits (sim/input.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-input"
#include "sim/input.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/units.h"

static gboolean
too_large (GError **error, guint64 max_bytes)
{
    g_autofree char *limit = weft_units_format_bytes (max_bytes);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC,
                 "larger than the %s limit for this kind of file", limit);
    return FALSE;
}

gboolean
weft_input_read (const char *path, guint64 max_bytes, char **text, gsize *len, GError **error)
{
    g_return_val_if_fail (path != NULL && text != NULL, FALSE);
    *text = NULL;
    /* Opened without blocking (a FIFO with no writer would wait forever), then checked. */
    int fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
    if (fd < 0) {
        int saved = errno;
        g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                             g_strerror (saved));
        return FALSE;
    }
    struct stat st;
    if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
        close (fd);
        g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                             "not a regular file (a FIFO, a device or a folder)");
        return FALSE;
    }
    if ((guint64) st.st_size > max_bytes) {
        close (fd);
        return too_large (error, max_bytes);
    }
    GString *s = g_string_sized_new ((gsize) st.st_size + 1);
    char buf[65536];
    for (;;) {
        ssize_t n = read (fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close (fd);
            g_string_free (s, TRUE);
            g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                                 g_strerror (saved));
            return FALSE;
        }
        if (n == 0)
            break;
        if (s->len + (guint64) n > max_bytes) { /* it grew while we read it */
            close (fd);
            g_string_free (s, TRUE);
            return too_large (error, max_bytes);
        }
        g_string_append_len (s, buf, n);
    }
    close (fd);
    if (len)
        *len = s->len;
    *text = g_string_free (s, FALSE);
    return TRUE;
}
