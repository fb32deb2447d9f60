# Makefile - one build for the whole suite.
#
#   make            build ./baechi
#   make check      install missing packages, build (CHECK_JOBS=2 at a time)
#                   and run every test: unit + CLI tests, then the same under
#                   AddressSanitizer + UndefinedBehaviorSanitizer, the Python
#                   module's tests, a fuzz smoke round
#   make check-quick  the edit loop: the normal build, the unit tests, the
#                   Python tests and the CLI tests not marked slow
#   make demo       install missing packages, run the main job on GNMT
#   make bench      the suite's own speed (medians; never asserted)
#   make validate   the suite against published references (ZeRO, Megatron,
#                   Korthikanti, nccl-tests): fails when a row is outside 5 %
#   make validation-doc  rewrite docs/validation.md from `baechi validate`
#   make install PREFIX=/usr/local   the program, libbaechi (.a, .so, header,
#                   baechi.pc), the Python module, the data (presets, GNMT,
#                   the paper sweep) and the man page baechi.1
#   make lib        build/libbaechi.a and build/libbaechi.so only
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
# -fPIC everywhere: the same objects make libbaechi.a and libbaechi.so.
ALL_CFLAGS = -std=c11 $(OPT) $(WARNINGS) -fPIC -MMD -MP $(CFLAGS)
LDLIBS  = -lyaml -lglpk -lsqlite3 -lm -lpthread

ifneq ($(SANITIZE),)
BUILD   := build/san
# -O1 and line tables only (ASan's advice; stack traces keep file:line):
# half the compile time of -O2 -g, which was the costliest step of `make
# check`.  Warnings are the normal build's gate (-Werror there); here they
# are shown but do not fail, and -Wformat-truncation, whose -O1 range
# analysis flags snprintf calls that -O2 proves safe, is off.
ifeq ($(origin OPT),file)
OPT     := -O1 -g1
endif
ifeq ($(origin TEST_OPT),undefined)
TEST_OPT := -O0 -g1
endif
WARNINGS := $(filter-out -Werror,$(WARNINGS)) -Wno-format-truncation
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_PLUGIN_LDFLAGS := $(LDFLAGS)
LDFLAGS += -fsanitize=$(SANITIZE)
ifneq ($(findstring address,$(SANITIZE)),)
# The programs start a process per CLI check and per unit test (Criterion),
# thousands in `make check`, where ASan's start and LeakSanitizer's exit
# scan cost 15 times the work (docs/testing.md "Speed"): the same runtimes
# linked statically and the program not position-independent halve that
# (no relocations of the program and of 2 shared runtimes at each start,
# no scan of libubsan.so's 6 MB of zeros at each exit).  Same checks:
# static or shared, it is the same runtime; the program exports the
# runtime's entry points to the plugins, which are linked without a
# runtime of their own (a second, shared ASan would refuse to start).
SAN_EXE_LDFLAGS := -no-pie -static-libasan \
    $(if $(findstring undefined,$(SANITIZE)),-static-libubsan) \
    -Wl,--export-dynamic-symbol='__asan_*' -Wl,--export-dynamic-symbol='__ubsan_*' \
    -Wl,--export-dynamic-symbol='__sanitizer_*' -Wl,--export-dynamic-symbol='__lsan_*'
