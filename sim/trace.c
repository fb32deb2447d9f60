/*
 * trace.c - recording a simulated step and writing it as a Chrome trace
 * (see trace.h).  The JSON object format of the Trace Event Format:
 * "traceEvents" with "M" metadata events naming one process per device and
 * its threads, "X" complete events for ops and transfers (ts/dur in µs) and
 * "C" counter events for memory (MiB).
 *
 * Tracks (thread ids) per device process:
 *   0          "compute"
 *   1          "channel"  (shared channel; a transfer is drawn on both ends)
 *   1, 2       "send", "recv" (duplex engines; drawn on src send, dst recv)
 *   100 + dst  "link -> <dst name>" (per-link channels; drawn on src)
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "sim/trace.h"
#include "core/json_out.h"

#include "core/array.h"
#include "core/err.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TID_COMPUTE 0
#define TID_CHANNEL 1
#define TID_SEND    1
#define TID_RECV    2
#define TID_LINK    100

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
    trace_init(t, t->channel);
}

int trace_add_compute(struct trace *t, int32_t op, int32_t device, int64_t start_us, int64_t end_us)
{
    int rc = ARRAY_RESERVE(t->compute, t->alloc_compute, t->n_compute + 1);

    if (rc) {
        return rc;
    }
    t->compute[t->n_compute++] = (struct trace_compute){op, device, start_us, end_us};
    return 0;
}

int trace_add_transfer(struct trace *t, int32_t tensor, int32_t src, int32_t dst, int64_t bytes,
                       int64_t start_us, int64_t end_us)
{
    int rc = ARRAY_RESERVE(t->transfer, t->alloc_transfer, t->n_transfer + 1);

    if (rc) {
        return rc;
    }
    t->transfer[t->n_transfer++] =
        (struct trace_transfer){tensor, src, dst, bytes, start_us, end_us};
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

static void transfer_event(FILE *f, const struct trace_transfer *x, const char *tname,
                           const char *src, const char *dst, int32_t pid, int32_t tid)
{
    fputs(",\n{\"name\":", f);
    json_out_str(f, tname);
    fprintf(f,
            ",\"cat\":\"transfer\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64
            ",\"dur\":%" PRId64 ",\"args\":{\"tensor\":",
            (int)pid, (int)tid, x->start_us, x->end_us - x->start_us);
    json_out_str(f, tname);
    fprintf(f, ",\"bytes\":%" PRId64 ",\"src\":", x->bytes);
    json_out_str(f, src);
    fputs(",\"dst\":", f);
    json_out_str(f, dst);
    fputs("}}", f);
}

int trace_write_chrome(const struct trace *t, const struct graph *g, const struct cluster *c,
                       FILE *f)
{
    bool first = true;
    char b1[32], b2[32], name[512];

    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
    for (int32_t d = 0; d < c->n_devices; d++) {
        meta(f, &first, "process_name", d, 0, dev_name(c, d, b1, sizeof(b1)));
        fprintf(f,
                ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
                "\"args\":{\"sort_index\":%d}}",
                (int)d, (int)d);
        meta(f, &first, "thread_name", d, TID_COMPUTE, "compute");
        switch (t->channel) {
        case CHANNEL_DUPLEX:
            meta(f, &first, "thread_name", d, TID_SEND, "send");
            meta(f, &first, "thread_name", d, TID_RECV, "recv");
            break;
        case CHANNEL_LINK:
            for (int32_t e = 0; e < c->n_devices; e++) {
                if (e != d) {
                    snprintf(name, sizeof(name), "link -> %s", dev_name(c, e, b2, sizeof(b2)));
                    meta(f, &first, "thread_name", d, TID_LINK + e, name);
                }
            }
            break;
        case CHANNEL_SHARED:
        default:
            meta(f, &first, "thread_name", d, TID_CHANNEL, "channel");
            break;
        }
    }
    for (size_t i = 0; i < t->n_compute; i++) {
        const struct trace_compute *x = &t->compute[i];

        fputs(first ? "\n{\"name\":" : ",\n{\"name\":", f);
        first = false;
        json_out_str(f, g->op_name[x->op]);
        fprintf(f,
                ",\"cat\":\"compute\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%" PRId64
                ",\"dur\":%" PRId64 ",\"args\":{\"op\":",
                (int)x->device, TID_COMPUTE, x->start_us, x->end_us - x->start_us);
        json_out_str(f, g->op_name[x->op]);
        fputs(",\"type\":", f);
        json_out_str(f, g->op_type[x->op]);
        fprintf(f, ",\"bytes\":%" PRId64 "}}", g->out_bytes[x->op]);
    }
    for (size_t i = 0; i < t->n_transfer; i++) {
        const struct trace_transfer *x = &t->transfer[i];
        const char *src = dev_name(c, x->src, b1, sizeof(b1));
        const char *dst = dev_name(c, x->dst, b2, sizeof(b2));

        graph_tensor_name(g, x->tensor, name, sizeof(name));
        switch (t->channel) {
        case CHANNEL_DUPLEX:
            transfer_event(f, x, name, src, dst, x->src, TID_SEND);
            transfer_event(f, x, name, src, dst, x->dst, TID_RECV);
            break;
        case CHANNEL_LINK:
            transfer_event(f, x, name, src, dst, x->src, TID_LINK + x->dst);
            break;
        case CHANNEL_SHARED:
        default:
            transfer_event(f, x, name, src, dst, x->src, TID_CHANNEL);
            transfer_event(f, x, name, src, dst, x->dst, TID_CHANNEL);
            break;
        }
    }
    for (size_t i = 0; i < t->n_mem; i++) {
        const struct trace_mem *x = &t->mem[i];

        fprintf(f,
                ",\n{\"name\":\"memory\",\"ph\":\"C\",\"pid\":%d,\"ts\":%" PRId64
                ",\"args\":{\"MiB\":%.6f}}",
                (int)x->device, x->time_us, (double)x->bytes / (1024.0 * 1024.0));
    }
    fputs("\n]}\n", f);
    if (ferror(f)) {
        return err_set(BAECHI_EIO, "cannot write the trace: %s", strerror(errno));
    }
    return 0;
}
