/*
 * file_out.h - writing an output file whole or not at all: the library's
 * writers (api/) and the CLI's (cli/cmd.h cmd_write_file) share it.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_FILE_OUT_H
#define BAECHI_CORE_FILE_OUT_H

#include <stdio.h>

/* Writes the content to f; 0 or an error code (message set). */
typedef int (*file_write_fn)(FILE *f, void *ctx);

/*
 * Writes an output file through fn(f, ctx).  "-" is standard output (flushed
 * and checked).  A path that names something other than a regular file (a
 * device, a FIFO, /dev/stdout) is opened and written as it is.  Any other
 * path is written to a temporary file in the same directory, flushed and
 * closed, and renamed into place only when all of that succeeded: a failed
 * or interrupted write never leaves a half-written file, and an existing
 * file stays as it was.  0, fn's code, BAECHI_ENOMEM or BAECHI_EIO, with
 * the message set ("cannot open 'path' for writing: reason", "error writing
 * 'path': reason", "cannot write 'path': reason" for the rename).
 */
int file_write_atomic(const char *path, file_write_fn fn, void *ctx);

#endif
