/*
 * filter.h - what `report`, `plot` and `db query` share to select runs:
 * the swept dimensions of a run and their SQL, the metrics, `--where`
 * conditions turned into a parameterised SQL WHERE clause (user values are
 * always bound, never spliced into the SQL text), and "did you mean" for
 * names that match nothing.
 *
 *   --where KEY=V[,V...]    any of the values (text or number)
 *   --where KEY!=V[,V...]   none of them
 *   --where KEY<V, <=, >, >=  numeric keys only
 *
 * Keys (docs/results.md): workload and cluster (a name, or name@hash: see
 * RESULTS_WORKLOAD_SQL), placer, config (placer
 * configuration label, e.g. m-etf+coplace+fusion), grouper, fusion,
 * devices, memory_fraction (fraction), comm_factor, compute_factor, n_ops,
 * batch (the _bN of a workload's name), seed, sweep, model, status.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_FILTER_H
#define BAECHI_RESULTS_FILTER_H

#include "results/db.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The placer configuration of a run (SQL expression over `runs r`): the
 * placer, then "+coplace" and "+fusion" when set.  `paper` is the
 * original's configuration (m-etf+coplace+fusion) and keeps its name.
 */
#define RESULTS_CONFIG_SQL                                                                         \
    "(placer || CASE WHEN grouper = 'coplace' AND placer <> 'paper' THEN '+coplace' ELSE '' END "  \
    "|| CASE WHEN fusion = 1 AND placer <> 'paper' THEN '+fusion' ELSE '' END)"

/*
 * The order of placer configurations in tables and legends (an aggregate
 * ORDER BY term): baselines, then the paper's placers each plain and then
 * optimised, then the rest; sweeps run in parallel, so the order runs were
 * stored in says nothing.
 */
#define RESULTS_CONFIG_ORDER_SQL                                                                   \
    "MIN(CASE r.placer WHEN 'single' THEN 0 WHEN 'expert' THEN 1 WHEN 'm-topo' THEN 2 WHEN "       \
    "'m-topo-nonuniform' THEN 3 WHEN 'm-etf' THEN 4 WHEN 'm-etf-reserve' THEN 5 WHEN 'paper' "     \
    "THEN 6 WHEN 'm-sct' THEN 7 WHEN 'm-sct-reserve' THEN 8 WHEN 'round-robin' THEN 9 WHEN "       \
    "'random' THEN 10 ELSE 11 END), MIN(r.grouper = 'coplace') + MIN(r.fusion), 1"

/*
 * The label of a run's workload (cluster) over `runs r`: its name, and "@"
 * and the first 6 hex digits of its content hash when the database holds
 * runs of different workloads (clusters) under that one name ("@?" for a run
 * stored without a hash among them).  Tables, series and groups key on the
 * label, so same-named different inputs are never averaged; a database-wide
 * rule, so that a label does not change with --where.  O(log n) a row with
 * schema 3's indexes on (workload, workload_hash), (cluster, cluster_hash).
 * A run stored without a hash (`run --db` before schema 3) joins the one
 * hashed workload of its name, if there is only one: it cannot be told apart.
 */
#define RESULTS_IDENT_SQL_(col, hash)                                                              \
    "(r." col " || CASE WHEN (SELECT q." hash " FROM main.runs q WHERE q." col " = r." col         \
    " AND q." hash " IS NOT NULL ORDER BY q." hash " LIMIT 1) < (SELECT q." hash                   \
    " FROM main.runs q WHERE q." col " = r." col " ORDER BY q." hash                               \
    " DESC LIMIT 1) THEN '@' || coalesce(substr(r." hash ", 1, 6), '?') ELSE '' END)"
#define RESULTS_WORKLOAD_SQL RESULTS_IDENT_SQL_("workload", "workload_hash")
#define RESULTS_CLUSTER_SQL  RESULTS_IDENT_SQL_("cluster", "cluster_hash")

