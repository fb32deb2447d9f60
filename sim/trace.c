/*
 * trace.c - recording a simulated step and writing it as a Chrome trace
 * (see trace.h).  The JSON object format of the Trace Event Format:
 * "traceEvents" with "M" metadata events naming one process per device and
 * its threads, "X" complete events for ops and transfers (ts/dur in µs) and
 * "C" counter events for memory (bytes).
 *
 * Tracks (thread ids) per device process:
 *   0          "compute"
 *   1          "send"  (the sender's side of a transfer)
 *   2          "recv"  (the receiver's side)
 *   3          "collective" (collectives' ranks; only in traces that have some)
 *   100 + dst  "link -> <dst name>" (per-link channels; drawn on src only)
 * A track whose slices would overlap partly (Perfetto requires slices on a
 * track to nest) is split into lanes: lane n > 0 is thread id
 * base + n * TID_LANE, named "<track> #<n+1>".  The models never need it
 * today (a device computes one op at a time and each channel carries one
 * transfer at a time); it keeps the file valid whatever a model records.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/trace.h"

#include "sim/sim.h"
#include "core/json_out.h"

#include "core/alloc.h"
#include "core/array.h"
#include "core/err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TID_COMPUTE 0
#define TID_SEND    1
#define TID_RECV    2
#define TID_COLL    3
#define TID_LINK    100
#define TID_LANE    65536

void trace_init(struct trace *t, enum channel_model channel)
{
    memset(t, 0, sizeof(*t));
    t->channel = channel;
}

void trace_release(struct trace *t)
{
    free(t->compute);
    free(t->transfer);
    free(t->mem);
    free(t->kmem);
    trace_init(t, t->channel);
}

int trace_add_compute(struct trace *t, int32_t op, int32_t device, int64_t start_us, int64_t end_us)
{
    int rc = ARRAY_RESERVE(t->compute, t->alloc_compute, t->n_compute + 1);

    if (rc) {
        return rc;
    }
    t->compute[t->n_compute++] = (struct trace_compute){op, device, start_us, end_us, false};
    return 0;
}

int trace_add_coll(struct trace *t, int32_t op, int32_t device, int64_t start_us, int64_t end_us)
{
    int rc = trace_add_compute(t, op, device, start_us, end_us);

    if (rc == 0) {
        t->compute[t->n_compute - 1].coll = true;
        t->n_coll++;
    }
    return rc;
}

int trace_add_transfer(struct trace *t, int32_t tensor, int32_t src, int32_t dst, int64_t bytes,
                       int64_t start_us, int64_t end_us, int64_t recv_start_us, int64_t recv_end_us)
{
    int rc = ARRAY_RESERVE(t->transfer, t->alloc_transfer, t->n_transfer + 1);

    if (rc) {
        return rc;
    }
    t->transfer[t->n_transfer++] = (struct trace_transfer){
        tensor, src, dst, bytes, start_us, end_us, recv_start_us, recv_end_us};
    return 0;
}

int trace_add_mem(struct trace *t, int32_t device, int64_t time_us, int64_t bytes)
{
    int rc = ARRAY_RESERVE(t->mem, t->alloc_mem, t->n_mem + 1);

    if (rc) {
        return rc;
    }
    t->mem[t->n_mem++] = (struct trace_mem){device, time_us, bytes};
    return 0;
}

/* One slice to draw: a compute span or one side of a transfer. */
struct slice {
    int32_t pid, base; /* device, track (TID_*) */
    int32_t lane;
    int32_t kind; /* 0 compute, 1 send side, 2 receive side */
    size_t index; /* into compute[] or transfer[] */
    int64_t start_us, end_us;
};

