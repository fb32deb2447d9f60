"""baechi: device placement and simulation of ML training graphs, from Python.

A thin layer over libbaechi (the C library of the `baechi` program, public
header include/baechi.h) through ctypes from the standard library: the numbers
are those of `baechi run --json`, computed by the same code.

    import baechi
    w = baechi.load_workload("gnmt_v2_b128_fwd.yaml")
    c = baechi.cluster("paper-4gpu-pcie")
    p = baechi.place(w, c, placer="m-etf", memory_fraction=0.5)
    r = baechi.simulate(w, c, p)            # model="timed" (default) or "baechi"
    r.step_us, r.oom, r.peak_bytes, p.device_of["some/op"]

Failures raise baechi.Error (its .code is the library's code, its message the
library's, with file:line where it applies); an infeasible placement raises
baechi.Infeasible, a subclass.  Running out of memory in a simulation is a
result (SimResult.oom), not an exception.

The library is found, in this order: the BAECHI_LIB environment variable, the
path recorded by `make install`, build/libbaechi.so of a source tree this
module sits in, then the system's loader (libbaechi.so.1).

Part of baechi-c; see README.md for the licence.
"""

import ctypes
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

__all__ = [
    "Error", "Infeasible", "Workload", "Cluster", "Placement", "SimResult",
    "load_workload", "parse_workload", "cluster", "parse_cluster", "presets", "placers",
    "place", "load_placement", "parse_placement", "BaechiWarning", "simulate", "store", "version",
]

API_MAJOR = 1

# enum baechi_code (include/baechi.h)
SUCCESS, ERR_NOMEM, ERR_INVAL, ERR_PARSE, ERR_IO, ERR_INFEASIBLE, ERR_SOLVER, ERR_UNSUPPORTED = range(8)
_CODE_NAMES = {
    ERR_NOMEM: "out of memory", ERR_INVAL: "invalid argument", ERR_PARSE: "parse error",
    ERR_IO: "i/o error", ERR_INFEASIBLE: "infeasible", ERR_SOLVER: "solver failure",
    ERR_UNSUPPORTED: "unsupported",
}


class Error(Exception):
    """A failure reported by libbaechi: .code (enum baechi_code) and the message."""

    def __init__(self, code: int, message: str):
        super().__init__(message or _CODE_NAMES.get(code, "error %d" % code))
        self.code = code


class Infeasible(Error):
    """No placement satisfies the memory limits (BAECHI_ERR_INFEASIBLE)."""


def _candidates():
    env = os.environ.get("BAECHI_LIB")
    if env:
        yield env
        return
    try:
        from . import _installed  # written by `make install`
        yield _installed.LIBRARY
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "libbaechi.so")
    yield "libbaechi.so.%d" % API_MAJOR


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: no such file" % path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("baechi: cannot load libbaechi (%s); set BAECHI_LIB" % "; ".join(errors))


