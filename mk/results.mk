# mk/results.mk - results/ (issue 5): the SQLite store, sweeps, plots.
#
#   MPI=1   build the plugin $(BUILD)/baechi-mpi.so for `baechi sweep --mpi`
#           (results/sweep_mpi.c compiled with mpicc's flags and -DHAVE_MPI,
#           linked with Open MPI); the program loads it with dlopen only
#           when --mpi is asked, so no command links Open MPI.  The program
#           exports the symbols the plugin calls (--dynamic-list, generated
#           from the plugin's undefined symbols).  MPI=0: no plugin, and
#           --mpi says the build has no MPI.
#           Default: 1 when mpicc is found (libopenmpi-dev), else 0.
#   The tool version stored with every run is `git describe` at build time,
#   regenerated into $(BUILD)/gen/git-version.h when it changes.

MPICC ?= mpicc
MPI   ?= $(if $(shell command -v $(MPICC) 2>/dev/null),1,0)

_results_goal := $(.DEFAULT_GOAL)

ifeq ($(MPI),1)
MPI_PLUGIN := $(BUILD)/baechi-mpi.so
MPI_CFLAGS := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LDLIBS := $(shell $(MPICC) --showme:link 2>/dev/null || echo -lmpi)
MPI_SYMS   := $(BUILD)/gen/mpi-plugin.syms

$(BUILD)/results/sweep_mpi-mpi.o: results/sweep_mpi.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) -DHAVE_MPI $(MPI_CFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# its headers too (struct sweep_spec, placer_options): a plugin built
# against an older layout hangs `sweep --mpi`
-include $(BUILD)/results/sweep_mpi-mpi.d

$(MPI_PLUGIN): $(BUILD)/results/sweep_mpi-mpi.o
	$(QUIET_LINK)$(CC) $(LDFLAGS) -shared -o $@ $< $(MPI_LDLIBS)

# What the plugin calls that is not Open MPI's: the program exports these.
$(MPI_SYMS): $(BUILD)/results/sweep_mpi-mpi.o
	@mkdir -p $(dir $@)
	$(Q){ echo '{'; nm -u $< | awk '$$2 !~ /^(MPI_|ompi_|_GLOBAL_OFFSET_TABLE_)/ { print "  " $$2 ";" }'; \
	      echo '};'; } > $@

# private: not inherited by the prerequisites (the CLP plugin is linked as one)
$(BUILD)/baechi: private LDFLAGS += -Wl,--dynamic-list=$(MPI_SYMS)
$(BUILD)/baechi: | $(MPI_SYMS) $(MPI_PLUGIN)

# Where sweep_mpi.c looks from an installed bin/baechi: ../lib/baechi/.
.PHONY: install-mpi-plugin
install: install-mpi-plugin
install-mpi-plugin: $(MPI_PLUGIN)
	install -d $(DESTDIR)$(PREFIX)/lib/baechi
	install -m 755 $(MPI_PLUGIN) $(DESTDIR)$(PREFIX)/lib/baechi/baechi-mpi.so
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
