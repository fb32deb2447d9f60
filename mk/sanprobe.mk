# mk/sanprobe.mk - the sanitized build's own check (tests/san/probe.c,
# tests/cli/t009): in the ASan build only, $(BUILD)/san-probe, linked as
# the sanitized programs are (the Makefile's SAN_EXE_LDFLAGS), and
# $(BUILD)/san-probe-plugin.so, linked as their plugins are.  `make check`
# builds them with build/san/baechi.

_sanprobe_goal := $(.DEFAULT_GOAL)

ifneq ($(findstring address,$(SANITIZE)),)
SAN_PROBE := $(BUILD)/san-probe $(BUILD)/san-probe-plugin.so

$(BUILD)/san-probe: private LDFLAGS += $(SAN_EXE_LDFLAGS)
$(BUILD)/san-probe: $(BUILD)/tests/san/probe.o
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ -lyaml

$(BUILD)/san-probe-plugin.so: $(BUILD)/tests/san/probe_plugin.o
	$(QUIET_LINK)$(CC) $(SAN_PLUGIN_LDFLAGS) -shared -o $@ $^

.PHONY: san-probe
san-probe: $(SAN_PROBE)

-include $(BUILD)/tests/san/probe.d $(BUILD)/tests/san/probe_plugin.d
endif

.DEFAULT_GOAL := $(_sanprobe_goal)
