# mk/fuzz.mk - fuzzing of every input format (tests/fuzz/, docs/fuzzing.md).
#
#   make fuzz FUZZ_S=N   builds the harnesses with clang's libFuzzer under
#                        ASan + UBSan (+ float-cast-overflow, integer) and runs
#                        each for N seconds (default 60); fails on any crash,
#                        sanitizer report, leak, timeout (> 10 s) or harness
#                        finding; inputs that fail are saved in
#                        tests/fuzz/crashes/<target>/.
#   make fuzz-replay     runs every saved input of tests/fuzz/crashes/ once
#                        (each must pass: every finding is fixed).
#   make fuzz-build      only builds build/fuzz/fuzz-<target> (and
#                        build/fuzz/replay-<target>: the same harness with a
#                        plain main that runs files, for AFL++ and for
#                        replaying without libFuzzer).
#   FUZZ_TARGETS="onnx sweep"   a subset.
#
# The library is compiled a second time with clang into build/fuzz/: the
# objects of LIB_SRC that the harnesses link (about 80 of 115), the
# generated presets and ONNX schema of build/gen/.  Which, a link of the
# harnesses compiled by the normal build against its objects (a thin
# archive, ld --trace) tells: build/fuzz/objects.mk, remade when an object
# changes; a reference it missed would fail the fuzz link, not pass.
# `make check` runs a smoke round (tests/fuzz/run.sh smoke, a few seconds
# per target) and the replay; scripts/run-tests.sh counts them.

FUZZ_CC      ?= clang
FUZZ_S       ?= 60
FUZZ_TARGETS ?= workload cluster placement sweep onnx profile
FUZZ_BUILD   := build/fuzz
FUZZ_GEN     := build/gen
# `integer` adds unsigned wrap, unsigned shifts and implicit truncations and
# sign changes (clang 14); wrap and conversions are recoverable, so that
# tests/fuzz/ubsan.supp can silence the wraps that are meant (FNV hashes);
# halt_on_error=1, compiled in by tests/fuzz/options.c, still stops at every
# other report.
FUZZ_SAN     ?= address,undefined,float-cast-overflow,integer
# line tables only: the reports' stack traces keep file:line, and the
# build (part of `make check`) takes a tenth less time
FUZZ_CFLAGS  = -std=c11 -O1 -gline-tables-only -fno-omit-frame-pointer -fPIC -MMD -MP \
               -fsanitize=$(FUZZ_SAN) -fno-sanitize-recover=all \
               -fsanitize-recover=unsigned-integer-overflow,implicit-conversion \
               $(filter-out -Werror,$(WARNINGS))
FUZZ_CPPFLAGS = -D_GNU_SOURCE -I. -I$(FUZZ_GEN) -DBAECHI_DATADIR='"$(PREFIX)/share/baechi"'

FUZZ_OBJECTS_MK := $(FUZZ_BUILD)/objects.mk
FUZZ_PLAIN_OBJ  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/fuzz/*.c))
ifneq ($(filter fuzz fuzz-build fuzz-replay,$(MAKECMDGOALS)),)
FUZZ_LIB_OBJ :=
include $(FUZZ_OBJECTS_MK)
else
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(FUZZ_BUILD)/gen/presets.o \
                $(FUZZ_BUILD)/gen/onnx.pb-c.o
endif
FUZZ_BINS    = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
FUZZ_REPLAYS = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/replay-%)
# LDLIBS as the mk/ fragments complete it (read when the rule runs)
FUZZ_LDLIBS  = $(LDLIBS)

_fuzz_goal := $(.DEFAULT_GOAL)

.PHONY: fuzz fuzz-build fuzz-replay
fuzz-build: $(FUZZ_BINS) $(FUZZ_REPLAYS)

fuzz: fuzz-build
	@FUZZ_TARGETS="$(FUZZ_TARGETS)" sh tests/fuzz/run.sh fuzz $(FUZZ_S)

fuzz-replay: fuzz-build
	@FUZZ_TARGETS="$(FUZZ_TARGETS)" sh tests/fuzz/run.sh replay

$(BUILD)/tests/fuzz/options.o: CPPFLAGS += -DFUZZ_UBSAN_SUPP='""'
$(FUZZ_OBJECTS_MK): $(LIB_OBJ) $(FUZZ_PLAIN_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@.a && ar rcsTP $@.a $(abspath $(LIB_OBJ)) && : > $@.trace && \
	for t in $(FUZZ_TARGETS); do \
	    $(CC) -o $@.bin $(BUILD)/tests/fuzz/fuzz_$$t.o $(BUILD)/tests/fuzz/standalone.o \
	        $(BUILD)/tests/fuzz/options.o $@.a $(LDLIBS) -Wl,--trace >> $@.trace || exit 1; \
	done && \
	sed -n 's|^$(CURDIR)/$(BUILD)/\(.*\.o\)$$|FUZZ_LIB_OBJ += $(FUZZ_BUILD)/\1|p' $@.trace | \
	    sort -u > $@.tmp && test -s $@.tmp && mv $@.tmp $@ && rm -f $@.a $@.bin $@.trace

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/gen/%.o: $(FUZZ_GEN)/%.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# build/gen/ is made by the normal build's rules (Makefile, mk/workloads.mk,
# mk/results.mk)
$(patsubst %.c,$(FUZZ_BUILD)/%.o,$(wildcard workloads/onnx_*.c)) \
$(FUZZ_BUILD)/tests/fuzz/fuzz_onnx.o: $(FUZZ_GEN)/onnx.pb-c.h
$(FUZZ_BUILD)/results/db.o: $(FUZZ_GEN)/git-version.h
$(FUZZ_BUILD)/results/db.o: FUZZ_CPPFLAGS += -include $(FUZZ_GEN)/git-version.h

$(FUZZ_BUILD)/tests/fuzz/options.o: FUZZ_CPPFLAGS += -DFUZZ_UBSAN_SUPP='"$(CURDIR)/tests/fuzz/ubsan.supp"'

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/tests/fuzz/options.o \
		$(FUZZ_LIB_OBJ)
	$(QUIET_LINK)$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(FUZZ_LDLIBS)

$(FUZZ_BUILD)/replay-%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/tests/fuzz/standalone.o \
		$(FUZZ_BUILD)/tests/fuzz/options.o $(FUZZ_LIB_OBJ)
	$(QUIET_LINK)$(FUZZ_CC) -fsanitize=$(FUZZ_SAN) -o $@ $^ $(FUZZ_LDLIBS)

.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_BUILD)/tests/fuzz/standalone.o $(FUZZ_BUILD)/tests/fuzz/options.o \
            $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o)

-include $(FUZZ_LIB_OBJ:.o=.d) $(wildcard $(FUZZ_BUILD)/tests/fuzz/*.d)

.DEFAULT_GOAL := $(_fuzz_goal)