/* A dimension of the runs table: what --where, --x, --by and report key on. */
struct rdim {
    const char *name;  /* as the user writes it */
    const char *alias; /* another accepted name, or NULL */
    const char *sql;   /* expression over `runs r` */
    char kind;         /* 't' text, 'i' integer, 'r' real, 'b' boolean (0/1) */
    const char *label; /* axis label, with its unit */
    bool swept;        /* a dimension a sweep varies (report groups by it) */
    /* also matched by --where = and != (the plain name of a labelled
     * workload: name and name@hash both select); NULL: sql alone */
    const char *name_sql;
};

/* Lookup by name or alias (NULL when unknown). */
const struct rdim *rdim_find(const char *name);

/* A metric for plot --y. */
struct rmetric {
    const char *name;
    const char *alias;
    const char *sql;    /* expression over `runs r`: NULL when the run has no value */
    const char *label;  /* axis label with its unit */
    const char *column; /* its column in a plot's CSV */
    bool needs_sim;     /* only ok / oom runs have it (infeasible runs are marked) */
    /* a per-device metric: whether its device ran out of memory (SQL over
     * `runs r`); an oom run whose device did not is drawn as ok there.
     * NULL: the run's status */
    const char *oom_sql;
};

const struct rmetric *rmetric_find(const char *name);

/* SQL text with its bound parameters, built piece by piece. */
struct rsql {
    char *sql;
    size_t len, alloc;
    struct db_param *p; /* text parameters point into owned copies */
    char **owned;
    int np, nowned;
    size_t palloc, oalloc;
};

void rsql_init(struct rsql *q);
void rsql_release(struct rsql *q);
int rsql_cat(struct rsql *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends "?" to the text and binds the value (copied). */
int rsql_text(struct rsql *q, const char *s);
int rsql_real(struct rsql *q, double d);
/* Appends the text and parameters of another builder. */
int rsql_append(struct rsql *q, const struct rsql *other);

/* One condition of --where. */
struct rcond {
    const struct rdim *dim;
    char op[3]; /* "=", "!=", "<", "<=", ">", ">=" */
    char **val;
    int nval;
    char *text; /* as given (messages) */
};

struct rfilter {
    struct rcond *c;
    int n;
    size_t alloc;
};

void rfilter_init(struct rfilter *f);
void rfilter_release(struct rfilter *f);

/*
 * Parses one --where expression and adds it (conditions are ANDed).
 * BAECHI_EINVAL with a message naming the expression: unknown key (with a
 * did-you-mean and the keys), no operator, a non-number for a numeric key,
 * an order operator on a text key.
 */
int rfilter_add(struct rfilter *f, const char *expr);
/* Adds KEY=VALUE for one exact value (a value holding a comma stays whole). */
int rfilter_add_eq(struct rfilter *f, const char *key, const char *value);
/* The condition on dimension name, or NULL. */
const struct rcond *rfilter_get(const struct rfilter *f, const char *dim);

/* Appends " AND (...)" for every condition. */
int rfilter_sql(const struct rfilter *f, struct rsql *q);

/*
 * Checks every equality condition against the runs selected by `scope`
 * (SQL text starting with FROM, with its parameters): a value that no run
 * has is BAECHI_EINVAL naming the values stored and the nearest one ("did
 * you mean").
 */
int rfilter_check(struct db *db, const struct rfilter *f, const struct rsql *scope);

/*
 * Says once (err_warn, one line per name) which workload and cluster names
 * of the runs `scope` selects (SQL text starting with FROM over `runs r`)
 * are shown as name@hash (RESULTS_WORKLOAD_SQL): "3 different workloads are
 * named 'gpt-medium_b16'; shown as name@hash".  0 or an error code.
 */
int results_note_collisions(struct db *db, const struct rsql *scope);

/*
 * The nearest of names[0..n) to s worth suggesting (core/strdist.h), else a
 * name that holds s; NULL when none.
 * deviation: a transposition ("m-eft" for "m-etf") costs 1, as in the CLI's
 * suggestions, where it cost 2 (plain Levenshtein) before the two shared one
 * distance.
 */
const char *results_suggest(const char *s, const char *const *names, int n);

#endif
