/*
 * file_out.c - writing an output file whole or not at all (see file_out.h).
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "core/file_out.h"

#include "core/alloc.h"
#include "core/err.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Flushes and closes f (not stdout); the first error wins. */
/* A failed open for writing (errno set): out of memory is not bad input. */
static int open_err(const char *path)
{
    int e = errno;

    if (e == ENOMEM) {
        return err_set(BAECHI_ENOMEM, "out of memory opening '%s' for writing", path);
    }
    return err_set(BAECHI_EIO, "cannot open '%s' for writing: %s", path, strerror(e));
}

static int close_checked(FILE *f, const char *path, int rc)
{
    if ((fflush(f) != 0 || ferror(f)) && !rc) {
        rc = err_set(BAECHI_EIO, "error writing '%s': %s", path, strerror(errno));
    }
    if (fclose(f) != 0 && !rc) {
        rc = err_set(BAECHI_EIO, "error writing '%s': %s", path, strerror(errno));
    }
    return rc;
}

int file_write_atomic(const char *path, file_write_fn fn, void *ctx)
{
    char *tmp = NULL;
    FILE *f = NULL;
    struct stat st;
    mode_t mask;
    int fd = -1, rc = 0;

    if (strcmp(path, "-") == 0) {
        rc = fn(stdout, ctx);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            int e = errno;

            /* reported here: a check of stdout at exit need not say it again */
            clearerr(stdout);
            return rc ? rc : err_set(BAECHI_EIO, "error writing standard output: %s", strerror(e));
        }
        return rc;
    }
    /* A device, a pipe or a link (/dev/stdout, a FIFO) is written as it is:
     * renaming over it would replace the node instead of writing to it. */
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (!(f = fopen(path, "w"))) {
            return open_err(path);
        }
        return close_checked(f, path, fn(f, ctx));
    }
    if (mem_asprintf(&tmp, "%s.tmpXXXXXX", path) < 0) {
        return err_set(BAECHI_ENOMEM, "out of memory");
    }
    if ((fd = mkstemp(tmp)) < 0) {
        rc = open_err(path);
        free(tmp);
        return rc;
    }
    /* mkstemp makes the file 0600; give it what fopen would have. */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(f = fdopen(fd, "w"))) {
        rc = open_err(path);
        close(fd);
        goto cleanup;
    }
    rc = close_checked(f, path, fn(f, ctx));
    if (!rc && rename(tmp, path) != 0) {
        rc = err_set(BAECHI_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
cleanup:
    if (rc) {
        unlink(tmp);
    }
    free(tmp);
    return rc;
}
