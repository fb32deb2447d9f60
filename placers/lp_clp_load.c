/*
 * lp_clp_load.c - loads the CLP plugin (lp_clp.h says where from) and calls
 * it.  The plugin is opened with dlopen at each use and never closed: the
 * dynamic loader keeps one copy and counts references, so a second dlopen
 * costs a lookup and no static state is needed here (docs/style.md §2: none).
 * Beyond the original.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "placers/lp_clp.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LP_CLP_PLUGIN "baechi-clp.so"

/* An object of this file, whose address dladdr maps to the library holding it. */
static const char lp_clp_plugin_name[] = LP_CLP_PLUGIN;

/* dir's part of path (up to its last '/') into out; false without one. */
static bool dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');

    if (!slash || (size_t)(slash - path) >= size) {
        return false;
    }
    memcpy(out, path, (size_t)(slash - path));
    out[slash - path] = '\0';
    return true;
}

/* The plugin's candidate paths, in order, into paths[] (each PATH_MAX); how many. */
static int plugin_paths(char paths[][PATH_MAX], int max)
{
    const char *env = getenv("BAECHI_CLP_PLUGIN");
    char exe[PATH_MAX], dir[PATH_MAX];
    Dl_info info;
    ssize_t n;
    int k = 0;

    if (env && *env) {
        snprintf(paths[k++], PATH_MAX, "%s", env);
        return k;
    }
    n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (dir_of(exe, dir, sizeof(dir)) && k + 2 <= max) {
            snprintf(paths[k++], PATH_MAX, "%.*s/%s", PATH_MAX - 32, dir, LP_CLP_PLUGIN);
            snprintf(paths[k++], PATH_MAX, "%.*s/../lib/baechi/%s", PATH_MAX - 48, dir,
                     LP_CLP_PLUGIN);
        }
    }
    /* the library itself (Python, a program linked with libbaechi.so) */
    if (dladdr(lp_clp_plugin_name, &info) && info.dli_fname &&
        dir_of(info.dli_fname, dir, sizeof(dir)) && k + 2 <= max) {
        snprintf(paths[k++], PATH_MAX, "%.*s/%s", PATH_MAX - 32, dir, LP_CLP_PLUGIN);
        snprintf(paths[k++], PATH_MAX, "%.*s/baechi/%s", PATH_MAX - 48, dir, LP_CLP_PLUGIN);
    }
    return k;
}

/* The plugin's symbol `name`, or NULL with why in msg (msg may be NULL when size is 0). */
static void *plugin_sym(const char *name, char *msg, size_t size)
{
    char paths[4][PATH_MAX];
    int n = plugin_paths(paths, 4);

    for (int i = 0; i < n; i++) {
        void *h, *sym;

        if (access(paths[i], R_OK) != 0) {
            continue;
        }
        if (!(h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL))) {
            snprintf(msg, size, "cannot load the CLP plugin: %.100s", dlerror());
            return NULL;
        }
        if (!(sym = dlsym(h, name))) {
            snprintf(msg, size, "the CLP plugin '%.60s' has no %s", paths[i], name);
        }
        return sym;
    }
    snprintf(msg, size, "CLP is not built in (no %s; install coinor-libclp-dev and rebuild)",
             LP_CLP_PLUGIN);
    return NULL;
}

bool lp_clp_available(void)
{
    return plugin_sym("lp_clp_plugin_solve", NULL, 0) != NULL; /* why is not asked */
}

int lp_clp_solve(const struct lp_clp_problem *p, int64_t iteration_limit, double time_limit_s,
                 double *col_value, struct lp_clp_result *r)
{
    lp_clp_solve_fn solve;

    memset(r, 0, sizeof(*r));
    r->status = LP_CLP_FAILED;
    *(void **)&solve = plugin_sym("lp_clp_plugin_solve", r->msg, sizeof(r->msg));
    return solve ? solve(p, iteration_limit, time_limit_s, col_value, r) : -1;
}

int lp_clp_selftest_throw(int what, struct lp_clp_result *r)
{
    lp_clp_selftest_fn f;

    memset(r, 0, sizeof(*r));
    *(void **)&f = plugin_sym("lp_clp_plugin_selftest_throw", r->msg, sizeof(r->msg));
    return f ? f(what, r) : -2;
}
