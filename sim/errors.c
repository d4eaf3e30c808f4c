#include "config.h"
#include "sim/errors.h"

G_DEFINE_QUARK (weft-config-error-quark, weft_config_error)
G_DEFINE_QUARK (weft-trace-error-quark, weft_trace_error)
G_DEFINE_QUARK (weft-topo-error-quark, weft_topo_error)
