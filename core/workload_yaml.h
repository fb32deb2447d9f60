/*
 * workload_yaml.h - the workload file (YAML, format 1): reader and writer.
 *
 * The format is docs/formats.md (docs/formats.md has
 * the user's version with every validation rule).  The reader enforces all of
 * its rules except acyclicity, which graph_build() checks; messages are
 * "file:line:col: op 'name': key: what is wrong, got 'value'".
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_WORKLOAD_YAML_H
#define BAECHI_CORE_WORKLOAD_YAML_H

#include "core/workload.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Reads the workload file `path` into `w`, which this function initialises.
 * Sets w->path.  On failure `w` is left empty (releasing it is harmless).  Inputs may name ops
 * defined later in the file.  Calls workload_check() at the end. Returns 0, BAECHI_EIO (the file
 * cannot be read), BAECHI_EPARSE (anything wrong in it) or BAECHI_ENOMEM.  Time: O(file size);
 * the fast reader of the ops (workload_read_yaml_mode) is the quicker (docs/formats.md).
 */
int workload_read_yaml(struct workload *w, const char *path);

/* Same, from text[0..len); `name` stands for the file in messages and becomes w->path. */
int workload_read_yaml_string(struct workload *w, const char *text, size_t len, const char *name);

/*
 * How the ops are read.  AUTO (what the functions above do): when the file
 * ends with a top-level "ops:" list of one-line flow mappings (the
 * writer's layout), those lines are read by core/yio_flow.h instead of
 * libyaml's scanner, and the rest of the file by libyaml; if the fast
 * reader meets anything outside its subset, or the read fails for any
 * reason, the whole text is read again by libyaml alone, so verdicts and
 * messages are libyaml's (deviation: beyond the original, speed only).
 * BAECHI_YAML_FAST=0 in the environment makes AUTO read with libyaml only.
 * The fast reader takes each op line straight into the op
 * (core/workload_flow.h) when it can, else through its events.
 * LIBYAML: libyaml only.  FAST_ONLY (tests): no second reading; *fast
 * (may be NULL) tells whether the fast reader read the ops.  FAST_EVENTS
 * (tests): as FAST_ONLY, every op line through events.  FAST_DIRECT
 * (tests): as FAST_ONLY, and BAECHI_EPARSE (no message) when an op line
 * was not taken straight.
 */
enum workload_read_mode {
    WORKLOAD_READ_AUTO = 0,
    WORKLOAD_READ_LIBYAML = 1,
    WORKLOAD_READ_FAST_ONLY = 2,
    WORKLOAD_READ_FAST_EVENTS = 3,
    WORKLOAD_READ_FAST_DIRECT = 4,
};

int workload_read_yaml_mode(struct workload *w, const char *text, size_t len, const char *name,
                            enum workload_read_mode mode, bool *fast);

/*
 * Writes `w` in the canonical layout (docs/formats.md): a block mapping at the
 * top, `ops` a block list of one-line flow mappings with keys in a fixed
 * order, integers where a value is integral, other numbers in the shortest
 * form that reads back exactly.  read -> write -> read is lossless, and
 * writing a re-read workload gives the same bytes.
 * Returns 0, BAECHI_EIO (write error) or BAECHI_ENOMEM.
 */
int workload_write_yaml(const struct workload *w, FILE *f);

#endif
