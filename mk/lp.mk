# mk/lp.mk - COIN-OR CLP, the second LP solver (placers/lp_clp.cpp, issue
# 22): a C++ shim compiled with $(CXX), linked with -lClp when pkg-config
# finds clp (coinor-libclp-dev, scripts/install-deps.sh); otherwise the
# same file compiles to a stub and `--lp-solver auto` stays with GLPK.
# The CUDA and fuzz builds take the stub (no CLP: their link lines list
# only static or sanitized libraries).

CXX ?= g++
HAVE_CLP := $(shell pkg-config --exists clp 2>/dev/null && echo 1)
LP_CLP_OBJ := $(BUILD)/placers/lp_clp.o
LIB_OBJ += $(LP_CLP_OBJ)
ALL_CXXFLAGS = -std=c++17 $(filter-out -std=c11 -Wstrict-prototypes -Wmissing-prototypes \
               -Wold-style-definition,$(ALL_CFLAGS))
ifeq ($(HAVE_CLP),1)
LP_CLP_CPPFLAGS := -DHAVE_CLP $(shell pkg-config --cflags clp)
LDLIBS += -lClp -lCoinUtils -lstdc++
else
LDLIBS += -lstdc++
endif

$(BUILD)/placers/%.o: placers/%.cpp
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CXX) $(CPPFLAGS) $(LP_CLP_CPPFLAGS) $(ALL_CXXFLAGS) -c -o $@ $<

# the stub for the CUDA binary (linked before libbaechi.a, so the archive's
# CLP object is never pulled in) and the fuzz build
CUDA_OBJ += $(CUDA_BUILD)/placers/lp_clp.o
$(CUDA_BIN): $(CUDA_BUILD)/placers/lp_clp.o
$(CUDA_BUILD)/placers/lp_clp.o: placers/lp_clp.cpp placers/lp_clp.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CXX) $(CPPFLAGS) $(ALL_CXXFLAGS) -c -o $@ $<

FUZZ_CXX ?= clang++
FUZZ_LIB_OBJ += build/fuzz/placers/lp_clp.o
$(FUZZ_BINS) $(FUZZ_REPLAYS): build/fuzz/placers/lp_clp.o
build/fuzz/placers/lp_clp.o: placers/lp_clp.cpp placers/lp_clp.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CXX) $(FUZZ_CPPFLAGS) -std=c++17 \
		$(filter-out -std=c11 -Wstrict-prototypes -Wmissing-prototypes -Wold-style-definition,$(FUZZ_CFLAGS)) \
		-fsanitize=fuzzer-no-link -c -o $@ $<
