# Makefile - one build for the whole suite (../shared/STYLE.md §8).
#
#   make            build ./baechi
#   make check      install missing packages, run unit + CLI tests, then the
#                   same under AddressSanitizer + UndefinedBehaviorSanitizer
#   make demo       install missing packages, run the main job on GNMT
#   make bench      the suite's own speed (medians; never asserted)
#   make install PREFIX=/usr/local
#   make SANITIZE=address,undefined    sanitized build in build/san/
#   make V=1        show full commands
#
# Local overrides go in an untracked config.mak.

-include config.mak

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
WERROR  ?= 1
PYTHON  ?= python3

WARNINGS = -Wall -Wextra -pedantic -Wstrict-prototypes -Wmissing-prototypes \
           -Wold-style-definition -Wvla -Wwrite-strings -Wpointer-arith \
           -Wshadow -Wformat=2 -Wundef -fno-common
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif

OPT     ?= -O2 -g
CFLAGS  ?=
CPPFLAGS += -D_GNU_SOURCE -I. -DBAECHI_DATADIR='"$(PREFIX)/share/baechi"'
ALL_CFLAGS = -std=c11 $(OPT) $(WARNINGS) -MMD -MP $(CFLAGS)
LDLIBS  = -lyaml -lglpk -lsqlite3 -lm -lpthread

ifneq ($(SANITIZE),)
BUILD   := build/san
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
endif

ifeq ($(V),1)
Q =
QUIET_CC =
QUIET_LINK =
else
Q = @
QUIET_CC = @echo '   CC' $@;
QUIET_LINK = @echo ' LINK' $@;
endif

# Every part's sources; a file named *.c.wip is work in progress and not built.
LIB_SRC := $(wildcard sim/*.c placers/*.c workloads/*.c calibrate/*.c results/*.c) bench.c
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/presets.o
MAIN_OBJ := $(BUILD)/main.o
TEST_SRC := $(wildcard tests/unit/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
PRESETS := $(sort $(wildcard data/clusters/*.yaml))

# Each part may add sources, libraries and targets in its own fragment
# (mk/<part>.mk) instead of editing this file: LIB_OBJ += ..., LDLIBS += ...
-include $(sort $(wildcard mk/*.mk))
.DEFAULT_GOAL := all

BIN := $(BUILD)/baechi
LIB := $(BUILD)/libbaechi.a
UNIT := $(BUILD)/unit-tests

.PHONY: all check test unit cli demo bench install deps clean format cuda

all: $(BIN) baechi

baechi: $(BIN)
	$(Q)ln -sf $(BIN) baechi

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/presets.c: $(PRESETS) scripts/embed-presets.sh
	@mkdir -p $(dir $@)
	$(Q)sh scripts/embed-presets.sh $(PRESETS) > $@

$(BUILD)/gen/presets.o: $(BUILD)/gen/presets.c
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(LIB)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(UNIT): $(TEST_OBJ) $(LIB)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

deps:
	@sh scripts/install-deps.sh

# The tests: unit (Criterion) and CLI (shell), then both again sanitized.
# scripts/run-tests.sh prints the closing line "N passed, N failed".
check: deps
	@$(MAKE) --no-print-directory all $(UNIT)
	@$(MAKE) --no-print-directory SANITIZE=address,undefined build/san/baechi build/san/unit-tests
	@$(MAKE) --no-print-directory cuda
	@sh scripts/run-tests.sh

unit: $(UNIT)
	$(UNIT)

cli: $(BIN)
	@sh tests/cli/run.sh $(BIN)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

bench: all
	@./baechi bench

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/baechi/clusters
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/baechi
	install -m 644 $(PRESETS) $(DESTDIR)$(PREFIX)/share/baechi/clusters/

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build baechi

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
