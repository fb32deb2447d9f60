/*
 * test_placement.c - placements (core/placement.c): the `given` rule, the
 * check, and the placement file (read, write, errors).
 */
#include "core/cluster.h"
#include "core/err.h"
#include "core/graph.h"
#include "core/placement.h"
#include "core/workload_yaml.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * a(dev 1) -> b(g) -> c(g, dev 2) -> d;  e -> f(h) <- a;  f -> k(h);  z -> y(h);
 * lonely is dangling (pruned).
 */
static const char wl_text[] =
    "format: 1\nname: pl\nops:\n"
    "  - {name: a, type: T, outputs: [10], device: 1}\n"
    "  - {name: b, type: T, outputs: [10], inputs: [a], group: g}\n"
    "  - {name: c, type: T, outputs: [10], inputs: [b], group: g, device: 2}\n"
    "  - {name: d, type: T, outputs: [10], inputs: [c]}\n"
    "  - {name: e, type: T, outputs: [10]}\n"
    "  - {name: f, type: T, outputs: [10], inputs: [e, a], group: h}\n"
    "  - {name: k, type: T, inputs: [f], group: h}\n"
    "  - {name: z, type: T, outputs: [1]}\n"
    "  - {name: y, type: T, inputs: [z], group: h}\n"
    "  - {name: lonely, type: T}\n";

struct fixture {
    struct workload w;
    struct graph g;
    struct cluster c;
};

static void setup(struct fixture *fx)
{
    cr_assert_eq(workload_read_yaml_string(&fx->w, wl_text, strlen(wl_text), "pl.yaml"), 0, "%s",
                 err_msg());
    cr_assert_eq(graph_build(&fx->g, &fx->w), 0, "%s", err_msg());
    cr_assert_eq(fx->g.n_ops, 9);
    cluster_init(&fx->c);
    cr_assert_eq(cluster_add_devices(&fx->c, 4, 1 << 20, 1.0), 0);
}

static void teardown(struct fixture *fx)
{
    cluster_release(&fx->c);
    graph_release(&fx->g);
    workload_release(&fx->w);
}

static int32_t dev(const struct fixture *fx, const struct placement *p, const char *name)
{
    int32_t u = graph_find(&fx->g, name);

    cr_assert_geq(u, 0, "%s", name);
    return p->device_of[u];
}

Test(placement, from_given_rule)
{
    struct fixture fx;
    struct placement p;

    setup(&fx);
    cr_assert_eq(placement_init(&p, fx.g.n_ops), 0);
    cr_assert_eq(placement_from_given(&p, &fx.g), 0, "%s", err_msg());
    cr_assert_eq(dev(&fx, &p, "a"), 1); /* given */
    cr_assert_eq(dev(&fx, &p, "c"), 2); /* given */
    cr_assert_eq(dev(&fx, &p, "b"), 2); /* its group's given device, not its producer's */
    cr_assert_eq(dev(&fx, &p, "d"), 2); /* its producer's */
    cr_assert_eq(dev(&fx, &p, "e"), 0); /* nothing: device 0 */
    cr_assert_eq(dev(&fx, &p, "z"), 0);
    /* f's first producer in in-edge order (by producer id) is a, not e */
    cr_assert_eq(dev(&fx, &p, "f"), 1);
    /* the group follows whichever member came first in topological order */
    cr_assert_eq(dev(&fx, &p, "k"), dev(&fx, &p, "f"));
    cr_assert_eq(dev(&fx, &p, "y"), dev(&fx, &p, "f"));
    cr_assert_eq(placement_check(&p, &fx.g, &fx.c), 0, "%s", err_msg());
    placement_release(&p);
    teardown(&fx);
}

static char *write_to_string(const struct placement *p, const struct graph *g, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);

    cr_assert_not_null(f);
    cr_assert_eq(placement_write_yaml(p, g, f), 0, "%s", err_msg());
    fclose(f);
    return buf;
}

