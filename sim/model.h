/* sim/model.h - how a model plugs into the engine: a small class table of function pointers.
 *
 * A model type is a WeftModelClass (name, parameter table, three hooks); an instance is a
 * struct whose first member is a WeftModel.  The engine allocates instances (g_malloc0 of
 * instance_size); the assembly step (network/) reads their parameters, then calls init; at the
 * end the engine calls clear, then frees them.  End-of-run statistics are not a model's: the
 * mechanisms' count, port_row and summary hooks gather them (models/registry.h).  Cross-model
 * signals (a returned credit, a PFC pause, a CNP) go through a narrow function of the module
 * that owns them, never through more slots here.
 */
#ifndef WEFT_SIM_MODEL_H
#define WEFT_SIM_MODEL_H

#include <glib.h>

#include "sim/event.h"
#include "sim/packet.h"
#include "sim/params.h"

typedef struct _WeftSim WeftSim;
typedef struct _WeftTrace WeftTrace;
typedef struct WeftModel WeftModel;

typedef struct {
    const char *name;            /* registry key and experiment-file group */
    const char *help;            /* one line for `weft params` */
    gsize instance_size;         /* sizeof the subtype; its first member is WeftModel */
    const WeftParamSpec *params; /* {NULL}-terminated, or NULL for none */
    gboolean (*init) (WeftModel *self, GError **error);             /* after params are set */
    void (*receive) (WeftModel *self, guint port, WeftPacket *pkt); /* takes ownership */
    void (*clear) (WeftModel *self); /* free owned memory; may be NULL */
} WeftModelClass;

struct WeftModel {
    const WeftModelClass *klass;
    WeftSim *sim;
    WeftSched sched; /* scheduling identity: id unique per run (0 is the engine) */
    guint32 node;    /* graph node it stands for, or G_MAXUINT32 */
    char *name;      /* owned */
};

#endif /* WEFT_SIM_MODEL_H */
