/*
 * probe.c - the sanitized build's own check (tests/cli/t009): a program
 * linked exactly as build/san/baechi and build/san/unit-tests are (the
 * Makefile's SAN_EXE_LDFLAGS: the ASan and UBSan runtimes static, not
 * position-independent), that commits one error per mode, so that the
 * link that makes `make check` cheaper is seen to catch what the shared
 * runtimes caught: in the program, in a shared library's allocations and
 * in a plugin opened with dlopen (linked as build/san/baechi-clp.so is).
 *
 *   san-probe MODE [PLUGIN]
 *     clean            no error: exits 0 (nothing is reported falsely)
 *     overflow         reads one byte past a heap block
 *     leak             loses a block of 1234 bytes
 *     libc-leak        loses what strdup() allocated inside libc
 *     lib-leak         loses what libyaml allocated (yaml_parser_initialize)
 *     ub               overflows a signed int
 *     plugin-overflow  the plugin reads past a heap block
 *     plugin-ub        the plugin overflows a signed int
 *     plugin-leak      the plugin loses a block of 4321 bytes
 *
 * Not part of the program; deliberately wrong code, built only in the
 * sanitized build.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* Each mode's error, out of line: nothing is folded away at -O1. */
static int mode_overflow(int n)
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

static int mode_leak(size_t n)
{
    volatile char *p = malloc(n);

    if (!p) {
        return 1;
    }
    p[0] = 1;
    p = NULL;
    return 0;
}

static int mode_libc_leak(const char *s)
{
    char *volatile p = strdup(s);

    if (!p) {
        return 1;
    }
    p = NULL;
    return 0;
}

static int mode_lib_leak(void)
{
    yaml_parser_t *volatile parser = malloc(sizeof(yaml_parser_t));

    if (!parser || !yaml_parser_initialize(parser)) {
        return 1;
    }
    /* the parser struct freed, its buffers (libyaml's malloc) lost */
    free(parser);
    return 0;
}

static int mode_ub(int add)
{
    int x = INT_MAX;

    x += add;
    return x == 0;
}

static int mode_plugin(const char *path, const char *fn)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    int (*f)(int);

    if (!h) {
        fprintf(stderr, "san-probe: %s\n", dlerror());
        return 2;
    }
    *(void **)&f = dlsym(h, fn);
    if (!f) {
        fprintf(stderr, "san-probe: no %s in %s\n", fn, path);
        return 2;
    }
    return f(16);
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    const char *plugin = argc > 2 ? argv[2] : "";

    if (!strcmp(m, "clean")) {
        return mode_plugin(plugin, "probe_plugin_clean");
    }
    if (!strcmp(m, "overflow")) {
        return mode_overflow(argc + 15);
    }
    if (!strcmp(m, "leak")) {
        return mode_leak(1234);
    }
    if (!strcmp(m, "libc-leak")) {
        return mode_libc_leak(m);
    }
    if (!strcmp(m, "lib-leak")) {
        return mode_lib_leak();
    }
    if (!strcmp(m, "ub")) {
        return mode_ub(argc);
    }
    if (!strcmp(m, "plugin-overflow")) {
        return mode_plugin(plugin, "probe_plugin_overflow");
    }
    if (!strcmp(m, "plugin-ub")) {
        return mode_plugin(plugin, "probe_plugin_ub");
    }
    if (!strcmp(m, "plugin-leak")) {
        return mode_plugin(plugin, "probe_plugin_leak");
    }
    fprintf(stderr, "usage: san-probe MODE [PLUGIN]\n");
    return 2;
}