Test(placement, write_read_round_trip)
{
    struct fixture fx;
    struct placement p, q;
    char *t1, *t2;
    size_t n1, n2;

    setup(&fx);
    cr_assert_eq(placement_init(&p, fx.g.n_ops), 0);
    for (int32_t u = 0; u < fx.g.n_ops; u++) {
        p.device_of[u] = u % 4;
    }
    cr_assert_eq(placement_set_meta(&p, "pl", "paper-4gpu-pcie", "m-etf"), 0);
    cr_assert_eq(placement_add_option(&p, "grouper", "coplace"), 0);
    cr_assert_eq(placement_add_option(&p, "fusion", "true"), 0);
    cr_assert_eq(placement_add_option(&p, "note", "a: b, c"), 0);
    cr_assert_eq(placement_add_stat(&p, "placement_ms", "12.5"), 0);
    cr_assert_eq(placement_add_stat(&p, "estimate_us", "81234"), 0);
    cr_assert_eq(placement_add_stat(&p, "estimate_us", "81235"), 0); /* replaces */
    cr_assert_eq(p.n_stats, 2);
    t1 = write_to_string(&p, &fx.g, &n1);
    cr_assert(strstr(t1, "format: 1\nworkload: pl\ncluster: paper-4gpu-pcie\nplacer: m-etf\n"
                         "options: {grouper: coplace, fusion: true, note: 'a: b, c'}\n"
                         "stats: {placement_ms: 12.5, estimate_us: 81235}\n"
                         "devices:\n  a: 0\n  b: 1\n"),
              "%s", t1);
    cr_assert_eq(placement_read_yaml_string(&q, &fx.g, &fx.w, t1, n1, "p.yaml"), 0, "%s",
                 err_msg());
    for (int32_t u = 0; u < fx.g.n_ops; u++) {
        cr_assert_eq(q.device_of[u], p.device_of[u]);
    }
    cr_assert_str_eq(q.workload, "pl");
    cr_assert_str_eq(q.cluster, "paper-4gpu-pcie");
    cr_assert_str_eq(q.placer, "m-etf");
    cr_assert_eq(q.n_options, 3);
    cr_assert_str_eq(q.options[2].value, "a: b, c");
    cr_assert_str_eq(q.stats[1].key, "estimate_us");
    cr_assert_str_eq(q.stats[1].value, "81235");
    t2 = write_to_string(&q, &fx.g, &n2);
    cr_assert_eq(n1, n2);
    cr_assert_eq(memcmp(t1, t2, n1), 0);
    free(t1);
    free(t2);
    placement_release(&q);
    placement_release(&p);
    teardown(&fx);
}

Test(placement, pruned_names)
{
    static const char text[] = "format: 1\ndevices: {a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, k: 0, "
                               "z: 0, y: 0, lonely: 3}\n";
    struct fixture fx;
    struct placement p;

    setup(&fx);
    /* with the workload, a pruned op's name is accepted and ignored */
    cr_assert_eq(placement_read_yaml_string(&p, &fx.g, &fx.w, text, strlen(text), "p.yaml"), 0,
                 "%s", err_msg());
    cr_assert_eq(p.n_ops, 9);
    placement_release(&p);
    /* without it, it is an unknown name */
    cr_assert_eq(placement_read_yaml_string(&p, &fx.g, NULL, text, strlen(text), "p.yaml"),
                 BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "p.yaml:2:"), "%s", err_msg());
    cr_assert(strstr(err_msg(), "unknown op 'lonely'"), "%s", err_msg());
    placement_release(&p);
    teardown(&fx);
}

static void expect_err(struct fixture *fx, const char *text, const char *needle)
{
    struct placement p;
    int rc = placement_read_yaml_string(&p, &fx->g, &fx->w, text, strlen(text), "p.yaml");

    cr_assert_eq(rc, BAECHI_EPARSE, "rc %d for\n%s\n%s", rc, text, err_msg());
    cr_assert(strstr(err_msg(), needle), "message '%s' lacks '%s'", err_msg(), needle);
    placement_release(&p);
}

#define ALLBUT "a: 0, b: 0, c: 0, d: 0, e: 0, f: 0, k: 0, z: 0"

Test(placement, read_errors)
{
    struct fixture fx;

    setup(&fx);
    expect_err(&fx, "", "p.yaml: empty file");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT "}\n",
               "p.yaml: op 'y' has no device in the placement");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT ", y: 0, q: 1}\n",
               "p.yaml:2:65: devices: unknown op 'q'");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT ", y: 0, a: 1}\n",
               "devices: op 'a' is listed twice (first at line 2)");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT ", y: -1}\n", "op 'y': must not be negative");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT ", y: gpu0}\n", "op 'y': expected");
    expect_err(&fx, "format: 1\ndevices: {" ALLBUT ", y: 1.5}\n", "op 'y': must be an integer");
    expect_err(&fx, "format: 2\n", "p.yaml:1:9: unsupported placement format '2'");
    expect_err(&fx, "devices: {}\n", "missing required key 'format'");
    expect_err(&fx, "format: 1\n", "missing required key 'devices'");
    expect_err(&fx, "format: 1\nplacr: x\n", "p.yaml:2:1: unknown key 'placr'");
    expect_err(&fx, "format: 1\noptions: [a]\n", "options: expected a mapping");
    expect_err(&fx, "format: 1\nstats: {a: [1]}\n", "stats: a: expected a single value");
    expect_err(&fx, "format: 1\nstats: {a: 1, a: 2}\n", "stats: duplicate key 'a'");
    expect_err(&fx, "format: 1\ndevices: [a]\n", "devices: expected a mapping");
    teardown(&fx);
}

