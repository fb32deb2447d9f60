/*
 * json_out.c - see json_out.h.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/json_out.h"

void json_out_str(FILE *f, const char *s)
{
    putc('"', f);
    json_out_chars(f, s);
    putc('"', f);
}

void json_out_chars(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"':
        case '\\':
            putc('\\', f);
            putc(*p, f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(f, "\\u%04x", *p);
            } else {
                putc(*p, f);
            }
        }
    }
}