_lib = _load()

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_I32 = ctypes.c_int32
_I64 = ctypes.c_int64
_PP = ctypes.POINTER(ctypes.c_void_p)


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_version = _fn("baechi_version", _S)
_errmsg = _fn("baechi_errmsg", _S)
_WARN_FN = ctypes.CFUNCTYPE(None, _S, _P)
_set_warning_handler = _fn("baechi_set_warning_handler", None, _WARN_FN, _P)
_workload_load = _fn("baechi_workload_load", ctypes.c_int, _S, _PP)
_workload_parse = _fn("baechi_workload_parse", ctypes.c_int, _S, ctypes.c_size_t, _S, _PP)
_workload_free = _fn("baechi_workload_free", None, _P)
_workload_name = _fn("baechi_workload_name", _S, _P)
_workload_n_ops = _fn("baechi_workload_n_ops", _I32, _P)
_workload_op_name = _fn("baechi_workload_op_name", _S, _P, _I32)
_workload_total = _fn("baechi_workload_total_compute_us", _I64, _P)
_workload_cp = _fn("baechi_workload_critical_path_us", _I64, _P)
_cluster_load = _fn("baechi_cluster_load", ctypes.c_int, _S, _PP)
_cluster_parse = _fn("baechi_cluster_parse", ctypes.c_int, _S, ctypes.c_size_t, _S, _PP)
_cluster_free = _fn("baechi_cluster_free", None, _P)
_cluster_presets = _fn("baechi_cluster_presets", ctypes.POINTER(_S))
_cluster_name = _fn("baechi_cluster_name", _S, _P)
_cluster_n_devices = _fn("baechi_cluster_n_devices", _I32, _P)
_cluster_device_name = _fn("baechi_cluster_device_name", _S, _P, _I32)
_cluster_device_memory = _fn("baechi_cluster_device_memory_bytes", _I64, _P, _I32)
_options_new = _fn("baechi_options_new", _P)
_options_free = _fn("baechi_options_free", None, _P)
_options_set = _fn("baechi_options_set", ctypes.c_int, _P, _S, _S)
_placers = _fn("baechi_placers", ctypes.POINTER(_S))
_place = _fn("baechi_place", ctypes.c_int, _P, _P, _S, _P, _PP)
_placement_load = _fn("baechi_placement_load", ctypes.c_int, _P, _S, _PP)
_placement_parse = _fn("baechi_placement_parse", ctypes.c_int, _P, _S, ctypes.c_size_t, _S, _PP)
_placement_write = _fn("baechi_placement_write", ctypes.c_int, _P, _P, _S)
_placement_free = _fn("baechi_placement_free", None, _P)
_placement_n_ops = _fn("baechi_placement_n_ops", _I32, _P)
_placement_device_of = _fn("baechi_placement_device_of", _I32, _P, _I32)
_placement_placer = _fn("baechi_placement_placer", _S, _P)
_placement_time_ms = _fn("baechi_placement_time_ms", ctypes.c_double, _P)
_placement_estimate_us = _fn("baechi_placement_estimate_us", _I64, _P)
_simulate = _fn("baechi_simulate", ctypes.c_int, _P, _P, _P, _S, _P, _PP)
_result_free = _fn("baechi_result_free", None, _P)
_result_model = _fn("baechi_result_model", _S, _P)
_result_step_us = _fn("baechi_result_step_us", _I64, _P)
_result_oom = _fn("baechi_result_oom", _I32, _P)
_result_n_devices = _fn("baechi_result_n_devices", _I32, _P)
_result_lower_bound_us = _fn("baechi_result_lower_bound_us", _I64, _P)
_result_critical_path_us = _fn("baechi_result_critical_path_us", _I64, _P)
_result_total_compute_us = _fn("baechi_result_total_compute_us", _I64, _P)
_result_peak = _fn("baechi_result_peak_bytes", _I64, _P, _I32)
_result_limit = _fn("baechi_result_limit_bytes", _I64, _P, _I32)
_result_final = _fn("baechi_result_final_bytes", _I64, _P, _I32)
_result_busy = _fn("baechi_result_busy_us", _I64, _P, _I32)
_result_n_ops = _fn("baechi_result_n_ops", _I32, _P, _I32)
_result_device_oom = _fn("baechi_result_device_oom", _I32, _P, _I32)
_result_link_bytes = _fn("baechi_result_link_bytes", _I64, _P, _I32, _I32)
_result_link_transfers = _fn("baechi_result_link_transfers", _I64, _P, _I32, _I32)
_result_write_trace = _fn("baechi_result_write_trace", ctypes.c_int, _P, _P, _P, _S)
_db_store = _fn("baechi_db_store", ctypes.c_int, _S, _P, _P, _P, _P)


def _b(s):
    return None if s is None else os.fsencode(s) if isinstance(s, os.PathLike) else s.encode()


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _check(rc):
    if rc != SUCCESS:
        msg = _s(_errmsg())
        raise (Infeasible if rc == ERR_INFEASIBLE else Error)(rc, msg)


def _new(fn, *args):
    """Calls a constructor of the C API (its last argument receives the
    handle) and returns the handle, or raises the library's error."""
    out = ctypes.c_void_p()
    _check(fn(*args, ctypes.byref(out)))
    return out.value


def _strings(arr):
    out, i = [], 0
    while arr[i] is not None:
        out.append(_s(arr[i]))
        i += 1
    return out


def version() -> str:
    """The library's API version and build ("1.0 (<git describe>)")."""
    return _s(_version())