static int slice_cmp(const void *a, const void *b)
{
    const struct slice *x = a, *y = b;

    if (x->pid != y->pid) {
        return x->pid < y->pid ? -1 : 1;
    }
    if (x->base != y->base) {
        return x->base < y->base ? -1 : 1;
    }
    if (x->start_us != y->start_us) {
        return x->start_us < y->start_us ? -1 : 1;
    }
    if (x->end_us != y->end_us) {
        return x->end_us < y->end_us ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

int trace_add_mem_kinds(struct trace *t, int32_t device, int64_t time_us, const int64_t *bytes)
{
    int rc = ARRAY_RESERVE(t->kmem, t->alloc_kmem, t->n_kmem + 1);
    struct trace_kmem *k;

    if (rc) {
        return rc;
    }
    k = &t->kmem[t->n_kmem++];
    k->device = device;
    k->time_us = time_us;
    memcpy(k->bytes, bytes, sizeof(k->bytes));
    return 0;
}

/* Device, then time, then recording order (as the "memory" counter). */
static int kmem_cmp(const void *a, const void *b)
{
    const struct trace_kmem *const *x = a, *const *y = b;

    if ((*x)->device != (*y)->device) {
        return (*x)->device < (*y)->device ? -1 : 1;
    }
    if ((*x)->time_us != (*y)->time_us) {
        return (*x)->time_us < (*y)->time_us ? -1 : 1;
    }
    return *x < *y ? -1 : *x > *y;
}

static int mem_cmp(const void *a, const void *b)
{
    const struct trace_mem *const *x = a, *const *y = b;

    if ((*x)->device != (*y)->device) {
        return (*x)->device < (*y)->device ? -1 : 1;
    }
    if ((*x)->time_us != (*y)->time_us) {
        return (*x)->time_us < (*y)->time_us ? -1 : 1;
    }
    return *x < *y ? -1 : *x > *y; /* recording order at one time */
}

/* Gives each slice of a (pid, base) run, sorted by start, the first lane
 * whose last slice ended by its start; returns the number of lanes used. */
static int32_t assign_lanes(struct slice *s, size_t n, int64_t *lane_end, int32_t max_lanes)
{
    int32_t used = 0;

    for (size_t i = 0; i < n; i++) {
        int32_t l = 0;

        while (l < used && lane_end[l] > s[i].start_us) {
            l++;
        }
        if (l == used) {
            if (used == max_lanes) {
                l = used - 1; /* unreachable: n slices need at most n lanes */
            } else {
                used++;
            }
        }
        lane_end[l] = s[i].end_us;
        s[i].lane = l;
    }
    return used;
}

/* A JSON string literal: quotes, backslashes and control characters escaped. */
static const char *dev_name(const struct cluster *c, int32_t d, char *buf, size_t size)
{
    if (d >= 0 && d < c->n_devices && c->dev[d].name) {
        return c->dev[d].name;
    }
    snprintf(buf, size, "device%d", (int)d);
    return buf;
}

static void meta(FILE *f, bool *first, const char *what, int32_t pid, int32_t tid, const char *name)
{
    fprintf(f, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
            *first ? "" : ",", what, (int)pid, (int)tid);
    json_out_str(f, name);
    fputs("}}", f);
    *first = false;
}

static const char *track_name(const struct cluster *c, int32_t base, char *buf, size_t size)
{
    char b[32];

    if (base == TID_COMPUTE) {
        return "compute";
    }
    if (base == TID_SEND) {
        return "send";
    }
    if (base == TID_RECV) {
        return "recv";
    }
    if (base == TID_COLL) {
        return "collective";
    }
    snprintf(buf, size, "link -> %s", dev_name(c, base - TID_LINK, b, sizeof(b)));
    return buf;
}

static void thread_meta(FILE *f, bool *first, const struct cluster *c, int32_t pid, int32_t base,
                        int32_t lane)
{
    char name[96], full[128];
    const char *tn = track_name(c, base, name, sizeof(name));
    int32_t tid = base + lane * TID_LANE;

    if (lane > 0) {
        snprintf(full, sizeof(full), "%s #%d", tn, (int)lane + 1);
        tn = full;
    }
    meta(f, first, "thread_name", pid, tid, tn);
    fprintf(f,
            ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            (int)pid, (int)tid, (int)tid);
}

/* Each device's process and its tracks' names and order. */
static void device_meta(FILE *f, bool *first, const struct trace *t, const struct cluster *c)
{
    const bool link = t->channel == CHANNEL_LINK;
    char b1[32];

    for (int32_t d = 0; d < c->n_devices; d++) {
        meta(f, first, "process_name", d, 0, dev_name(c, d, b1, sizeof(b1)));
        fprintf(f,
                ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                "\"args\":{\"sort_index\":%d}}",
                (int)d, (int)d);
        thread_meta(f, first, c, d, TID_COMPUTE, 0);
        if (link) {
            for (int32_t e = 0; e < c->n_devices; e++) {
                if (e != d) {
                    thread_meta(f, first, c, d, TID_LINK + e, 0);
                }
            }
        } else {
            thread_meta(f, first, c, d, TID_SEND, 0);
            thread_meta(f, first, c, d, TID_RECV, 0);
        }
        if (t->n_coll > 0) {
            thread_meta(f, first, c, d, TID_COLL, 0);
        }
    }
}

/* A collective's rank: its op, and the collective's id, kind, bytes and ranks. */
static void write_coll(FILE *f, const struct graph *g, int32_t op, const struct slice *x,
                       int32_t tid)
{
    const struct graph_coll *gc = &g->coll[g->coll_of[op]];
    int32_t ci = g->coll_of[op];

    json_out_str(f, g->op_name[op]);
    fprintf(f,
            ",\"cat\":\"collective\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64
            ",\"dur\":%" PRId64 ",\"args\":{\"op\":",
            (int)x->pid, (int)tid, x->start_us, x->end_us - x->start_us);
    json_out_str(f, g->op_name[op]);
    fputs(",\"collective\":", f);
    json_out_str(f, gc->id);
    fprintf(f, ",\"kind\":\"%s\",\"bytes\":%" PRId64 ",\"ranks\":%d}}", coll_kind_name(gc->kind),
            gc->bytes, g->coll_start[ci + 1] - g->coll_start[ci]);
}

int trace_write_chrome(const struct trace *t, const struct graph *g, const struct cluster *c,
                       FILE *f)
{
    const bool link = t->channel == CHANNEL_LINK;
    size_t n = t->n_compute + t->n_transfer * (link ? 1 : 2), k = 0;
    struct slice *s = mem_alloc_array(n ? n : 1, sizeof(*s));
    int64_t *lane_end = mem_alloc_array(n ? n : 1, sizeof(*lane_end));
    const struct trace_mem **mem = mem_alloc_array(t->n_mem ? t->n_mem : 1, sizeof(*mem));
    bool first = true;
    char b1[32], b2[32];
    int rc = 0;

    if (!s || !lane_end || !mem) {
        rc = err_set(BAECHI_ENOMEM, "out of memory writing the trace");
        goto cleanup;
    }
    for (size_t i = 0; i < t->n_compute; i++) {
        const struct trace_compute *x = &t->compute[i];

        s[k++] = (struct slice){x->device, x->coll ? TID_COLL : TID_COMPUTE, 0, 0, i, x->start_us,
                                x->end_us};
    }
    for (size_t i = 0; i < t->n_transfer; i++) {
        const struct trace_transfer *x = &t->transfer[i];

        if (link) {
            s[k++] = (struct slice){x->src, TID_LINK + x->dst, 0, 1, i, x->start_us, x->end_us};
        } else {
            s[k++] = (struct slice){x->src, TID_SEND, 0, 1, i, x->start_us, x->end_us};
            s[k++] = (struct slice){x->dst, TID_RECV, 0, 2, i, x->recv_start_us, x->recv_end_us};
        }
    }
    qsort(s, n, sizeof(*s), slice_cmp);

    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    device_meta(f, &first, t, c);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int32_t lanes;

        while (j < n && s[j].pid == s[i].pid && s[j].base == s[i].base) {
            j++;
        }
        lanes = assign_lanes(s + i, j - i, lane_end, (int32_t)(j - i));
        for (int32_t l = 1; l < lanes; l++) {
            thread_meta(f, &first, c, s[i].pid, s[i].base, l);
        }
        i = j;
    }
    for (size_t i = 0; i < n; i++) {
        const struct slice *x = &s[i];
        int32_t tid = x->base + x->lane * TID_LANE;

        fputs(first ? "\n{\"name\":" : ",\n{\"name\":", f);
        first = false;
        if (x->kind == 0 && t->compute[x->index].coll) {
            write_coll(f, g, t->compute[x->index].op, x, tid);
        } else if (x->kind == 0) {
            int32_t op = t->compute[x->index].op;

            json_out_str(f, g->op_name[op]);
            fprintf(f,
                    ",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64
                    ",\"dur\":%" PRId64 ",\"args\":{\"op\":",
                    (int)x->pid, (int)tid, x->start_us, x->end_us - x->start_us);
            json_out_str(f, g->op_name[op]);
            fputs(",\"type\":", f);
            json_out_str(f, g->op_type[op]);
            fprintf(f, ",\"bytes\":%" PRId64 "}}", g->out_bytes[op]);
        } else {
            const struct trace_transfer *y = &t->transfer[x->index];

            /* the tensor's name whole (a char[512] cut it) */
            graph_tensor_name_json(g, y->tensor, f);
            fprintf(f,
                    ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64
                    ",\"dur\":%" PRId64 ",\"args\":{\"tensor\":",
                    x->kind == 1 ? "send" : "recv", (int)x->pid, (int)tid, x->start_us,
                    x->end_us - x->start_us);
            graph_tensor_name_json(g, y->tensor, f);
            fprintf(f, ",\"bytes\":%" PRId64 ",\"src\":", y->bytes);
            json_out_str(f, dev_name(c, y->src, b1, sizeof(b1)));
            fputs(",\"dst\":", f);
            json_out_str(f, dev_name(c, y->dst, b2, sizeof(b2)));
            fputs("}}", f);
        }
    }
    for (size_t i = 0; i < t->n_mem; i++) {
        mem[i] = &t->mem[i];
    }
    qsort(mem, t->n_mem, sizeof(*mem), mem_cmp);
    for (size_t i = 0; i < t->n_mem; i++) {
        fprintf(f,
                ",\n{\"name\":\"memory\",\"ph\":\"C\",\"pid\":%d,\"ts\":%" PRId64
                ",\"args\":{\"bytes\":%" PRId64 "}}",
                (int)mem[i]->device, mem[i]->time_us, mem[i]->bytes);
    }
    if (t->n_kmem) {
        const struct trace_kmem **km = mem_alloc_array(t->n_kmem, sizeof(*km));

        if (!km) {
            rc = BAECHI_ENOMEM;
            goto cleanup;
        }
        for (size_t i = 0; i < t->n_kmem; i++) {
            km[i] = &t->kmem[i];
        }
        qsort(km, t->n_kmem, sizeof(*km), kmem_cmp);
        for (size_t i = 0; i < t->n_kmem; i++) {
            fprintf(f,
                    ",\n{\"name\":\"memory by kind\",\"ph\":\"C\",\"pid\":%d,\"ts\":%" PRId64
                    ",\"args\":{",
                    (int)km[i]->device, km[i]->time_us);
            for (int kd = 0; kd < TRACE_MEM_KINDS; kd++) {
                fprintf(f, "%s\"%s\":%" PRId64, kd ? "," : "", mem_kind_name((enum mem_kind)kd),
                        km[i]->bytes[kd]);
            }
            fputs("}}", f);
        }
        free(km);
    }
    fputs("\n]}\n", f);
    if (ferror(f)) {
        rc = err_set(BAECHI_EIO, "cannot write the trace: %s", strerror(errno));
    }
cleanup:
    free(s);
    free(lane_end);
    free(mem);
    return rc;
}
