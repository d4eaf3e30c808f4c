/* tests/check_server.c - [server] presets (topologies/server.c).
 *
 * Invariants checked: each preset's GPUs, NICs, NVLink, PCIe and NIC rates and NIC names
 * equal the figures worked out here from the cited sources (doc/servers.md): NVLink per GPU
 * each way is half the bidirectional figure (DGX B200 and A100: the NVSwitch aggregate over 8
 * GPUs); PCIe Gen4 x16 is half Gen5 x16 (16 against 32 GT/s, both 128b/130b), and Gen5's
 * effective 50 GB/s lies within 75-85 % of its raw rate; the DGX H100 NIC names are the RDMA
 * devices of its user guide's Network Modules table sorted by GPU; a key the experiment sets
 * (in the file, in an included file, or with --set) overrides the preset, whatever the order;
 * an unknown preset is a WEFT_CONFIG_ERROR_VALUE naming [server] preset; the table's defaults
 * are the dgx-h100 preset's.
 * Unchecked here: the servers a preset builds and the names perftest prints
 * (tests/e2e/server_presets.sh).
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "tests/harness.h"
#include "topologies/server.h"

#define GB_PER_S(x) ((guint64) ((x) *8e9 + 0.5)) /* GB/s (10^9 bytes) to bit/s */
#define GBIT_PER_S(x) ((guint64) ((x) *1e9 + 0.5))

/* Reads [server] from @text; fails the test on bad input. */
static void
read_server (const char *text, const char *set, WeftServerParams *p)
{
    GError *error = NULL;
    WeftExperiment *exp = weft_experiment_new_from_data (text, "t.ini", &error);
    ck_assert_msg (exp != NULL, "%s", error ? error->message : "");
    if (set != NULL)
        ck_assert (weft_experiment_set (exp, set, &error));
    memset (p, 0, sizeof *p);
    gboolean ok = weft_server_read (p, exp, &error);
    ck_assert_msg (ok, "%s", error ? error->message : "");
    weft_experiment_free (exp);
}

static void
assert_names (char **got, const char *const *want, guint n)
{
    ck_assert_uint_eq (g_strv_length (got), n);
    for (guint i = 0; i < n; i++)
        ck_assert_str_eq (got[i], want[i]);
}

/* PCIe x16, one direction, raw: transfer rate x 16 lanes x 128/130, in bytes/s. */
static double
pcie_raw_bytes (double gts)
{
    return gts * 1e9 * 16 * 128.0 / 130.0 / 8;
}

START_TEST (test_server_preset_dgx_h100)
{
    WeftServerParams p;
    read_server ("[server]\npreset = dgx-h100\n", NULL, &p);
    ck_assert_int_eq (p.preset, WEFT_SERVER_DGX_H100);
    ck_assert_uint_eq (p.gpus, 8);
    ck_assert_uint_eq (p.nics, 8);
    /* NVLink 4: 900 GB/s per GPU both ways (SuperPOD H100 RA) */
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (900.0 / 2));
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (400)); /* ConnectX-7 */
    /* PCIe Gen5 x16 (32 GT/s): 50 GB/s effective of 63 raw */
    ck_assert_uint_eq (p.pcie_rate_bps, GB_PER_S (50));
    double eff = (double) p.pcie_rate_bps / 8 / pcie_raw_bytes (32);
    ck_assert_msg (eff > 0.75 && eff < 0.85, "Gen5 efficiency %.3f", eff);
    /* DGX H100 user guide, Network Modules: (port, GPU, RDMA device) */
    static const struct {
        int gpu;
        const char *rdma;
    } modules[] = {
        { 7, "mlx5_11" }, { 4, "mlx5_6" }, { 6, "mlx5_10" }, { 5, "mlx5_9" },
        { 2, "mlx5_4" },  { 1, "mlx5_3" }, { 3, "mlx5_5" },  { 0, "mlx5_0" },
    };
    const char *by_gpu[8] = { NULL };
    for (guint i = 0; i < G_N_ELEMENTS (modules); i++)
        by_gpu[modules[i].gpu] = modules[i].rdma;
    assert_names (p.nic_names, by_gpu, 8);
    weft_params_clear (weft_server_params (), &p);
}
END_TEST