# Warnings of the library become Python warnings (category BaechiWarning).
class BaechiWarning(UserWarning):
    pass


@_WARN_FN
def _on_warning(msg, _ctx):
    import warnings
    warnings.warn(_s(msg), BaechiWarning, stacklevel=2)


_set_warning_handler(_on_warning, None)


class _Handle:
    _free = None

    def __init__(self, ptr):
        self._ptr = ptr

    def close(self):
        if self._ptr:
            type(self)._free(self._ptr)
            self._ptr = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    @property
    def _as_parameter_(self):
        if not self._ptr:
            raise ValueError("%s is closed" % type(self).__name__)
        return self._ptr


class Workload(_Handle):
    """A workload file and its op graph (dangling ops pruned)."""
    _free = staticmethod(_workload_free)

    def __init__(self, ptr, path=None):
        super().__init__(ptr)
        self.path = path
        self.name = _s(_workload_name(self))
        self.n_ops = _workload_n_ops(self)
        self.total_compute_us = _workload_total(self)
        self.critical_path_us = _workload_cp(self)

    @property
    def op_names(self) -> List[str]:
        return [_s(_workload_op_name(self, i)) for i in range(self.n_ops)]

    def __repr__(self):
        return "Workload(%r, %d ops)" % (self.name, self.n_ops)


class Cluster(_Handle):
    """Devices with memory limits and the communication model."""
    _free = staticmethod(_cluster_free)

    def __init__(self, ptr, spec=None):
        super().__init__(ptr)
        self.spec = spec
        self.name = _s(_cluster_name(self))
        n = _cluster_n_devices(self)
        self.devices = [_s(_cluster_device_name(self, d)) for d in range(n)]
        self.memory_bytes = [_cluster_device_memory(self, d) for d in range(n)]

    @property
    def n_devices(self) -> int:
        return len(self.devices)

    def __repr__(self):
        return "Cluster(%r, %d devices)" % (self.name, self.n_devices)


class _Options(_Handle):
    _free = staticmethod(_options_free)

    def __init__(self, opts: Dict[str, object]):
        ptr = _options_new()
        if not ptr:
            raise MemoryError("baechi: out of memory")
        super().__init__(ptr)
        for k, v in opts.items():
            if v is None:
                continue
            if isinstance(v, bool):
                v = "true" if v else "false"
            _check(_options_set(self, _b(k), _b(str(v))))


class Placement(_Handle):
    """op -> device, with who made it and the placer's statistics."""
    _free = staticmethod(_placement_free)

    def __init__(self, ptr, workload: Workload, options=None):
        super().__init__(ptr)
        self.options = dict(options or {})
        self.placer = _s(_placement_placer(self))
        self.placement_ms = _placement_time_ms(self)
        est = _placement_estimate_us(self)
        self.estimate_us = None if est < 0 else est
        n = _placement_n_ops(self)
        self.devices = [_placement_device_of(self, i) for i in range(n)]
        names = workload.op_names
        self.device_of = dict(zip(names, self.devices))

    def write(self, workload: Workload, path) -> None:
        """Writes the placement file (YAML) for `workload`."""
        _check(_placement_write(self, workload, _b(os.fspath(path))))

    def __repr__(self):
        return "Placement(%r, %d ops)" % (self.placer, len(self.devices))


@dataclass
class Device:
    id: int
    name: str
    n_ops: int
    busy_us: int
    peak_bytes: int
    limit_bytes: int
    final_bytes: int
    oom: bool


@dataclass
class SimResult:
    """The metrics of one simulated step (the fields of `baechi run --json`)."""
    model: str
    step_us: int
    oom: bool
    lower_bound_us: int
    critical_path_us: int
    total_compute_us: int
    devices: List[Device] = field(default_factory=list)
    link_bytes: List[List[int]] = field(default_factory=list)
    link_transfers: List[List[int]] = field(default_factory=list)
    trace_written: Optional[str] = None

    @property
    def peak_bytes(self) -> List[int]:
        return [d.peak_bytes for d in self.devices]

    @property
    def bound_ratio(self) -> float:
        """Step time over the lower bound (1.0 is optimal)."""
        return self.step_us / self.lower_bound_us if self.lower_bound_us else float("nan")

    def as_dict(self) -> dict:
        from dataclasses import asdict
        return asdict(self)


