/*
 * test_trace.c - the Chrome trace writer (trace.h) fed by the simulator.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include <criterion/criterion.h>

#include "core/err.h"
#include "sim/sim.h"
#include "tests/unit/simtest.h"

static const struct simtest_op ops[] = {
    {"A\"q\\x", 10, "100", 50, 0, 0, NULL},
    {"B", 5, "20", 0, 0, 1, "A\"q\\x:0"},
    {"C", 3, "", 10, 0, 0, "A\"q\\x:0 B:0"},
};

static char *trace_text(enum sim_model model, enum channel_model ch, struct trace *t)
{
    struct graph g;
    struct cluster c;
    struct sim_result r;
    struct sim_options opt = {.model = model, .trace = t};
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    cr_assert_eq(simtest_graph(&g, ops, 3), 0, "%s", err_msg());
    cr_assert_eq(simtest_cluster(&c, 2, 1 << 20, 0.0375, 3.25, ch), 0);
    trace_init(t, CHANNEL_SHARED);
    cr_assert_eq(sim_run(&g, &c, g.given_device, &opt, &r), 0, "%s", err_msg());
    cr_expect_eq(t->n_compute, 3);
    cr_expect_eq(t->n_transfer, 2);
    cr_expect_gt(t->n_mem, 0);
    f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(trace_write_chrome(t, &g, &c, f), 0);
    fclose(f);
    sim_result_release(&r);
    graph_release(&g);
    cluster_release(&c);
    return buf;
}

Test(trace, duplex_tracks_and_events)
{
    struct trace t;
    char *s = trace_text(SIM_MODEL_TIMED, CHANNEL_DUPLEX, &t);

    cr_expect_eq(t.channel, CHANNEL_DUPLEX, "the simulator sets the trace's channel model");
    cr_expect(strstr(s, "\"traceEvents\"") != NULL);
    cr_expect(strstr(s, "\"process_name\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{\"name\":"
                        "\"gpu0\"}") != NULL);
    cr_expect(strstr(s, "\"args\":{\"name\":\"compute\"}") != NULL);
    cr_expect(strstr(s, "\"args\":{\"name\":\"send\"}") != NULL);
    cr_expect(strstr(s, "\"args\":{\"name\":\"recv\"}") != NULL);
    cr_expect(strstr(s, "\"name\":\"B\",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":1,\"tid\":0,"
                        "\"ts\":17,\"dur\":5") != NULL,
              "%s", s);
    cr_expect(strstr(s, "\"A\\\"q\\\\x\"") != NULL, "name not escaped: %s", s);
    cr_expect(strstr(s, "\"tensor\":\"B:0\",\"bytes\":20,\"src\":\"gpu1\",\"dst\":\"gpu0\"") !=
              NULL);
    cr_expect(strstr(s, "\"ph\":\"C\"") != NULL);
    free(s);
    trace_release(&t);
}

Test(trace, link_and_shared_tracks)
{
    struct trace t;
    char *s = trace_text(SIM_MODEL_TIMED, CHANNEL_LINK, &t);

    cr_expect(strstr(s, "\"link -> gpu1\"") != NULL);
    cr_expect(strstr(s, "\"tid\":101") != NULL);
    free(s);
    trace_release(&t);

    s = trace_text(SIM_MODEL_BAECHI, CHANNEL_LINK, &t);
    cr_expect_eq(t.channel, CHANNEL_SHARED, "the baechi model draws one channel per device");
    /* its two sides on their own tracks: the receiver's may be taken later */
    cr_expect(strstr(s, "\"args\":{\"name\":\"send\"}") != NULL);
    cr_expect(strstr(s, "\"args\":{\"name\":\"recv\"}") != NULL);
    cr_expect(strstr(s, "link ->") == NULL);
    free(s);
    trace_release(&t);
}
