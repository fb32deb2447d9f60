/*
 * yio_write.c - the YAML writer over libyaml's emitter (see yio.h): the
 * first failure is kept (later events skipped) and returned by ywr_close;
 * scalars quoted only
 * where a plain one would read back as something else.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/yio.h"
#include "core/yio_internal.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void ywr_emit(struct ywr *w, yaml_event_t *ev, int ok)
{
    if (w->rc != 0) {
        /* failed already: the failed write's errno stays for the caller */
        if (ok) {
            yaml_event_delete(ev);
        }
        return;
    }
    if (!ok) {
        w->rc = err_set(BAECHI_ENOMEM, "out of memory writing YAML");
        return;
    }
    errno = 0;
    if (!yaml_emitter_emit(&w->em, ev)) {
        /* libyaml's own allocation, or stdio's buffer behind its writer */
        if (w->em.error == YAML_MEMORY_ERROR ||
            (w->em.error == YAML_WRITER_ERROR && errno == ENOMEM)) {
            w->rc = err_set(BAECHI_ENOMEM, "out of memory writing YAML");
            return;
        }
        w->rc = err_set(ferror(w->f) ? BAECHI_EIO : BAECHI_EINVAL, "cannot write YAML: %s",
                        w->em.problem ? w->em.problem : "write error");
    }
}

int ywr_open(struct ywr *w, FILE *f)
{
    yaml_event_t ev;

    memset(w, 0, sizeof(*w));
    w->f = f;
    if (!yaml_emitter_initialize(&w->em)) {
        return w->rc = err_set(BAECHI_ENOMEM, "out of memory starting the YAML emitter");
    }
    yaml_emitter_set_output_file(&w->em, f);
    yaml_emitter_set_width(&w->em, -1);
    yaml_emitter_set_unicode(&w->em, 1);
    yaml_emitter_set_indent(&w->em, 2);
    ywr_emit(w, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    }
    return w->rc;
}

int ywr_close(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_document_end_event_initialize(&ev, 1));
    }
    if (w->rc == 0) {
        ywr_emit(w, &ev, yaml_stream_end_event_initialize(&ev));
    }
    if (w->rc == 0) {
        errno = 0; /* only here: after a failure, its errno stays for the caller */
        if (!yaml_emitter_flush(&w->em) || fflush(w->f) != 0 || ferror(w->f)) {
            w->rc = err_set(errno == ENOMEM ? BAECHI_ENOMEM : BAECHI_EIO, "cannot write YAML: %s",
                            strerror(errno));
        }
    }
    yaml_emitter_delete(&w->em);
    return w->rc;
}

/* Would a plain scalar `s` read back as a string (not null, bool or number) in YAML 1.1/1.2? */
static bool plain_is_string(const char *s)
{
    static const char *const words[] = {
        "~",   "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
        "yes", "Yes",  "YES",  "no",   "No",   "NO",   "on",   "On",    "ON",    "off",
        "Off", "OFF",  "y",    "Y",    "n",    "N",    "=",    "<<",
    };
    const char *p = s;

    if (*s == '\0') {
        return false;
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(s, words[i]) == 0) {
            return false;
        }
    }
    if (yio_is_nan_or_inf(s)) {
        return false;
    }
    if (*p == '+' || *p == '-') {
        p++;
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
        /* anything that starts like a number may be one (ints, floats, 0x, 0o, 1_000, 1:20) */
        return false;
    }
    return true;
}

void ywr_scalar(struct ywr *w, const char *s, enum ywr_style style)
{
    yaml_scalar_style_t ys;
    yaml_event_t ev;
    int plain_implicit = 1, quoted_implicit = 1;

    if (w->rc) {
        return;
    }
    switch (style) {
    case YWR_PLAIN:
        ys = YAML_PLAIN_SCALAR_STYLE;
        break;
    case YWR_QUOTED:
        ys = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        break;
    case YWR_LITERAL:
        ys = strlen(s) > 80 || strchr(s, '\n') ? YAML_LITERAL_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE;
        if (ys == YAML_ANY_SCALAR_STYLE && !plain_is_string(s)) {
            ys = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        }
        break;
    default:
        ys = plain_is_string(s) ? YAML_ANY_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
        break;
    }
    ywr_emit(w, &ev,
             yaml_scalar_event_initialize(&ev, NULL, NULL, (const yaml_char_t *)s, (int)strlen(s),
                                          plain_implicit, quoted_implicit, ys));
}

void ywr_int(struct ywr *w, int64_t x)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%lld", (long long)x);
    ywr_scalar(w, buf, YWR_PLAIN);
}

void ywr_double(struct ywr *w, double x)
{
    char buf[64];

    yio_fmt_double(x, buf, sizeof(buf));
    ywr_scalar(w, buf, YWR_PLAIN);
}

void ywr_map_start(struct ywr *w, bool flow)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev,
             yaml_mapping_start_event_initialize(
                 &ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

void ywr_map_end(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev, yaml_mapping_end_event_initialize(&ev));
}

void ywr_seq_start(struct ywr *w, bool flow)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev,
             yaml_sequence_start_event_initialize(
                 &ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE));
}

void ywr_seq_end(struct ywr *w)
{
    yaml_event_t ev;

    if (w->rc) {
        return;
    }
    ywr_emit(w, &ev, yaml_sequence_end_event_initialize(&ev));
}

void ywr_yval(struct ywr *w, const struct yval *v)
{
    switch (v->kind) {
    case YVAL_SCALAR:
        ywr_scalar(w, v->scalar, v->quoted ? YWR_QUOTED : YWR_PLAIN);
        break;
    case YVAL_SEQ:
        ywr_seq_start(w, false);
        for (int32_t i = 0; i < v->n; i++) {
            ywr_yval(w, &v->items[i]);
        }
        ywr_seq_end(w);
        break;
    case YVAL_MAP:
        ywr_map_start(w, false);
        for (int32_t i = 0; i < v->n; i++) {
            ywr_scalar(w, v->keys[i], YWR_ANY);
            ywr_yval(w, &v->items[i]);
        }
        ywr_map_end(w);
        break;
    }
}
