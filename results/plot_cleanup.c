/*
 * plot_cleanup.c - the temporary files of a plot removed when SIGTERM,
 * SIGINT or SIGHUP ends the process (plot_internal.h): the data, script
 * and figure written beside their targets, the private directory of the
 * data, script and gnuplot's log, and gnuplot itself, which would
 * otherwise go on drawing into a file nobody renames.
 *
 * A signal handler needs state it can reach: the one mutable global of
 * the plots, fixed-size (nothing is allocated in the handler), held by one
 * plot at a time (a second plot running in another thread draws without
 * it).  Only a signal that would end the process is caught (its action
 * SIG_DFL, or file_out_on_signal of cli/main.c, which this handler ends
 * with), and the action is put back when the plot ends: a program with
 * its own handler (Python's SIGINT) keeps it, and its plot_make returns
 * and removes its files as on any error.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#include "results/plot_internal.h"

#include "core/file_out.h"

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const int caught[] = {SIGTERM, SIGINT, SIGHUP};
#define N_CAUGHT (sizeof(caught) / sizeof(caught[0]))

static struct {
    char path[PLOT_TMP_N][PATH_MAX];
    volatile sig_atomic_t set[PLOT_TMP_N]; /* path[i] is complete and to be removed */
    volatile sig_atomic_t child;           /* gnuplot's pid, 0 when none runs */
    struct sigaction old[N_CAUGHT];
    bool installed[N_CAUGHT];
} guard;
static atomic_flag guard_taken = ATOMIC_FLAG_INIT;
static _Thread_local bool guard_mine; /* this thread's plot holds the guard */

/* Only async-signal-safe calls (kill, waitpid, unlink, rmdir, sigaction, raise). */
static void on_signal(int sig)
{
    pid_t child = (pid_t)guard.child;

    if (child > 0) {
        /* killed and reaped first: a gnuplot still running could create
         * its output again after the unlink below */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    for (int i = 0; i < PLOT_TMP_N; i++) {
        if (guard.set[i]) {
            if (i == PLOT_TMP_DIR) {
                rmdir(guard.path[i]);
            } else {
                unlink(guard.path[i]);
            }
        }
    }
    /* then the other writes' temporary files, and the process ends as the
     * signal asked */
    file_out_on_signal(sig);
}

void plot_guard_begin(void)
{
    struct sigaction sa;

    if (atomic_flag_test_and_set(&guard_taken)) {
        return; /* another plot holds it */
    }
    guard_mine = true;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < N_CAUGHT; k++) {
        sigaddset(&sa.sa_mask, caught[k]); /* one cleanup at a time */
    }
    for (size_t k = 0; k < N_CAUGHT; k++) {
        guard.installed[k] = false;
        if (sigaction(caught[k], NULL, &guard.old[k]) == 0 &&
            !(guard.old[k].sa_flags & SA_SIGINFO) &&
            (guard.old[k].sa_handler == SIG_DFL || guard.old[k].sa_handler == file_out_on_signal)) {
            guard.installed[k] = sigaction(caught[k], &sa, NULL) == 0;
        }
    }
}

void plot_guard_end(void)
{
    if (!guard_mine) {
        return;
    }
    for (size_t k = 0; k < N_CAUGHT; k++) {
        if (guard.installed[k]) {
            sigaction(caught[k], &guard.old[k], NULL);
            guard.installed[k] = false;
        }
    }
    for (int i = 0; i < PLOT_TMP_N; i++) {
        guard.set[i] = 0;
    }
    guard.child = 0;
    guard_mine = false;
    atomic_flag_clear(&guard_taken);
}

void plot_guard_hold(sigset_t *old)
{
    sigset_t block;

    sigemptyset(&block);
    for (size_t k = 0; k < N_CAUGHT; k++) {
        sigaddset(&block, caught[k]);
    }
    pthread_sigmask(SIG_BLOCK, &block, old);
}

void plot_guard_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void plot_guard_set(enum plot_tmp_slot slot, const char *path)
{
    if (!guard_mine) {
        return;
    }
    guard.set[slot] = 0; /* the handler never reads a half-written path */
    if (path && strlen(path) < sizeof(guard.path[slot])) {
        memcpy(guard.path[slot], path, strlen(path) + 1);
        atomic_signal_fence(memory_order_seq_cst); /* the path before the flag */
        guard.set[slot] = 1;
    }
}

void plot_guard_child(pid_t pid)
{
    if (guard_mine) {
        guard.child = (sig_atomic_t)pid;
    }
}

void plot_guard_child_reset(void)
{
    for (size_t k = 0; k < N_CAUGHT; k++) {
        if (guard.installed[k]) {
            signal(caught[k], SIG_DFL);
        }
    }
}
