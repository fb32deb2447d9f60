/*
 * cluster_preset.c - the built-in clusters (see cluster.h): their names, and
 * a cluster loaded by file path or preset name.  The presets are
 * data/clusters/NAME.yaml, embedded by scripts/embed-presets.sh and read
 * by cluster_yaml.c like any file.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/cluster.h"

#include "core/err.h"
#include "core/strbuf.h"

#include <string.h>
#include <sys/stat.h>

/* Generated from data/clusters/NAME.yaml (build/gen/presets.c); NULL-terminated. */
extern const struct cluster_preset {
    const char *name;
    const char *text;
} cluster_presets[];
/* Their names, in the same order; NULL-terminated. */
extern const char *const cluster_preset_name_list[];

const char *const *cluster_preset_names(void)
{
    return cluster_preset_name_list;
}

int cluster_load(struct cluster *c, const char *spec)
{
    struct stat st;
    struct strbuf list = STRBUF_INIT;
    int rc = 0;

    if (stat(spec, &st) == 0 && !S_ISDIR(st.st_mode)) {
        return cluster_read_yaml(c, spec);
    }
    for (const struct cluster_preset *p = cluster_presets; p->name; p++) {
        if (strcmp(p->name, spec) == 0) {
            struct strbuf where = STRBUF_INIT;

            if ((rc = strbuf_addf(&where, "<preset %s>", p->name)) == 0) {
                rc = cluster_read_yaml_string(c, p->text, strlen(p->text), where.buf);
            }
            strbuf_release(&where);
            return rc;
        }
    }
    cluster_init(c);
    /* every preset's name (a char[1024] once cut the list) */
    for (const char *const *n = cluster_preset_names(); *n && rc == 0; n++) {
        rc = strbuf_addf(&list, "%s%s", list.len ? ", " : "", *n);
    }
    if (rc == 0) {
        rc = err_set(BAECHI_EINVAL, "no cluster file or preset named '%s' (presets: %s)", spec,
                     list.len ? list.buf : "none built in");
    }
    strbuf_release(&list);
    return rc;
}
