/* fuzz/trace_reader_fuzz.h - the trace reader's fuzz target (fuzz/trace_reader_fuzz.c).
 *
 * One input: the bytes of a file that claims to be a trace, opened and then read by every row
 * reader (@every_reader) or by the one the input's size picks (libFuzzer's entry point), with
 * the public functions (a child process reads) or, @direct, in this process.
 * Aborts when the reader breaks a promise of analysis/trace_reader.h, and otherwise returns
 * 0 (libFuzzer's convention).  Not thread-safe: one scratch file per process.
 */
#ifndef WEFT_FUZZ_TRACE_READER_FUZZ_H
#define WEFT_FUZZ_TRACE_READER_FUZZ_H

#include <glib.h>
#include <stdint.h>

int weft_fuzz_trace_reader (const guint8 *data, gsize size, gboolean every_reader, gboolean direct);

/* libFuzzer's name for the same function. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#endif /* WEFT_FUZZ_TRACE_READER_FUZZ_H */