Test(placement, check)
{
    struct fixture fx;
    struct placement p;

    setup(&fx);
    err_set_quiet(1);
    cr_assert_eq(placement_init(&p, fx.g.n_ops), 0);
    cr_assert_eq(placement_check(&p, &fx.g, &fx.c), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "op 'a' has no device"), "%s", err_msg());
    cr_assert_eq(placement_from_given(&p, &fx.g), 0);
    p.device_of[graph_find(&fx.g, "d")] = 4;
    cr_assert_eq(placement_check(&p, &fx.g, &fx.c), BAECHI_EINVAL);
    cr_assert(strstr(err_msg(), "op 'd' is placed on device 4"), "%s", err_msg());
    cr_assert(strstr(err_msg(), "has 4 devices (0..3)"), "%s", err_msg());
    p.device_of[graph_find(&fx.g, "d")] = 3;
    p.device_of[graph_find(&fx.g, "b")] = 0; /* splits group g: a warning only */
    cr_assert_eq(placement_check(&p, &fx.g, &fx.c), 0, "%s", err_msg());
    placement_release(&p);
    teardown(&fx);
}

/* ---- the writer's devices lines read without libyaml's events (issue 22) ---- */

/* A placement file in the writer's layout, every op on u % 4, plus the
 * pruned op `lonely` (its name is accepted and ignored). */
static char *writer_text(const struct fixture *fx, size_t *len)
{
    struct placement p;
    char *t, *withp;

    cr_assert_eq(placement_init(&p, fx->g.n_ops), 0);
    for (int32_t u = 0; u < fx->g.n_ops; u++) {
        p.device_of[u] = u % 4;
    }
    cr_assert_eq(placement_set_meta(&p, "pl", "paper-4gpu-pcie", "m-etf"), 0);
    cr_assert_eq(placement_add_stat(&p, "placement_ms", "12.5"), 0);
    t = write_to_string(&p, &fx->g, len);
    placement_release(&p);
    withp = malloc(*len + 32);
    cr_assert(withp);
    memcpy(withp, t, *len);
    *len += (size_t)sprintf(withp + *len, "  lonely: 3\n");
    free(t);
    return withp;
}

/* Both readings of text agree: the same code, message and placement. */
static bool same_both_ways(const struct fixture *fx, const char *text, size_t len)
{
    struct placement a, b;
    int ra, rb;
    char ma[512];
    bool same;

    setenv("BAECHI_YAML_FAST", "0", 1);
    ra = placement_read_yaml_string(&a, &fx->g, &fx->w, text, len, "p.yaml");
    snprintf(ma, sizeof(ma), "%s", ra ? err_msg() : "");
    unsetenv("BAECHI_YAML_FAST");
    rb = placement_read_yaml_string(&b, &fx->g, &fx->w, text, len, "p.yaml");
    same = ra == rb && (ra ? strcmp(ma, err_msg()) == 0
                           : a.n_ops == b.n_ops && memcmp(a.device_of, b.device_of,
                                                          (size_t)a.n_ops * sizeof(int32_t)) == 0);
    if (!same) {
        cr_log_error("libyaml: %d '%s'; fast: %d '%s' for\n%.*s", ra, ma, rb, rb ? err_msg() : "",
                     (int)len, text);
    }
    if (!ra) {
        placement_release(&a);
    }
    if (!rb) {
        placement_release(&b);
    }
    return same;
}

