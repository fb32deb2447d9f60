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
#
# baechi-cuda is built to be carried to a GPU machine that has the NVIDIA
# driver but not our Debian -dev libraries (the lent GPU machines): the
# libraries that have a static archive (libyaml.a, libglpk.a and its
# SuiteSparse/GMP/zlib/ltdl, libsqlite3.a, libjansson.a, libprotobuf-c.a) are
# linked in, with the static CUDA runtime; cuBLAS is opened at run time
# (dlopen, calibrate/bench_cuda.cu), and `sweep --mpi` is left out
# (results/sweep_mpi.c compiled without HAVE_MPI is linked first).  It needs
# glibc >= 2.34, libstdc++, libgcc_s and the driver's libcuda.so, nothing
# else (tests/cli/t610 checks with ldd).  libstdc++ stays shared: Debian 12's
# static one calls arc4random, which would raise the glibc floor to 2.36.

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
CUDA_DEFS := -DHAVE_CUDA -DBAECHI_CUDA_LIBDIR='"$(CUDA_LIBDIR)"'
CUDA_OBJ += $(CUDA_BUILD)/results/sweep_mpi.o
# a library's archive where there is one (an absolute path from -print-file-name), else -l
static_or_dyn = $(foreach l,$(1),$(if $(filter /%,$(shell $(CC) -print-file-name=lib$(l).a)),$(shell $(CC) -print-file-name=lib$(l).a),-l$(l)))
CUDA_STATIC_LIBS := $(call static_or_dyn,yaml glpk colamd amd suitesparseconfig gmp z ltdl \
                    sqlite3 jansson protobuf-c)
CUDA_LIBS := $(CUDA_STATIC_LIBS) -L$(CUDA_LIBDIR) -lcudart_static -lstdc++ \
             -lm -lpthread -ldl -lrt

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

$(CUDA_BUILD)/results/sweep_mpi.o: results/sweep_mpi.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(CUDA_BUILD)/calibrate/%.o: calibrate/%.cu calibrate/bench.h calibrate/fit.h core/err.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(NVCC) -I. $(CUDA_DEFS) $(NVCCFLAGS) $(CUDA_ARCH) -c -o $@ $<

$(CUDA_BUILD)/calibrate/bench.o: calibrate/bench.c calibrate/bench.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(CUDA_DEFS) $(ALL_CFLAGS) -c -o $@ $<

$(CUDA_BIN): $(MAIN_OBJ) $(CUDA_OBJ) $(BUILD)/libbaechi.a
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $(MAIN_OBJ) $(CUDA_OBJ) $(BUILD)/libbaechi.a $(CUDA_LIBS)
endif

.PHONY: check-cuda
.DEFAULT_GOAL := $(_calibrate_goal)