START_TEST (test_server_preset_dgx_b200)
{
    WeftServerParams p, h100;
    read_server ("[server]\npreset = dgx-b200\n", NULL, &p);
    read_server ("[server]\npreset = dgx-h100\n", NULL, &h100);
    ck_assert_int_eq (p.preset, WEFT_SERVER_DGX_B200);
    ck_assert_uint_eq (p.gpus, 8);
    ck_assert_uint_eq (p.nics, 8);
    /* 2 NVLink 5 switches, 14.4 TB/s aggregate over 8 GPUs: 1.8 TB/s each, 900 GB/s each way */
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (14400.0 / 8 / 2));
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (400));    /* ConnectX-7 */
    ck_assert_uint_eq (p.pcie_rate_bps, h100.pcie_rate_bps); /* Gen5, as the H100 */
    static const char *const names[] = { "mlx5_4",  "mlx5_7",  "mlx5_8",  "mlx5_9",
                                         "mlx5_10", "mlx5_13", "mlx5_14", "mlx5_15" };
    assert_names (p.nic_names, names, 8);
    weft_params_clear (weft_server_params (), &p);
    weft_params_clear (weft_server_params (), &h100);
}
END_TEST

START_TEST (test_server_preset_dgx_a100)
{
    WeftServerParams p, h100;
    read_server ("[server]\npreset = dgx-a100\n", NULL, &p);
    read_server ("[server]\npreset = dgx-h100\n", NULL, &h100);
    ck_assert_int_eq (p.preset, WEFT_SERVER_DGX_A100);
    ck_assert_uint_eq (p.gpus, 8);
    ck_assert_uint_eq (p.nics, 8);
    /* 6 NVSwitches, 4.8 TB/s over 8 GPUs: NVLink 3 at 600 GB/s each, 300 GB/s each way */
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (4800.0 / 8 / 2));
    /* ConnectX-6 VPI HDR: 4 lanes x 50 Gb/s */
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (4 * 50));
    /* PCIe Gen4 x16: 16 GT/s against Gen5's 32, same encoding */
    ck_assert_uint_eq (p.pcie_rate_bps * 2, h100.pcie_rate_bps);
    ck_assert_double_eq_tol (pcie_raw_bytes (16) * 2, pcie_raw_bytes (32), 1);
    static const char *const names[] = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3",
                                         "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9" };
    assert_names (p.nic_names, names, 8);
    weft_params_clear (weft_server_params (), &p);
    weft_params_clear (weft_server_params (), &h100);
}
END_TEST

/* Keys the experiment sets win over the preset, before or after it, from --set, or from an
 * included file; the keys presets do not set keep the table's defaults. */
START_TEST (test_server_preset_overrides)
{
    WeftServerParams p;
    read_server ("[server]\nnic_rate = 400Gbps\npreset = dgx-a100\nnic_names = a;b\n"
                 "nvswitches = 6\n",
                 NULL, &p);
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (400));
    static const char *const ab[] = { "a", "b" };
    assert_names (p.nic_names, ab, 2);
    ck_assert_uint_eq (p.nvswitches, 6);
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (300)); /* the preset's */
    ck_assert_uint_eq (p.pcie_rate_bps, GB_PER_S (25));
    ck_assert_uint_eq (p.nvlink_latency_ps, 100000); /* the table's 100ns */
    ck_assert (p.gpudirect);
    weft_params_clear (weft_server_params (), &p);

    read_server ("[server]\npreset = dgx-b200\n", "server:nvlink_rate=100GB/s", &p);
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (100));
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (400));
    weft_params_clear (weft_server_params (), &p);

    /* a preset from --set over a file without one */
    read_server ("[server]\ngpus = 4\n", "server:preset=dgx-a100", &p);
    ck_assert_uint_eq (p.gpus, 4);
    ck_assert_uint_eq (p.nic_rate_bps, GBIT_PER_S (200));
    weft_params_clear (weft_server_params (), &p);

    /* an included file's key is the experiment's too */
    g_autofree char *base = g_build_filename (harness_tmp, "base.ini", NULL);
    g_autofree char *top = g_build_filename (harness_tmp, "top.ini", NULL);
    ck_assert (g_file_set_contents (base, "[server]\npcie_rate = 32GB/s\n", -1, NULL));
    g_autofree char *text =
        g_strdup_printf ("[experiment]\ninclude = %s\n[server]\npreset = dgx-a100\n", base);
    ck_assert (g_file_set_contents (top, text, -1, NULL));
    GError *error = NULL;
    WeftExperiment *exp = weft_experiment_load (top, &error);
    ck_assert_msg (exp != NULL, "%s", error ? error->message : "");
    memset (&p, 0, sizeof p);
    ck_assert (weft_server_read (&p, exp, &error));
    ck_assert_uint_eq (p.pcie_rate_bps, GB_PER_S (32));
    ck_assert_uint_eq (p.nvlink_rate_bps, GB_PER_S (300));
    weft_params_clear (weft_server_params (), &p);
    weft_experiment_free (exp);
}
END_TEST

