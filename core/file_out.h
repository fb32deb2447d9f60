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
 * file stays as it was.  The temporary file ("<path>.tmpXXXXXX") is
 * created with mode 0666 less the process's umask, as fopen would; the
 * umask is never changed.  While it exists it is registered for
 * file_out_remove_pending.  0, fn's code, BAECHI_ENOMEM or BAECHI_EIO, with
 * the message set ("cannot open 'path' for writing: reason", "error writing
 * 'path': reason", "cannot write 'path': reason" for the rename); a full
 * disk, a read-only file system or a file size limit is marked a failure
 * of the system (err_set_io: exit 1, not 2).
 */
int file_write_atomic(const char *path, file_write_fn fn, void *ctx);

/*
 * Removes the temporary files of the writes under way (up to 32 at once;
 * more are written unregistered).  Async-signal-safe: for a handler of a
 * signal that ends the process.
 */
void file_out_remove_pending(void);

/*
 * A signal handler: file_out_remove_pending, then the signal's default
 * action, raised again (the process ends by that signal, exit status
 * 128 + sig).  Another handler may end with it (results/plot_cleanup.c).
 */
void file_out_on_signal(int sig);

/*
 * Installs file_out_on_signal for SIGTERM, SIGINT and SIGHUP where their
 * action is the default (ending the process); a signal that is ignored
 * (nohup) or has a handler keeps it.  For a program (cli/main.c) before it
 * starts threads; a library never changes signal actions by itself.
 */
void file_out_signals_install(void);

#endif
