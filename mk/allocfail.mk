# mk/allocfail.mk - allocation-failure testing, as SQLite does it
# (docs/fuzzing.md "Allocation failures", core/alloc.h, scripts/alloc-fail.sh).
#
#   make allocfail     builds build/allocfail/baechi: the program compiled with
#                      -DBAECHI_ALLOC_FAIL (core/alloc.c fails the N-th
#                      allocation given by BAECHI_ALLOC_FAIL_AT=N) under
#                      AddressSanitizer + UndefinedBehaviorSanitizer, so that
#                      leaks and invalid accesses after a failure show.
#   make check-alloc   builds it, then runs scripts/alloc-fail.sh: every
#                      command on small inputs, once for every N from 1 to
#                      the number of allocations of the unfailed run.
#
# One more build tree, built by a recursive make with BUILD set (as
# SANITIZE=... builds build/san/).

ALLOCFAIL_BUILD := build/allocfail
ALLOCFAIL_SAN   := address,undefined
ALLOCFAIL_FLAGS  = BUILD=$(ALLOCFAIL_BUILD) OPT='-O1 -g' \
                   CFLAGS='-DBAECHI_ALLOC_FAIL -fsanitize=$(ALLOCFAIL_SAN) -fno-sanitize-recover=all -fno-omit-frame-pointer' \
                   LDFLAGS='-fsanitize=$(ALLOCFAIL_SAN)'

_allocfail_goal := $(.DEFAULT_GOAL)

.PHONY: allocfail check-alloc
allocfail:
	@$(MAKE) --no-print-directory $(ALLOCFAIL_FLAGS) $(ALLOCFAIL_BUILD)/baechi

check-alloc: allocfail
	@sh scripts/alloc-fail.sh $(ALLOCFAIL_BUILD)/baechi

.DEFAULT_GOAL := $(_allocfail_goal)
