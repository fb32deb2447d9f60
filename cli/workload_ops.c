/*
 * workload_ops.c - `baechi workload ops`: the table of op semantics
 * (workloads/ops.h), as text or as the Markdown tables of
 * docs/training-memory.md (CLI test t126 checks the page holds them).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "cli/cmd.h"
#include "cli/workload.h"
#include "core/err.h"
#include "workloads/ops.h"

#include <stdio.h>
#include <string.h>

static const char *const ops_usage[] = {
    "baechi workload ops [--markdown]",
    NULL,
};

enum { OPT_MARKDOWN = 256 };

static const struct cmd_opt ops_opts[] = {
    {"markdown", OPT_MARKDOWN, NULL, "the tables of docs/training-memory.md"},
    CMD_OPT_END,
};

static const struct {
    enum ops_flags flag;
    const char *name;
} flag_names[] = {
    {OPS_VIEW, "view"},
    {OPS_IN_PLACE, "in-place"},
    {OPS_POOL_PAD, "pool-pad"},
    {OPS_NO_GRAD, "no-grad"},
    {OPS_DATA, "data"},
    {OPS_PARAM_VIEW, "param-view"},
    {OPS_UNARY, "unary"},
    {OPS_BINARY, "binary"},
    {OPS_IN_NORM_PATTERN, "norm-pattern"},
    {OPS_IN_SOFTMAX_PATTERN, "softmax-pattern"},
};

/* One line per row: type, category, FLOPs rule, saved, extra, flags. */
static void print_text(const struct ops_row *rows, size_t n)
{
    printf("%-36s %-12s %-20s %-12s %-6s %s\n", "type", "category", "FLOPs", "saves", "extra",
           "flags");
    for (size_t i = 0; i < n; i++) {
        const struct ops_row *r = &rows[i];
        char extra[16];
        int any = 0;

        snprintf(extra, sizeof(extra), "%d B", r->extra_bytes_per_elem);
        printf("%-36s %-12s %-20s %-12s %-6s ", r->type, ops_category_name(r->cat),
               ops_cost_name(r->cost), ops_save_name(r->save),
               r->extra_bytes_per_elem ? extra : "-");
        for (size_t k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++) {
            if (r->flags & (unsigned)flag_names[k].flag) {
                printf("%s%s", any++ ? "," : "", flag_names[k].name);
            }
        }
        printf("%s\n", any ? "" : "-");
    }
}

/* The types of the rows that save `save`, ", "-separated. */
static void print_types(const struct ops_row *rows, size_t n, enum ops_save save)
{
    int any = 0;

    for (size_t i = 0; i < n; i++) {
        if (rows[i].save == save) {
            printf("%s%s", any++ ? ", " : "", rows[i].type);
        }
    }
}

static void print_markdown(const struct ops_row *rows, size_t n)
{
    static const char *const what[] = {
        NULL, /* OPS_SAVE_INPUTS: the default, not listed */
        "the first data input (parameters are held anyway)",
        "the result",
        "nothing (shapes only)",
        "a data input only when another input needs a gradient (x * constant keeps nothing)",
    };
    int any = 0;

    printf("| op types | saved for backward |\n|---|---|\n");
    printf("| every other type (convolution, matmul, losses, LSTM cells, ...; `baechi "
           "workload ops` lists them) and unknown types | every data input |\n");
    for (int s = OPS_SAVE_FIRST_INPUT; s < OPS_N_SAVES; s++) {
        printf("| ");
        print_types(rows, n, (enum ops_save)s);
        printf(" | %s |\n", what[s]);
    }
    printf("\n| op types | storage and extra buffers |\n|---|---|\n| ");
    for (size_t i = 0; i < n; i++) {
        if (rows[i].flags & OPS_VIEW) {
            printf("%s%s", any++ ? ", " : "", rows[i].type);
        }
    }
    printf(" | a view of the first data input |\n| ");
    any = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].flags & OPS_IN_PLACE) {
            printf("%s%s", any++ ? ", " : "", rows[i].type);
        }
    }
    printf(" | in place on the first data input when it is that storage's only reader |\n| ");
    any = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].flags & OPS_POOL_PAD) {
            printf("%s%s", any++ ? ", " : "", rows[i].type);
        }
    }
    printf(" | a view of its input when its one reader is a pooling op |\n");
    for (size_t i = 0; i < n; i++) {
        if (rows[i].extra_bytes_per_elem > 0) {
            printf("| %s | saves %d byte%s per output element beside its tensors |\n", rows[i].type,
                   rows[i].extra_bytes_per_elem, rows[i].extra_bytes_per_elem == 1 ? "" : "s");
        }
    }
}

int cmd_workload_ops(int argc, char **argv)
{
    struct cmd_parser p = {argc, argv, "workload ops", ops_usage, ops_opts, NULL, NULL};
    bool markdown = false;
    const struct ops_row *rows;
    size_t n;
    int c;

    while ((c = cmd_getopt(&p)) != -1) {
        switch (c) {
        case 'h':
            return EXIT_OK;
        case OPT_MARKDOWN:
            markdown = true;
            break;
        default:
            return EXIT_BADINPUT;
        }
    }
    if (cmd_optind() < argc) {
        return cmd_usage_error(&p, "unexpected argument '%s'", argv[cmd_optind()]);
    }
    rows = ops_table(&n);
    if (markdown) {
        print_markdown(rows, n);
    } else {
        print_text(rows, n);
    }
    return EXIT_OK;
}
