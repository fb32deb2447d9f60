/*
 * validate.h - the suite against the published references of large-model
 * training (`baechi validate`, docs/validation.md): a registry of checks,
 * each of which builds workloads with the generators, parallelises them
 * (workloads/parallel.h), simulates them with the timed model or plans
 * their collectives (sim/collective.h), and compares what comes out with a
 * number a paper or a benchmark's documentation publishes.  Nothing the
 * suite reports is written here: every suite value is measured in process.
 *
 * A check produces rows; a row is one published number (the reference),
 * the suite's value in the same unit, their ratio and a relative tolerance
 * (VALIDATE_TOLERANCE unless the row says otherwise).  A row whose quantity
 * the suite cannot model yet (an option that does not exist) is "not
 * modelled": it has no suite value and is never ok.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_RESULTS_VALIDATE_H
#define BAECHI_RESULTS_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

/* The default relative tolerance of a row: 5 %. */
#define VALIDATE_TOLERANCE 0.05

struct validate_row {
    const char *check;  /* the check's name (static) */
    char case_name[96]; /* what was measured: "ZeRO-2, 7.5B, Nd = 64" */
    char source[160];   /* paper + table / figure / section, or document */
    double reference;   /* the published value */
    double suite;       /* the suite's value (NAN when not modelled) */
    char unit[24];      /* "GB", "params", "s*b*h bytes", ... */
    double tolerance;   /* relative: |suite / reference - 1| <= tolerance */
    bool modelled;      /* false: the suite has no way to compute it yet */
    bool ok;            /* modelled and within tolerance */
    char note[256];     /* how it was measured, or why it is not modelled */
};

/* The rows of one or more checks, in order (core/array.h idiom). */
struct validate_rows {
    struct validate_row *row;
    size_t n, alloc;
};

void validate_rows_init(struct validate_rows *r);
void validate_rows_release(struct validate_rows *r);

/* suite / reference (NAN when not modelled or the reference is 0). */
double validate_ratio(const struct validate_row *row);

/* Appends rows to `out`; 0 or an error of the library it calls (with the
 * message set).  A reference the suite misses is a row, not an error. */
typedef int (*validate_fn)(struct validate_rows *out);

struct validate_check {
    const char *name;    /* "zero", "nccl-busbw", ... */
    const char *summary; /* one line for --list */
    validate_fn fn;
    const char *doc; /* Markdown: the source and how the suite measures it */
};

/* The registry, ending with a row whose name is NULL. */
const struct validate_check *validate_checks(void);

/* The check called `name`, or NULL. */
const struct validate_check *validate_find(const char *name);

/*
 * Runs check c, appending its rows to out.  0, or the check's error
 * (BAECHI_ENOMEM, or BAECHI_EINVAL when a generator or transform refuses
 * the configuration, with its message prefixed by the check's name).
 */
int validate_run(const struct validate_check *c, struct validate_rows *out);

#endif
