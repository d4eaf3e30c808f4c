/* fuzz/experiment_fuzz.h - the experiment front end's fuzz target (fuzz/experiment_fuzz.c).
 *
 * One input: the bytes of an experiment file, with `--set` overrides carried in comment lines
 * of the form `#set GROUP:KEY=VALUE` (so every input is also a plain experiment file, and the
 * experiments of the corpus stay readable).  The input goes through weft_session_prepare(),
 * exactly what `weft validate` and `weft run` do before simulating: parsing, includes,
 * overrides, every group and key, the memory estimate, the topology, the models and the
 * workload.  Aborts when the front end breaks a promise, and otherwise returns 0 (libFuzzer's
 * convention).  Not thread-safe: one scratch folder per process.
 */
#ifndef WEFT_FUZZ_EXPERIMENT_FUZZ_H
#define WEFT_FUZZ_EXPERIMENT_FUZZ_H

#include <glib.h>
#include <stdint.h>

/* The memory a fuzzed experiment may ask for (--max-memory): larger ones are refused by the
 * estimate, as weft run refuses them, before anything is built. */
#define WEFT_FUZZ_EXPERIMENT_MAX_MEMORY (64u << 20)

int weft_fuzz_experiment (const guint8 *data, gsize size);

/* This process's scratch folder (a fresh name under /dev/shm or the temporary folder, made by
 * the first input and removed with its contents at exit), or NULL before the first input. */
const char *weft_fuzz_experiment_scratch (void);

/* libFuzzer's name for the same function. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#endif /* WEFT_FUZZ_EXPERIMENT_FUZZ_H */