$(BUILD)/baechi $(BUILD)/unit-tests: private LDFLAGS += $(SAN_EXE_LDFLAGS)
$(BUILD)/baechi-clp.so $(BUILD)/baechi-mpi.so: private LDFLAGS := $(SAN_PLUGIN_LDFLAGS)
endif
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
# The libraries, bottom up (README "Layout"); cli/ is the program over them.
LIB_SRC := $(wildcard core/*.c sim/*.c placers/*.c workloads/*.c calibrate/*.c results/*.c api/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/presets.o
MAIN_SRC := $(wildcard cli/*.c)
MAIN_OBJ := $(MAIN_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/unit/*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
# The unit tests' own code is not what they test, and Criterion's assertion
# macros made its objects 45 % of the normal build's compile time and half
# of the sanitized one's: they are compiled at -O1 -g in the normal build
# (the flow analysis behind -Werror's maybe-uninitialized stays), at -O0
# -g1 in the sanitized one (every access still checked), half the time or
# less; the library keeps OPT.  The bound tests' exhaustive searches
# (exact_sched.c, bound_cases.c) keep OPT too: their run time is theirs.
# TEST_OPT= (empty): OPT for every object.
TEST_OPT ?= -O1 -g
ifneq ($(TEST_OPT),)
$(filter-out %/exact_sched.o %/bound_cases.o,$(TEST_OBJ)): private OPT = $(TEST_OPT)
endif
PRESETS := $(sort $(wildcard data/clusters/*.yaml))

# Each part may add sources, libraries and targets in its own fragment
# (mk/<part>.mk) instead of editing this file: LIB_OBJ += ..., LDLIBS += ...
-include $(sort $(wildcard mk/*.mk))
.DEFAULT_GOAL := all

BIN := $(BUILD)/baechi
LIB := $(BUILD)/libbaechi.a
# The shared library's soname carries the API's major version (include/baechi.h).
SO_MAJOR := $(shell sed -n 's/^\#define BAECHI_API_MAJOR *\([0-9]*\).*/\1/p' include/baechi.h)
SO_MINOR := $(shell sed -n 's/^\#define BAECHI_API_MINOR *\([0-9]*\).*/\1/p' include/baechi.h)
SONAME := libbaechi.so.$(SO_MAJOR)
SO := $(BUILD)/libbaechi.so
UNIT := $(BUILD)/unit-tests

.PHONY: all lib mutate doc-numbers check check-quick check-build check-build-plain check-build-san \
        check-build-fuzz check-build-cuda test unit cli demo bench install deps clean \
        format cuda validate validation-doc

all: $(BIN) baechi $(SO)

lib: $(LIB) $(SO)

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

# Only the names of include/baechi.h are exported (api/baechi.map).
$(SO): $(LIB_OBJ) api/baechi.map
	$(QUIET_LINK)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
		-Wl,--version-script,api/baechi.map -o $@ $(LIB_OBJ) $(LDLIBS)

# tests/unit/criterion_certs.c takes the place of mbed TLS's certificate
# loader, which libgit2 (Criterion's) runs in every test's process
$(UNIT): private LDFLAGS += -Wl,--export-dynamic-symbol=mbedtls_x509_crt_parse_file
$(UNIT): $(TEST_OBJ) $(LIB)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

deps:
	@sh scripts/install-deps.sh

# The tests: unit (Criterion) and CLI (shell), then both again sanitized,
# then a fuzz smoke round (mk/fuzz.mk; a failed fuzz build shows up there).
# The three builds share CHECK_JOBS job slots (the sub-makes inherit them);
# the fuzz build and `cuda` wait for the normal one, whose build/gen/ they
# read.  scripts/run-tests.sh runs the tests CHECK_JOBS at a time and prints
# the closing line "N passed, N failed, N skipped".
CHECK_JOBS ?= 2
# each build's CPU and wall seconds, for the closing report (run-tests.sh --time)
CHECK_CPU := build/.check-build-cpu
CHECK_TIME = sh scripts/run-tests.sh --time $(CHECK_CPU)

check: deps
	@mkdir -p build && rm -f $(CHECK_CPU)
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-build
	@CHECK_JOBS=$(CHECK_JOBS) CHECK_BUILD_CPU=$(CHECK_CPU) sh scripts/run-tests.sh

check-quick:
	@mkdir -p build && rm -f $(CHECK_CPU)
	@$(CHECK_TIME) "normal build" $(MAKE) --no-print-directory -j$(CHECK_JOBS) all $(UNIT)
	@CHECK_JOBS=$(CHECK_JOBS) CHECK_BUILD_CPU=$(CHECK_CPU) sh scripts/run-tests.sh --quick

check-build: check-build-plain check-build-san check-build-fuzz check-build-cuda

check-build-plain:
	@$(CHECK_TIME) "normal build" $(MAKE) --no-print-directory all $(UNIT)

check-build-san:
	@$(CHECK_TIME) "sanitized build" $(MAKE) --no-print-directory SANITIZE=address,undefined \
		build/san/baechi build/san/unit-tests san-probe

check-build-fuzz: check-build-plain
	-@$(CHECK_TIME) "fuzz build" $(MAKE) --no-print-directory fuzz-build

check-build-cuda: check-build-plain
	@$(CHECK_TIME) "cuda build" $(MAKE) --no-print-directory cuda

unit: $(UNIT)
	$(UNIT)

cli: $(BIN)
	@sh tests/cli/run.sh $(BIN)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

# Each mutation of tests/mutations.txt, applied to a scratch copy, must make
# its named test fail (scripts/mutate.sh); outside `make check`: a rebuild each.
mutate:
	@sh scripts/mutate.sh $(MUTATIONS)

bench: all
	@./baechi bench sim
	@./baechi bench scale
	@./baechi bench
	@python3 scripts/bench-symmetry.py ./baechi
# issue 32 item 4: m-SCT on the 10k-op layered graph on paper-4gpu-pcie
	@sh scripts/lp-probe/bench-sct-10k.sh

# Every row of docs/validation.md within its tolerance (exit 1 names the others).
validate: $(BIN)
	@$(BIN) validate

# Every number the docs quote between "<!-- doc-numbers NAME: begin/end -->"
# lines, rewritten by rerunning the commands each doc shows (scripts/doc-
# numbers.sh; t830-t833 check the cheap blocks); about a minute of CPU.
doc-numbers: $(BIN)
	@sh scripts/doc-numbers.sh

validation-doc: $(BIN)
	@$(BIN) validate --format markdown > docs/validation.md.tmp; rc=$$?; \
	 if [ $$rc -le 1 ]; then mv docs/validation.md.tmp docs/validation.md; \
	 else rm -f docs/validation.md.tmp; exit $$rc; fi

# DESTDIR stages an install (tests/cli/t020 builds examples/ against one).
LIBDIR ?= $(PREFIX)/lib
# Debian's python3 reads /usr/lib/python3/dist-packages and, elsewhere,
# <prefix>/lib/python3.X/dist-packages.
PYVER := $(shell $(PYTHON) -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHON_SITE ?= $(if $(filter /usr,$(PREFIX)),$(LIBDIR)/python3/dist-packages,$(LIBDIR)/$(PYVER)/dist-packages)
# NO_BUILD=1 installs the build as it is and rebuilds nothing: the install
# tests (t020, t025) stage it so while other tests run $(BIN), which a relink
# (after a changed `git describe --dirty`) left "Permission denied".
install: $(if $(NO_BUILD),,$(BIN) $(LIB) $(SO))
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/baechi/clusters \
		$(DESTDIR)$(PREFIX)/share/baechi/workloads/gnmt_v2 $(DESTDIR)$(PREFIX)/share/baechi/sweeps \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PYTHON_SITE)/baechi $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/baechi
	install -m 644 baechi.1 $(DESTDIR)$(PREFIX)/share/man/man1/baechi.1
	install -m 644 $(PRESETS) $(DESTDIR)$(PREFIX)/share/baechi/clusters/
	install -m 644 data/workloads/gnmt_v2/* $(DESTDIR)$(PREFIX)/share/baechi/workloads/gnmt_v2/
	install -m 644 data/sweeps/*.yaml $(DESTDIR)$(PREFIX)/share/baechi/sweeps/
	install -m 644 include/baechi.h $(DESTDIR)$(PREFIX)/include/baechi.h
	install -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libbaechi.a
	install -m 755 $(SO) $(DESTDIR)$(LIBDIR)/$(SONAME).$(SO_MINOR).0
	ln -sf $(SONAME).$(SO_MINOR).0 $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libbaechi.so
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@VERSION@|$(SO_MAJOR).$(SO_MINOR)|' \
		-e 's|@LIBS@|$(LDLIBS)|' api/baechi.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/baechi.pc
	install -m 644 python/baechi/*.py $(DESTDIR)$(PYTHON_SITE)/baechi/
	echo 'LIBRARY = "$(LIBDIR)/$(SONAME)"' > $(DESTDIR)$(PYTHON_SITE)/baechi/_installed.py

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build baechi

-include $(LIB_OBJ:.o=.d) $(MAIN_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
