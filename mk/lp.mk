# mk/lp.mk - COIN-OR CLP, the second LP solver (issue 22): the plugin
# $(BUILD)/baechi-clp.so (placers/lp_clp.cpp, a C++ shim over CLP) when
# pkg-config finds clp (coinor-libclp-dev, scripts/deps/lp.txt).  The
# program and libbaechi never link it: placers/lp_clp_load.c opens it with
# dlopen when an LP goes to CLP, so no other command loads libstdc++ and
# CLP's libraries.  Without it `--lp-solver auto` stays with GLPK.

CXX ?= g++
HAVE_CLP := $(shell pkg-config --exists clp 2>/dev/null && echo 1)
LP_CLP_PLUGIN := $(BUILD)/baechi-clp.so
ALL_CXXFLAGS = -std=c++17 $(filter-out -std=c11 -Wstrict-prototypes -Wmissing-prototypes \
               -Wold-style-definition,$(ALL_CFLAGS))

_lp_goal := $(.DEFAULT_GOAL)

ifeq ($(HAVE_CLP),1)
$(BUILD)/placers/lp_clp-plugin.o: placers/lp_clp.cpp
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CXX) $(CPPFLAGS) -DHAVE_CLP $(shell pkg-config --cflags clp) $(ALL_CXXFLAGS) \
		-c -o $@ $<

$(LP_CLP_PLUGIN): $(BUILD)/placers/lp_clp-plugin.o
	$(QUIET_LINK)$(CXX) $(LDFLAGS) -shared -o $@ $< -lClp -lCoinUtils

# built with the program, the library and the unit tests (which find it beside them)
$(BUILD)/baechi $(BUILD)/libbaechi.so $(BUILD)/unit-tests: | $(LP_CLP_PLUGIN)

# Under the static UBSan runtime of the sanitized programs (Makefile,
# SAN_EXE_LDFLAGS), the plugin's C++ vptr checks call handlers that only a
# C++ program pulls in: the programs take them, and libstdc++ they need.
ifneq ($(and $(findstring address,$(SANITIZE)),$(findstring undefined,$(SANITIZE))),)
$(BUILD)/baechi $(BUILD)/unit-tests: private LDFLAGS += \
    -Wl,--undefined=__ubsan_vptr_type_cache -Wl,--undefined=__ubsan_handle_dynamic_type_cache_miss_abort
$(BUILD)/baechi $(BUILD)/unit-tests: private LDLIBS += -lstdc++
endif

# Where lp_clp_load.c looks from an installed bin/baechi or lib/libbaechi.so.
.PHONY: install-clp-plugin
install: install-clp-plugin
install-clp-plugin: $(LP_CLP_PLUGIN)
	install -d $(DESTDIR)$(PREFIX)/lib/baechi
	install -m 755 $(LP_CLP_PLUGIN) $(DESTDIR)$(PREFIX)/lib/baechi/baechi-clp.so
	install -d $(DESTDIR)$(LIBDIR)/baechi
	install -m 755 $(LP_CLP_PLUGIN) $(DESTDIR)$(LIBDIR)/baechi/baechi-clp.so

-include $(BUILD)/placers/lp_clp-plugin.d
endif

.DEFAULT_GOAL := $(_lp_goal)
