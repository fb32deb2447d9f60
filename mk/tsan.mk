# mk/tsan.mk - the library under ThreadSanitizer (issue 20; docs/library.md
# "Threads").
#
#   make tsan   builds build/tsan/ (the Makefile's SANITIZE=thread with
#               BUILD=build/tsan, -O1) and runs the threads tests under it:
#               every placer and both simulators from 8 threads
#               (tests/unit/test_placer_threads.c, built as a program of its
#               own).  Any report of a race fails the run (halt_on_error).
#               About two minutes to build, half a minute to run.
#
# Not part of `make check` (ASan and TSan cannot share a build); the plain
# and ASan runs of the same test compare results only.  scripts/check-statics.sh
# (tests/cli/t007) is the static side: no writable statics in the library.

TSAN_BUILD  := build/tsan
TSAN_TEST   := $(TSAN_BUILD)/test-placer-threads
# the process-wide state: umask while files are written, the warning handler's swap
TSAN_STATE  := $(TSAN_BUILD)/test-process-state
# report every race, then stop: a race is a failure, not a warning
TSAN_OPTIONS_RUN ?= halt_on_error=1 second_deadlock_stack=1

# Rules here must not become the default goal (this file is read before `all`).
_tsan_goal := $(.DEFAULT_GOAL)

tsan:
	@$(MAKE) --no-print-directory SANITIZE=thread BUILD=$(TSAN_BUILD) OPT='-O1 -g' $(TSAN_TEST) \
		$(TSAN_STATE)
	TSAN_OPTIONS='$(TSAN_OPTIONS_RUN)' $(TSAN_TEST)
	TSAN_OPTIONS='$(TSAN_OPTIONS_RUN)' $(TSAN_STATE)

# The Criterion test as a program of its own (Criterion's sandbox and TSan
# do not go together: the test file says why); no -pedantic, for its
# stand-in assertion macros.
$(TSAN_BUILD)/test-placer-threads: tests/unit/test_placer_threads.c $(TSAN_BUILD)/libbaechi.a
	$(QUIET_LINK)$(CC) $(CPPFLAGS) -DPLACER_THREADS_MAIN $(filter-out -pedantic,$(ALL_CFLAGS)) \
		$(LDFLAGS) -o $@ $< $(TSAN_BUILD)/libbaechi.a $(LDLIBS)

$(TSAN_BUILD)/test-process-state: tests/unit/test_process_state.c $(TSAN_BUILD)/libbaechi.a
	$(QUIET_LINK)$(CC) $(CPPFLAGS) -DPROCESS_STATE_MAIN $(filter-out -pedantic,$(ALL_CFLAGS)) \
		$(LDFLAGS) -o $@ $< $(TSAN_BUILD)/libbaechi.a $(LDLIBS)

.PHONY: tsan
.DEFAULT_GOAL := $(_tsan_goal)