def load_workload(path) -> Workload:
    """Reads a workload file (YAML)."""
    return Workload(_new(_workload_load, _b(os.fspath(path))), os.fspath(path))


def parse_workload(text: str, name: str = "<string>") -> Workload:
    """A workload from its YAML text."""
    data = text.encode()
    return Workload(_new(_workload_parse, data, len(data), _b(name)))


def cluster(spec) -> Cluster:
    """A cluster file or a preset name ("paper-4gpu-pcie", "dgx-h100-8")."""
    return Cluster(_new(_cluster_load, _b(os.fspath(spec))), os.fspath(spec))


def parse_cluster(text: str, name: str = "<string>") -> Cluster:
    """A cluster from its YAML text."""
    data = text.encode()
    return Cluster(_new(_cluster_parse, data, len(data), _b(name)))


def presets() -> List[str]:
    """The names of the built-in cluster presets."""
    return _strings(_cluster_presets())


def placers() -> List[str]:
    """The names of the placers (as `baechi place --list`)."""
    return _strings(_placers())


def place(workload: Workload, cluster: Cluster, placer: str = "m-etf", **options) -> Placement:
    """Runs a placer; options as `baechi place` (memory_fraction=0.5, fusion=True,
    grouper="coplace", devices=2, comm_factor, compute_factor, threshold, seed, ...).
    Raises Infeasible when no placement fits."""
    opts = _Options(options)
    out = ctypes.c_void_p()
    try:
        _check(_place(workload, cluster, _b(placer), opts, ctypes.byref(out)))
    finally:
        opts.close()
    return Placement(out.value, workload, options)


def load_placement(workload: Workload, path) -> Placement:
    """Reads a placement file for `workload`."""
    return Placement(_new(_placement_load, workload, _b(os.fspath(path))), workload)


def parse_placement(workload: Workload, text: str, name: str = "<string>") -> Placement:
    """A placement from its YAML text, for `workload`."""
    data = text.encode()
    return Placement(_new(_placement_parse, workload, data, len(data), _b(name)), workload)


def simulate(workload: Workload, cluster: Cluster, placement: Placement, model: str = "timed",
             trace=None, **options) -> SimResult:
    """Simulates one step.  The world options (memory_fraction, devices,
    comm_factor, compute_factor) default to those the placement was made with.
    trace=PATH writes a Chrome trace (Perfetto) of the simulation."""
    opts_d = dict(placement.options)
    opts_d.update(options)
    if trace is not None:
        opts_d["trace"] = True
    opts = _Options(opts_d)
    out = ctypes.c_void_p()
    try:
        _check(_simulate(workload, cluster, placement, _b(model), opts, ctypes.byref(out)))
    finally:
        opts.close()
    r = out.value
    try:
        n = _result_n_devices(r)
        res = SimResult(
            model=_s(_result_model(r)), step_us=_result_step_us(r), oom=_result_oom(r) > 0,
            lower_bound_us=_result_lower_bound_us(r), critical_path_us=_result_critical_path_us(r),
            total_compute_us=_result_total_compute_us(r),
            devices=[Device(d, cluster.devices[d] if d < cluster.n_devices else str(d),
                            _result_n_ops(r, d), _result_busy(r, d), _result_peak(r, d),
                            _result_limit(r, d), _result_final(r, d), _result_device_oom(r, d) > 0)
                     for d in range(n)],
            link_bytes=[[_result_link_bytes(r, s, d) for d in range(n)] for s in range(n)],
            link_transfers=[[_result_link_transfers(r, s, d) for d in range(n)] for s in range(n)])
        if trace is not None:
            _check(_result_write_trace(r, workload, cluster, _b(os.fspath(trace))))
            res.trace_written = os.fspath(trace)
        return res
    finally:
        _result_free(r)


def store(db_path, workload: Workload, cluster: Cluster, placement: Placement, **options) -> None:
    """Simulates with both models and stores the two runs in a results database
    (as `baechi run --db`)."""
    opts_d = dict(placement.options)
    opts_d.update(options)
    opts = _Options(opts_d)
    try:
        _check(_db_store(_b(os.fspath(db_path)), workload, cluster, placement, opts))
    finally:
        opts.close()