START_TEST (test_server_preset_unknown)
{
    GError *error = NULL;
    WeftExperiment *exp =
        weft_experiment_new_from_data ("[server]\npreset = dgx-b300\n", "t.ini", &error);
    ck_assert_ptr_nonnull (exp);
    WeftServerParams p;
    memset (&p, 0, sizeof p);
    ck_assert (!weft_server_read (&p, exp, &error));
    ck_assert_int_eq (error->domain, WEFT_CONFIG_ERROR);
    ck_assert_int_eq (error->code, WEFT_CONFIG_ERROR_VALUE);
    ck_assert_msg (strstr (error->message, "t.ini: [server] preset: ") != NULL, "%s",
                   error->message);
    ck_assert_ptr_nonnull (strstr (error->message, "dgx-a100"));
    g_clear_error (&error);
    weft_params_clear (weft_server_params (), &p);
    weft_experiment_free (exp);
}
END_TEST

/* The table's defaults (what `weft params server` shows, and what code without a file gets)
 * are the dgx-h100 preset's, and a file without [server] reads as that preset. */
START_TEST (test_server_defaults_are_dgx_h100)
{
    WeftServerParams d, h, none;
    memset (&d, 0, sizeof d);
    weft_params_set_defaults (weft_server_params (), &d);
    memset (&h, 0, sizeof h);
    weft_params_set_defaults (weft_server_params (), &h);
    weft_server_preset_set (&h, WEFT_SERVER_DGX_H100);
    read_server ("[experiment]\nname = x\n", NULL, &none);
    const WeftServerParams *all[] = { &h, &none };
    for (guint i = 0; i < G_N_ELEMENTS (all); i++) {
        const WeftServerParams *o = all[i];
        ck_assert_int_eq (o->preset, d.preset);
        ck_assert_uint_eq (o->gpus, d.gpus);
        ck_assert_uint_eq (o->nics, d.nics);
        ck_assert_uint_eq (o->nvlink_rate_bps, d.nvlink_rate_bps);
        ck_assert_uint_eq (o->pcie_rate_bps, d.pcie_rate_bps);
        ck_assert_uint_eq (o->nic_rate_bps, d.nic_rate_bps);
        assert_names (o->nic_names, (const char *const *) d.nic_names, g_strv_length (d.nic_names));
    }
    weft_params_clear (weft_server_params (), &d);
    weft_params_clear (weft_server_params (), &h);
    weft_params_clear (weft_server_params (), &none);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("server");
    TCase *tc = tcase_create ("presets");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_server_preset_dgx_h100);
    tcase_add_test (tc, test_server_preset_dgx_b200);
    tcase_add_test (tc, test_server_preset_dgx_a100);
    tcase_add_test (tc, test_server_preset_overrides);
    tcase_add_test (tc, test_server_preset_unknown);
    tcase_add_test (tc, test_server_defaults_are_dgx_h100);
    suite_add_tcase (s, tc);
    return s;
}
