# mk/results.mk - results/ (issue 5): the SQLite store, sweeps, plots.
#
#   MPI=1   build `baechi sweep --mpi` with Open MPI (results/sweep_mpi.c is
#           compiled with mpicc and -DHAVE_MPI); MPI=0 leaves it out (the
#           file then compiles to a stub and nothing includes mpi.h).
#           Default: 1 when mpicc is found (libopenmpi-dev), else 0.
#   The tool version stored with every run is `git describe` at build time,
#   regenerated into $(BUILD)/gen/git-version.h when it changes.

MPICC ?= mpicc
MPI   ?= $(if $(shell command -v $(MPICC) 2>/dev/null),1,0)

_results_goal := $(.DEFAULT_GOAL)

ifeq ($(MPI),1)
# A differently named object, so that switching MPI on and off rebuilds the library.
LIB_OBJ := $(filter-out $(BUILD)/results/sweep_mpi.o,$(LIB_OBJ)) $(BUILD)/results/sweep_mpi-mpi.o
LDLIBS  += $(shell $(MPICC) --showme:link 2>/dev/null || echo -lmpi)
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)

$(BUILD)/results/sweep_mpi-mpi.o: results/sweep_mpi.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) -DHAVE_MPI $(MPI_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<
endif

BAECHI_GIT_VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

$(BUILD)/gen/git-version.h: FORCE_GIT_VERSION
	@mkdir -p $(dir $@)
	@echo '#define BAECHI_GIT_VERSION "$(BAECHI_GIT_VERSION)"' > $@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

.PHONY: FORCE_GIT_VERSION
FORCE_GIT_VERSION:

$(BUILD)/results/db.o: $(BUILD)/gen/git-version.h
$(BUILD)/results/db.o: CPPFLAGS += -include $(BUILD)/gen/git-version.h

.DEFAULT_GOAL := $(_results_goal)