Test(placement, fast_lines_same_as_libyaml)
{
    struct fixture fx;
    struct placement p;
    size_t len;
    char *t;

    setup(&fx);
    t = writer_text(&fx, &len);
    cr_assert_eq(placement_read_yaml_mode(&p, &fx.g, &fx.w, t, len, "p.yaml", PLACEMENT_READ_FAST),
                 0, "the writer's layout not taken: %s\n%s", err_msg(), t);
    for (int32_t u = 0; u < fx.g.n_ops; u++) {
        cr_assert_eq(p.device_of[u], u % 4);
    }
    cr_assert_str_eq(p.placer, "m-etf");
    cr_assert_str_eq(p.stats[0].value, "12.5");
    placement_release(&p);
    cr_assert(same_both_ways(&fx, t, len));
    /* what the lines must refuse, each appended: libyaml's verdict */
    {
        static const char *const tails[] = {
            "  a: 1\n",          /* listed twice */
            "  \"a\": 1\n",      /* listed twice, quoted */
            "  q: 1\n",          /* unknown */
            "  a: 70000\n",      /* too large */
            "  a: 1234567890\n", /* ten digits */
            "  a: 01\n",         /* listed twice, a leading zero */
            "  a:b: 1\n",        /* a colon in the name */
            "  a: 1 # c\n",      /* a comment */
            "  a: 1\r\n",        /* CRLF */
            "  'a': 1\n",        /* single quotes */
            "  \"a\\x\": 1\n",   /* an escape */
            "placr: 1\n",        /* a key after the devices */
        };

        for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
            char *m = malloc(len + 64);
            size_t n = len + strlen(tails[i]);

            cr_assert(m);
            memcpy(m, t, len);
            memcpy(m + len, tails[i], strlen(tails[i]));
            cr_expect(same_both_ways(&fx, m, n), "tail %zu", i);
            cr_expect_eq(placement_read_yaml_string(&p, &fx.g, &fx.w, m, n, "p.yaml"),
                         BAECHI_EPARSE, "tail %zu accepted", i);
            free(m);
        }
    }
    /* the pruned op's line (the last) with a device out of range: the
     * event path checks the value before the name */
    {
        static const char *const lasts[] = {"  lonely: 70000\n", "  lonely: 1234567890\n"};
        const char *last = strstr(t, "  lonely: 3\n");

        cr_assert(last);
        for (size_t i = 0; i < sizeof(lasts) / sizeof(lasts[0]); i++) {
            char *m = malloc(len + 64);
            size_t n = (size_t)(last - t);

            cr_assert(m);
            memcpy(m, t, n);
            memcpy(m + n, lasts[i], strlen(lasts[i]));
            n += strlen(lasts[i]);
            cr_expect(same_both_ways(&fx, m, n), "last %zu", i);
            cr_expect_eq(placement_read_yaml_string(&p, &fx.g, &fx.w, m, n, "p.yaml"),
                         BAECHI_EPARSE, "last %zu accepted", i);
            free(m);
        }
    }
    /* without the workload the pruned name is unknown: libyaml's message */
    cr_assert_eq(placement_read_yaml_mode(&p, &fx.g, NULL, t, len, "p.yaml", PLACEMENT_READ_FAST),
                 BAECHI_EPARSE);
    cr_assert_eq(placement_read_yaml_string(&p, &fx.g, NULL, t, len, "p.yaml"), BAECHI_EPARSE);
    cr_assert(strstr(err_msg(), "p.yaml:16:3: devices: unknown op 'lonely'"), "%s", err_msg());
    free(t);
    teardown(&fx);
}

/* Every byte of the file replaced by each of a few bytes that matter to
 * YAML or to the fast lines: the same verdict, message and placement as
 * libyaml alone; one line cut out, and the last newline dropped, too. */
Test(placement, fast_lines_same_as_libyaml_on_mutations)
{
    static const char subst[] = " :\n#x1-'\"{\t9.";
    struct fixture fx;
    size_t len;
    char *t, *m;
    int bad = 0;

    setup(&fx);
    t = writer_text(&fx, &len);
    m = malloc(len + 1);
    cr_assert(m);
    for (size_t i = 0; i < len; i++) {
        for (const char *c = subst; *c; c++) {
            if (t[i] == *c) {
                continue;
            }
            memcpy(m, t, len);
            m[i] = *c;
            bad += !same_both_ways(&fx, m, len);
        }
    }
    for (const char *l = strchr(t, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
        const char *next = strchr(l + 1, '\n');
        size_t cut = (size_t)(next - l);

        memcpy(m, t, (size_t)(l - t));
        memcpy(m + (l - t), next, len - (size_t)(next - t));
        bad += !same_both_ways(&fx, m, len - cut);
    }
    bad += !same_both_ways(&fx, t, len - 1);
    cr_expect_eq(bad, 0, "%d mutations read differently", bad);
    free(m);
    free(t);
    teardown(&fx);
}
