/*
 * json_out.h - writing JSON by hand: the one string escaper behind every
 * `--json` output and the Chrome trace export.  (Reading JSON is jansson's
 * job, calibrate/annotate.c.)
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_JSON_OUT_H
#define BAECHI_CORE_JSON_OUT_H

#include <stdio.h>

/* Writes s as a JSON string literal, quotes included; NULL as "". */
void json_out_str(FILE *f, const char *s);

/* Writes s escaped as inside a JSON string, without the quotes: a string
 * written in pieces needs no buffer for the whole. */
void json_out_chars(FILE *f, const char *s);

#endif
