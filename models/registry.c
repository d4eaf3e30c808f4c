/* models/registry.c - the one array of mechanisms (models/registry.h says what a descriptor
 * holds).  Order matters and is deliberate: configure runs in this order (ibcc needs
 * infiniband's packet format, ecn's defaults come from dcqcn's preset), and the run summary
 * prints the mechanisms' lines in this order. */
#include "config.h"
#define G_LOG_DOMAIN "weft-registry"
#include "models/registry.h"


const WeftMechanism *const weft_mechanisms[] = {
    &weft_ethernet_mechanism,
    &weft_infiniband_mechanism,
    &weft_vlarb_mechanism,
    &weft_ibcc_mechanism,
    &weft_dcqcn_mechanism, /* before ecn: its preset gives ECN's defaults */
    &weft_ecn_mechanism,
    &weft_pfc_mechanism,
    &weft_switch_mechanism,
    &weft_buffer_mechanism, /* after pfc: the pool sets the ports' headroom aside */
    &weft_transport_mechanism,
    NULL,
};

char *
weft_mechanism_fabrics_text (const WeftMechanism *mech)
{
    GString *s = g_string_new (NULL);
    for (int k = 0; k < WEFT_FABRIC_KIND_COUNT; k++) {
        if (!weft_mechanism_applies (mech, k))
            continue;
        if (s->len)
            g_string_append (s, " or ");
        g_string_append (s, weft_fabric_kind_name (k));
    }
    return g_string_free (s, FALSE);
}
