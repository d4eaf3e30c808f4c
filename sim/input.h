/* sim/input.h - reading an input file whole, with the limits every reader of user files shares.
 *
 * An experiment may name other files (include, a flow list, a size CDF, a topology, a
 * forwarding table, an SL-to-VL table).  Each is read whole, so a name that points at an
 * endless stream (/dev/zero, a FIFO) or at a huge file would grow memory without bound: only
 * regular files are read, and only up to a limit per kind of file, checked against the file's
 * size before reading and again while reading (a file that grows meanwhile).
 */
#ifndef WEFT_SIM_INPUT_H
#define WEFT_SIM_INPUT_H

#include <glib.h>

/* Limits by kind of file: far above any real one, far below what would hurt the machine. */
#define WEFT_INPUT_MAX_EXPERIMENT (16u << 20) /* an experiment file or an include: 16 MiB */
#define WEFT_INPUT_MAX_TABLE (64u << 20)      /* a size CDF, an SL-to-VL table: 64 MiB */
#define WEFT_INPUT_MAX_BULK (G_GUINT64_CONSTANT (2) << 30) /* flow lists, topologies, routes */

/** Reads the regular file @path whole (NUL-terminated) into *@text (and its length into *@len,
 * which may be NULL).  Fails with a G_FILE_ERROR whose message is the reason alone: the OS's
 * ("No such file or directory"), "not a regular file (a FIFO, a device or a folder)" or "larger
 * than the 16MiB limit for this kind of file" - the caller names the file and the key. */
gboolean weft_input_read (const char *path, guint64 max_bytes, char **text, gsize *len,
                          GError **error);

#endif /* WEFT_SIM_INPUT_H */
