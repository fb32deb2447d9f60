/*
 * probe_plugin.c - the plugin of tests/san/probe.c: instrumented, linked
 * as the sanitized build's plugins are (no runtime of its own: the
 * program's, exported), each function one error for the probe to call.
 * The bodies repeat probe.c's on purpose: each error has to happen in the
 * plugin's own instrumented code, so no helper can be shared between them.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int probe_plugin_clean(int n);
int probe_plugin_overflow(int n);
int probe_plugin_ub(int n);
int probe_plugin_leak(int n);

int probe_plugin_clean(int n)
{
    char *p = malloc((size_t)n);

    if (!p) {
        return 1;
    }
    memset(p, 0, (size_t)n);
    free(p);
    return 0;
}

int probe_plugin_overflow(int n)
{
    char *p = malloc((size_t)n);
    int c;

    if (!p) {
        return 1;
    }
    memset(p, 1, (size_t)n);
    c = ((volatile char *)p)[n];
    free(p);
    return c == 1 ? 0 : 0;
}

int probe_plugin_ub(int n)
{
    int x = INT_MAX - 1;

    x += n;
    return x == 0;
}

int probe_plugin_leak(int n)
{
    volatile char *p = malloc((size_t)(4321 + n - 16));

    if (!p) {
        return 1;
    }
    p[0] = 1;
    p = NULL;
    return 0;
}
