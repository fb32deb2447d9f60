# mk/workloads.mk - the ONNX importer (workloads/onnx_*.c) reads models
# with protobuf-c.  Its C code is generated at build time by protoc-c from
# the onnx.proto that Debian's libonnx-dev ships, so the schema is the
# system's and nothing generated is committed (scripts/deps/workloads.txt).

ONNX_PROTO ?= /usr/include/onnx/onnx.proto
PROTOC_C   ?= protoc-c

LIB_OBJ  += $(BUILD)/gen/onnx.pb-c.o
LDLIBS   += -lprotobuf-c
CPPFLAGS += -I$(BUILD)/gen

$(BUILD)/gen/onnx.pb-c.c: $(ONNX_PROTO)
	@mkdir -p $(dir $@)
	$(Q)$(PROTOC_C) -I$(dir $(ONNX_PROTO)) --c_out=$(BUILD)/gen $(ONNX_PROTO)

$(BUILD)/gen/onnx.pb-c.h: $(BUILD)/gen/onnx.pb-c.c ;

$(BUILD)/gen/onnx.pb-c.o: $(BUILD)/gen/onnx.pb-c.c
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# every file of the importer includes the generated header (directly or
# through onnx_shape.h)
ONNX_SRC := $(wildcard workloads/onnx_*.c)
$(ONNX_SRC:%.c=$(BUILD)/%.o): $(BUILD)/gen/onnx.pb-c.h
$(BUILD)/tests/unit/test_onnx.o: $(BUILD)/gen/onnx.pb-c.h
