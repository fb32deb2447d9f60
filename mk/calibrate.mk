# mk/calibrate.mk - calibrate/ (issue 6): libjansson for profile import, and
# the optional CUDA backend.
#
#   make cuda        builds $(BUILD)/baechi-cuda: the same program with the cuda
#                    backend (HAVE_CUDA), when nvcc exists; otherwise says so.
#   make check-cuda  builds it and runs the no-GPU / GPU smoke test with it
#                    (tests/cli/t610; about 15 s, most of it nvcc).
#
# The normal build never needs nvcc: calibrate/bench.c is compiled a second
# time with -DHAVE_CUDA for the CUDA binary, and calibrate/*.cu only there.

LDLIBS += -ljansson

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIBDIR ?= $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))
# sm_75 is the oldest CUDA 13 supports; PTX for compute_90 lets newer GPUs JIT.
CUDA_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_90,code=[sm_90,compute_90]
NVCCFLAGS ?= -O2 -std=c++17
CUDA_BUILD := $(BUILD)/cuda
CUDA_BIN := $(BUILD)/baechi-cuda
CUDA_CU := $(wildcard calibrate/*.cu)
CUDA_OBJ := $(CUDA_CU:%.cu=$(CUDA_BUILD)/%.o) $(CUDA_BUILD)/calibrate/bench.o
HAVE_CUBLAS := $(if $(wildcard $(CUDA_LIBDIR)/libcublas.so),1,)
CUDA_DEFS := -DHAVE_CUDA $(if $(HAVE_CUBLAS),-DHAVE_CUBLAS,)
CUDA_LIBS := -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart $(if $(HAVE_CUBLAS),-lcublas,) \
             -lstdc++ -ldl -lrt

# Rules here must not become the default goal (this file is read before `all`).
_calibrate_goal := $(.DEFAULT_GOAL)

ifeq ($(NVCC),)
cuda check-cuda:
	@echo "make $@: nvcc not found; the CUDA backend is not built (the cpu backend is)"
else
cuda: $(CUDA_BIN)

check-cuda: $(CUDA_BIN)
	@d=$$(mktemp -d) && BAECHI=$(abspath $(CUDA_BIN)) TOP=$(CURDIR) TMPDIR_TEST=$$d \
		sh tests/cli/t610-calibrate-cuda-nogpu.sh; rc=$$?; rm -rf $$d; \
		if [ $$rc -eq 0 ]; then echo "check-cuda: ok"; else echo "check-cuda: FAILED"; exit 1; fi

$(CUDA_BUILD)/calibrate/%.o: calibrate/%.cu calibrate/bench.h calibrate/fit.h sim/err.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(NVCC) -I. $(CUDA_DEFS) $(NVCCFLAGS) $(CUDA_ARCH) -c -o $@ $<

$(CUDA_BUILD)/calibrate/bench.o: calibrate/bench.c calibrate/bench.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(CUDA_DEFS) $(ALL_CFLAGS) -c -o $@ $<

$(CUDA_BIN): $(MAIN_OBJ) $(CUDA_OBJ) $(BUILD)/libbaechi.a
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(CUDA_OBJ) $(BUILD)/libbaechi.a $(LDLIBS) \
		$(CUDA_LIBS)
endif

.PHONY: check-cuda
.DEFAULT_GOAL := $(_calibrate_goal)
