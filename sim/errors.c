#include "config.h"
#include "sim/errors.h"

/* The quark names are strings that clang-format would split at the dashes. */
/* clang-format off */
G_DEFINE_QUARK (weft-config-error-quark, weft_config_error)
G_DEFINE_QUARK (weft-trace-error-quark, weft_trace_error)
G_DEFINE_QUARK (weft-topo-error-quark, weft_topo_error)
/* clang-format on */
