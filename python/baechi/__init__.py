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

Misuse raises before anything reaches C, naming the function and argument:
TypeError for an argument of the wrong type (a handle argument must be the
module's Workload, Cluster or Placement, which only its functions make), a
str option where a number is due (devices=2.0, memory_fraction=[0.5]);
ValueError for a closed object, a NUL character in any text (a path, a
placer or model name, YAML text, an option), text that is not valid UTF-8,
and a non-finite number (memory_fraction=nan).  Option values given as str
go to the library as they are ("0.5"), which checks them as the command line
does (baechi.Error).  Objects free their C object once: at close(), at the
end of a `with` block, or when collected; they cannot be copied or pickled.
One object must not be used from two threads at once (include/baechi.h).

The library is found, in this order: the BAECHI_LIB environment variable, the
path recorded by `make install`, build/libbaechi.so of a source tree this
module sits in, then the system's loader (libbaechi.so.1).

Part of baechi-c; see README.md for the licence.
"""

import ctypes
import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

__all__ = [
    "Error", "Infeasible", "Workload", "Cluster", "Placement", "SimResult",
    "load_workload", "parse_workload", "cluster", "parse_cluster", "presets", "placers",
    "place", "load_placement", "parse_placement", "BaechiWarning", "simulate", "store", "version",
    "generate", "import_onnx", "train", "parallelize", "explain_memory", "report",
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

_S = ctypes.c_char_p
_I32 = ctypes.c_int32
_I64 = ctypes.c_int64
_INT = ctypes.c_int
_SIZE = ctypes.c_size_t


# One opaque C type per handle kind, so that ctypes itself refuses a handle of
# the wrong kind (or an int, or a str) if one ever got past the checks below.
class _CWorkload(ctypes.Structure):
    pass


class _CCluster(ctypes.Structure):
    pass


class _COptions(ctypes.Structure):
    pass


class _CPlacement(ctypes.Structure):
    pass


class _CResult(ctypes.Structure):
    pass


class _CParams(ctypes.Structure):
    pass


_WP = ctypes.POINTER(_CWorkload)
_CP = ctypes.POINTER(_CCluster)
_OP = ctypes.POINTER(_COptions)
_PP = ctypes.POINTER(_CPlacement)
_RP = ctypes.POINTER(_CResult)
_MP = ctypes.POINTER(_CParams)


def _out(ptype):
    return ctypes.POINTER(ptype)


def _fn(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_version = _fn("baechi_version", _S)
_errmsg = _fn("baechi_errmsg", _S)
_WARN_FN = ctypes.CFUNCTYPE(None, _S, ctypes.c_void_p)
_set_warning_handler = _fn("baechi_set_warning_handler", None, _WARN_FN, ctypes.c_void_p)
_workload_load = _fn("baechi_workload_load", _INT, _S, _out(_WP))
_workload_parse = _fn("baechi_workload_parse", _INT, _S, _SIZE, _S, _out(_WP))
_workload_free = _fn("baechi_workload_free", None, _WP)
_workload_name = _fn("baechi_workload_name", _S, _WP)
_workload_n_ops = _fn("baechi_workload_n_ops", _I32, _WP)
_workload_op_name = _fn("baechi_workload_op_name", _S, _WP, _I32)
_workload_total = _fn("baechi_workload_total_compute_us", _I64, _WP)
_workload_cp = _fn("baechi_workload_critical_path_us", _I64, _WP)
_cluster_load = _fn("baechi_cluster_load", _INT, _S, _out(_CP))
_cluster_parse = _fn("baechi_cluster_parse", _INT, _S, _SIZE, _S, _out(_CP))
_cluster_free = _fn("baechi_cluster_free", None, _CP)
_cluster_presets = _fn("baechi_cluster_presets", ctypes.POINTER(_S))
_cluster_name = _fn("baechi_cluster_name", _S, _CP)
_cluster_n_devices = _fn("baechi_cluster_n_devices", _I32, _CP)
_cluster_device_name = _fn("baechi_cluster_device_name", _S, _CP, _I32)
_cluster_device_memory = _fn("baechi_cluster_device_memory_bytes", _I64, _CP, _I32)
_options_new = _fn("baechi_options_new", _OP)
_options_free = _fn("baechi_options_free", None, _OP)
_options_set = _fn("baechi_options_set", _INT, _OP, _S, _S)
_placers = _fn("baechi_placers", ctypes.POINTER(_S))
_place = _fn("baechi_place", _INT, _WP, _CP, _S, _OP, _out(_PP))
_placement_load = _fn("baechi_placement_load", _INT, _WP, _S, _out(_PP))
_placement_parse = _fn("baechi_placement_parse", _INT, _WP, _S, _SIZE, _S, _out(_PP))
_placement_write = _fn("baechi_placement_write", _INT, _PP, _WP, _S)
_placement_free = _fn("baechi_placement_free", None, _PP)
_placement_n_ops = _fn("baechi_placement_n_ops", _I32, _PP)
_placement_device_of = _fn("baechi_placement_device_of", _I32, _PP, _I32)
_placement_placer = _fn("baechi_placement_placer", _S, _PP)
_placement_time_ms = _fn("baechi_placement_time_ms", ctypes.c_double, _PP)
_placement_estimate_us = _fn("baechi_placement_estimate_us", _I64, _PP)
_simulate = _fn("baechi_simulate", _INT, _WP, _CP, _PP, _S, _OP, _out(_RP))
_result_free = _fn("baechi_result_free", None, _RP)
_result_model = _fn("baechi_result_model", _S, _RP)
_result_step_us = _fn("baechi_result_step_us", _I64, _RP)
_result_oom = _fn("baechi_result_oom", _I32, _RP)
_result_n_devices = _fn("baechi_result_n_devices", _I32, _RP)
_result_lower_bound_us = _fn("baechi_result_lower_bound_us", _I64, _RP)
_result_critical_path_us = _fn("baechi_result_critical_path_us", _I64, _RP)
_result_total_compute_us = _fn("baechi_result_total_compute_us", _I64, _RP)
_result_peak = _fn("baechi_result_peak_bytes", _I64, _RP, _I32)
_result_limit = _fn("baechi_result_limit_bytes", _I64, _RP, _I32)
_result_final = _fn("baechi_result_final_bytes", _I64, _RP, _I32)
_result_busy = _fn("baechi_result_busy_us", _I64, _RP, _I32)
_result_n_ops = _fn("baechi_result_n_ops", _I32, _RP, _I32)
_result_device_oom = _fn("baechi_result_device_oom", _I32, _RP, _I32)
_result_link_bytes = _fn("baechi_result_link_bytes", _I64, _RP, _I32, _I32)
_result_link_transfers = _fn("baechi_result_link_transfers", _I64, _RP, _I32, _I32)
_result_write_trace = _fn("baechi_result_write_trace", _INT, _RP, _WP, _CP, _S)
_db_store = _fn("baechi_db_store", _INT, _S, _WP, _CP, _PP, _OP)
# API 1.1.  Text the library returns (char **) is read as a void pointer, so
# that ctypes does not copy it into a bytes object and lose the pointer
# baechi_free needs.
_TEXT = ctypes.c_void_p
_free = _fn("baechi_free", None, ctypes.c_void_p)
_params_new = _fn("baechi_params_new", _MP)
_params_free = _fn("baechi_params_free", None, _MP)
_params_set = _fn("baechi_params_set", _INT, _MP, _S, _S)
_workload_generate = _fn("baechi_workload_generate", _INT, _S, _MP, _out(_WP))
_workload_import_onnx = _fn("baechi_workload_import_onnx", _INT, _S, _MP, _out(_WP))
_workload_train = _fn("baechi_workload_train", _INT, _WP, _MP, _out(_WP))
_workload_parallelize = _fn("baechi_workload_parallelize", _INT, _WP, _MP, _out(_WP))
_explain_memory = _fn("baechi_explain_memory", _INT, _WP, _CP, _PP, _S, _OP, _out(_TEXT))
_report_json = _fn("baechi_report_json", _INT, _S, ctypes.POINTER(_S), _S, _out(_TEXT))


# ------------------------------------------------------------ arguments
#
# Everything a caller gives is checked here, before any C call: the library
# trusts its pointers (a NULL or foreign handle is a crash there), and C
# strings end at the first NUL ("m-etf\0x" would be read as "m-etf").

def _typename(value):
    return type(value).__name__


def _no_nul(data, func, arg):
    if b"\0" in data:
        raise ValueError("%s: argument '%s' contains a NUL character" % (func, arg))
    return data


def _str_arg(value, func, arg):
    """A str for C: UTF-8 (lone surrogates are a ValueError), whole."""
    if not isinstance(value, str):
        raise TypeError("%s: argument '%s' must be str, not %s" % (func, arg, _typename(value)))
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError("%s: argument '%s' is not valid text (%s)" % (func, arg, e)) from None
    return _no_nul(data, func, arg)


def _path_arg(value, func, arg):
    """A path for C: str (in the file system's encoding, UTF-8 on Linux),
    bytes, or os.PathLike."""
    try:
        path = os.fspath(value)
    except TypeError:
        raise TypeError("%s: argument '%s' must be a path (str, bytes or os.PathLike), not %s"
                        % (func, arg, _typename(value))) from None
    return _no_nul(os.fsencode(path), func, arg)


def _text_arg(value, func, arg):
    """YAML text for C: str (sent as UTF-8) or bytes."""
    if isinstance(value, str):
        return _str_arg(value, func, arg)
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError("%s: argument '%s' must be str or bytes, not %s"
                        % (func, arg, _typename(value)))
    return _no_nul(bytes(value), func, arg)


def _handle_arg(value, cls, func, arg):
    """The C handle inside `value`, which must be an open `cls`."""
    if not isinstance(value, cls):
        raise TypeError("%s: argument '%s' must be a baechi.%s (from %s), not %s"
                        % (func, arg, cls.__name__, cls._makers, _typename(value)))
    return value._handle(func, arg)


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _check(rc):
    if rc != SUCCESS:
        msg = _s(_errmsg())
        raise (Infeasible if rc == ERR_INFEASIBLE else Error)(rc, msg)


def _new(fn, ptype, *args):
    """Calls a constructor of the C API (its last argument receives a handle
    of type ptype) and returns the handle, or raises the library's error."""
    out = ptype()
    _check(fn(*args, ctypes.byref(out)))
    if not out:
        raise Error(ERR_NOMEM, "baechi: the library returned no handle")
    return out


def _strings(arr):
    out, i = [], 0
    while arr and arr[i] is not None:
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
    """Owns one handle of the C library.  Only the module's functions make
    one (_adopt); the handle is freed once, by close() or when the object
    goes, and a closed object raises ValueError where it is used."""
    _ptr = None  # the class's: close() and __del__ are safe on a half-made object
    _free = None
    _ctype = None
    _makers = ""

    def __init__(self, *args, **kwargs):
        raise TypeError("baechi.%s objects are made by %s, not constructed directly"
                        % (type(self).__name__, self._makers))

    @classmethod
    def _adopt(cls, ptr):
        self = cls.__new__(cls)
        self._ptr = ptr
        return self

    def _handle(self, func="baechi", arg="self"):
        ptr = self._ptr
        if not ptr:
            raise ValueError("%s: argument '%s' is a closed baechi.%s"
                             % (func, arg, type(self).__name__))
        if type(ptr) is not self._ctype:
            raise TypeError("%s: argument '%s': baechi.%s holds no handle of the library"
                            % (func, arg, type(self).__name__))
        return ptr

    def close(self):
        """Frees the library's object now (later uses raise ValueError)."""
        # dict.pop is one step under the GIL: two closes cannot both free.
        ptr = self.__dict__.pop("_ptr", None)
        if ptr and type(ptr) is self._ctype:
            type(self)._free(ptr)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # A copy would share the handle and free it twice.
    def __copy__(self):
        raise TypeError("baechi.%s objects cannot be copied" % type(self).__name__)

    def __deepcopy__(self, memo):
        raise TypeError("baechi.%s objects cannot be copied" % type(self).__name__)

    def __reduce_ex__(self, protocol):
        raise TypeError("cannot pickle baechi.%s objects" % type(self).__name__)


class Workload(_Handle):
    """A workload file and its op graph (dangling ops pruned)."""
    _free = staticmethod(_workload_free)
    _ctype = _WP
    _makers = ("baechi.load_workload(), baechi.parse_workload(), baechi.generate(), "
               "baechi.import_onnx() or baechi.train()")

    @classmethod
    def _adopt(cls, ptr, path=None):
        self = super()._adopt(ptr)
        h = self._handle()
        self.path = path
        self.name = _s(_workload_name(h))
        self.n_ops = _workload_n_ops(h)
        self.total_compute_us = _workload_total(h)
        self.critical_path_us = _workload_cp(h)
        return self

    @property
    def op_names(self) -> List[str]:
        h = self._handle("op_names")
        return [_s(_workload_op_name(h, i)) for i in range(self.n_ops)]

    def __repr__(self):
        return "Workload(%r, %d ops)" % (self.name, self.n_ops)


class Cluster(_Handle):
    """Devices with memory limits and the communication model."""
    _free = staticmethod(_cluster_free)
    _ctype = _CP
    _makers = "baechi.cluster() or baechi.parse_cluster()"

    @classmethod
    def _adopt(cls, ptr, spec=None):
        self = super()._adopt(ptr)
        h = self._handle()
        self.spec = spec
        self.name = _s(_cluster_name(h))
        n = _cluster_n_devices(h)
        self.devices = [_s(_cluster_device_name(h, d)) for d in range(n)]
        self.memory_bytes = [_cluster_device_memory(h, d) for d in range(n)]
        return self

    @property
    def n_devices(self) -> int:
        return len(self.devices)

    def __repr__(self):
        return "Cluster(%r, %d devices)" % (self.name, self.n_devices)


# The options of include/baechi.h and the Python types each takes (a str
# always goes to the library as it is, which parses it with the CLI's ranges).
_OPTION_KINDS = {
    "memory_fraction": float, "comm_factor": float, "compute_factor": float,
    "threshold": float, "lp_time_limit": float,
    "devices": int, "seed": int, "budget_ms": int, "lp_iteration_limit": int,
    "grouper": str, "lp_solver": str, "schedule": str, "virtual_stages": int,
    "fusion": bool, "fusion_check_disjoint": bool, "persistent_at_place": bool,
    "refine": bool, "trace": bool,
}
_KIND_NAMES = {float: "a number", int: "an int", str: "a str", bool: "a bool"}


def _option_text(func, name, value):
    """The text of option `name` = `value` for baechi_options_set."""
    kind = _OPTION_KINDS.get(name.replace("-", "_"))
    want = _KIND_NAMES.get(kind, "a str, bool or number")
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        if kind not in (bool, None):
            raise TypeError("%s: option '%s' must be %s, not bool" % (func, name, want))
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        if kind is str:
            raise TypeError("%s: option '%s' must be %s, not %s"
                            % (func, name, want, _typename(value)))
        return str(int(value))
    if isinstance(value, numbers.Real):
        if kind not in (float, None):
            raise TypeError("%s: option '%s' must be %s, not %s"
                            % (func, name, want, _typename(value)))
        f = float(value)
        if not math.isfinite(f):
            raise ValueError("%s: option '%s' must be a finite number, not %r" % (func, name, f))
        return repr(f)
    raise TypeError("%s: option '%s' must be %s, not %s" % (func, name, want, _typename(value)))


class _Options(_Handle):
    _free = staticmethod(_options_free)
    _ctype = _OP

    @classmethod
    def _adopt(cls, opts: Dict[str, object], func: str):
        # Every value is checked before the library sees any.
        texts = []
        for k, v in opts.items():
            if v is not None:
                texts.append((_str_arg(k, func, "option name"),
                              _str_arg(_option_text(func, k, v), func, k)))
        ptr = _options_new()
        if not ptr:
            raise MemoryError("baechi: out of memory")
        self = super()._adopt(ptr)
        for k, v in texts:
            _check(_options_set(ptr, k, v))
        return self


class Placement(_Handle):
    """op -> device, with who made it and the placer's statistics."""
    _free = staticmethod(_placement_free)
    _ctype = _PP
    _makers = "baechi.place(), baechi.load_placement() or baechi.parse_placement()"

    @classmethod
    def _adopt(cls, ptr, workload: Workload, options=None):
        self = super()._adopt(ptr)
        h = self._handle()
        self.options = dict(options or {})
        self.placer = _s(_placement_placer(h))
        self.placement_ms = _placement_time_ms(h)
        est = _placement_estimate_us(h)
        self.estimate_us = None if est < 0 else est
        n = _placement_n_ops(h)
        self.devices = [_placement_device_of(h, i) for i in range(n)]
        names = workload.op_names
        self.device_of = dict(zip(names, self.devices))
        return self

    def write(self, workload: Workload, path) -> None:
        """Writes the placement file (YAML) for `workload`."""
        h = self._handle("Placement.write", "self")
        wh = _handle_arg(workload, Workload, "Placement.write", "workload")
        data = _path_arg(path, "Placement.write", "path")
        # Checked here too: the library opens (truncates) the file before
        # it compares the op counts.
        n, m = _placement_n_ops(h), _workload_n_ops(wh)
        if n != m:
            raise Error(ERR_INVAL, "placement of %d ops given for workload '%s' of %d ops"
                        % (n, _s(_workload_name(wh)), m))
        _check(_placement_write(h, wh, data))

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
    data = _path_arg(path, "load_workload", "path")
    return Workload._adopt(_new(_workload_load, _WP, data), os.fspath(path))


def parse_workload(text, name: str = "<string>") -> Workload:
    """A workload from its YAML text (str or bytes)."""
    data = _text_arg(text, "parse_workload", "text")
    bname = _str_arg(name, "parse_workload", "name")
    return Workload._adopt(_new(_workload_parse, _WP, data, len(data), bname))


def cluster(spec) -> Cluster:
    """A cluster file or a preset name ("paper-4gpu-pcie", "dgx-h100-8")."""
    data = _path_arg(spec, "cluster", "spec")
    return Cluster._adopt(_new(_cluster_load, _CP, data), os.fspath(spec))


def parse_cluster(text, name: str = "<string>") -> Cluster:
    """A cluster from its YAML text (str or bytes)."""
    data = _text_arg(text, "parse_cluster", "text")
    bname = _str_arg(name, "parse_cluster", "name")
    return Cluster._adopt(_new(_cluster_parse, _CP, data, len(data), bname))


def presets() -> List[str]:
    """The names of the built-in cluster presets."""
    return _strings(_cluster_presets())


def placers() -> List[str]:
    """The names of the placers (as `baechi place --list`)."""
    return _strings(_placers())


def place(workload: Workload, cluster: Cluster, placer: str = "m-etf", **options) -> Placement:
    """Runs a placer; options as `baechi place` (memory_fraction=0.5, fusion=True,
    grouper="coplace", devices=2, comm_factor, compute_factor, threshold, seed, ...;
    schedule="gpipe"|"1f1b"|"interleaved" and virtual_stages=V override a
    micro-batched workload's pipeline schedule, as `run --schedule`, API 1.2).
    Raises Infeasible when no placement fits."""
    wh = _handle_arg(workload, Workload, "place", "workload")
    ch = _handle_arg(cluster, Cluster, "place", "cluster")
    bplacer = _str_arg(placer, "place", "placer")
    with _Options._adopt(options, "place") as opts:
        ptr = _new(_place, _PP, wh, ch, bplacer, opts._handle())
    return Placement._adopt(ptr, workload, options)


def load_placement(workload: Workload, path) -> Placement:
    """Reads a placement file for `workload`."""
    wh = _handle_arg(workload, Workload, "load_placement", "workload")
    data = _path_arg(path, "load_placement", "path")
    return Placement._adopt(_new(_placement_load, _PP, wh, data), workload)


def parse_placement(workload: Workload, text, name: str = "<string>") -> Placement:
    """A placement from its YAML text (str or bytes), for `workload`."""
    wh = _handle_arg(workload, Workload, "parse_placement", "workload")
    data = _text_arg(text, "parse_placement", "text")
    bname = _str_arg(name, "parse_placement", "name")
    return Placement._adopt(_new(_placement_parse, _PP, wh, data, len(data), bname), workload)


def simulate(workload: Workload, cluster: Cluster, placement: Placement, model: str = "timed",
             trace=None, **options) -> SimResult:
    """Simulates one step.  The world options (memory_fraction, devices,
    comm_factor, compute_factor; schedule, virtual_stages: the pipeline
    schedule of a micro-batched workload, as `run --schedule`) default to
    those the placement was made with.  trace=PATH writes a Chrome trace (Perfetto) of the simulation."""
    wh = _handle_arg(workload, Workload, "simulate", "workload")
    ch = _handle_arg(cluster, Cluster, "simulate", "cluster")
    ph = _handle_arg(placement, Placement, "simulate", "placement")
    bmodel = _str_arg(model, "simulate", "model")
    btrace = None if trace is None else _path_arg(trace, "simulate", "trace")
    opts_d = dict(placement.options)
    opts_d.update(options)
    if trace is not None:
        opts_d["trace"] = True
    with _Options._adopt(opts_d, "simulate") as opts:
        r = _new(_simulate, _RP, wh, ch, ph, bmodel, opts._handle())
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
        if btrace is not None:
            _check(_result_write_trace(r, wh, ch, btrace))
            res.trace_written = os.fspath(trace)
        return res
    finally:
        _result_free(r)


def store(db_path, workload: Workload, cluster: Cluster, placement: Placement, **options) -> None:
    """Simulates with both models and stores the two runs in a results database
    (as `baechi run --db`)."""
    data = _path_arg(db_path, "store", "db_path")
    wh = _handle_arg(workload, Workload, "store", "workload")
    ch = _handle_arg(cluster, Cluster, "store", "cluster")
    ph = _handle_arg(placement, Placement, "store", "placement")
    opts_d = dict(placement.options)
    opts_d.update(options)
    with _Options._adopt(opts_d, "store") as opts:
        _check(_db_store(data, wh, ch, ph, opts._handle()))


# ------------------------------------------------------------ making workloads (API 1.1)

# The parameters of generate(), import_onnx() and train() and the Python
# types each takes; a str goes to the library as it is (it checks it with
# the command line's ranges).  Which function takes which: _MAKER_PARAMS.
_TRAIN_PARAMS = {"optimizer": str, "bwd_factor": float, "save_all_inputs": bool,
                 "micro_batches": int, "recompute": str, "schedule": str,
                 "virtual_stages": int}
_GEN_PARAMS = dict(_TRAIN_PARAMS, batch=int, seq=int, size=str, layers=int, d_model=int,
                   heads=int, ffn=int, vocab=int, aux=bool, forward_only=bool, no_groups=bool,
                   device=str, elem_bytes=int, shape=str, ops=int, seed=int, fan_in=int,
                   width=int, depth=int, window=int, group_size=int, name=str)
_IMPORT_PARAMS = dict(_TRAIN_PARAMS, train=bool, batch=int, device=str, loss=str)
_TRAINING_PARAMS = dict(_TRAIN_PARAMS, device=str, override=bool)
_PARALLEL_PARAMS = {"dp": int, "tp": int, "pp": int, "zero": int, "bucket_mb": float,
                    "mixed_precision": bool, "pp_balance": str}
_MAKER_PARAMS = {"generate": _GEN_PARAMS, "import_onnx": _IMPORT_PARAMS,
                 "train": _TRAINING_PARAMS, "parallelize": _PARALLEL_PARAMS}


def _param_text(func, name, value):
    """The text of parameter `name` = `value` for baechi_params_set."""
    known = _MAKER_PARAMS[func]
    key = name.replace("-", "_") if isinstance(name, str) else name
    if not isinstance(name, str):
        raise TypeError("%s: parameter names must be str, not %s" % (func, _typename(name)))
    if key not in known:
        raise TypeError("%s() got an unexpected keyword argument '%s' (parameters: %s)"
                        % (func, name, ", ".join(sorted(known))))
    kind = known[key]
    want = _KIND_NAMES[kind]
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        if kind is not bool:
            raise TypeError("%s: parameter '%s' must be %s, not bool" % (func, name, want))
        return "true" if value else "false"
    if isinstance(value, numbers.Integral) and kind in (int, float):
        return str(int(value))
    if isinstance(value, numbers.Real) and kind is float:
        f = float(value)
        if not math.isfinite(f):
            raise ValueError("%s: parameter '%s' must be a finite number, not %r" % (func, name, f))
        return repr(f)
    raise TypeError("%s: parameter '%s' must be %s, not %s" % (func, name, want, _typename(value)))


class _Params(_Handle):
    _free = staticmethod(_params_free)
    _ctype = _MP

    @classmethod
    def _adopt(cls, params: Dict[str, object], func: str):
        # Every value is checked before the library sees any; None = default.
        texts = [(_str_arg(k, func, "parameter name"), _str_arg(_param_text(func, k, v), func, k))
                 for k, v in params.items() if v is not None]
        ptr = _params_new()
        if not ptr:
            raise MemoryError("baechi: out of memory")
        self = super()._adopt(ptr)
        for k, v in texts:
            _check(_params_set(ptr, k, v))
        return self


def generate(model: str, **params) -> Workload:
    """A generated workload, as `baechi workload gen MODEL` writes it.

    model: "inception-v3", "gnmt", "transformer", "gpt" or "synthetic".
    params (the options of `workload gen` with '_' for '-'; None = default):
    batch, seq, size, layers, d_model, heads, ffn, vocab, elem_bytes (int
    except size); aux, forward_only, no_groups (bool); device (str, or
    "none"); optimizer (str), bwd_factor (number), save_all_inputs (bool),
    micro_batches (int), recompute, schedule (str), virtual_stages (int);
    for synthetic only: shape (str), ops, seed, fan_in,
    width, depth, window, group_size (int); name (str): the workload's name."""
    bmodel = _str_arg(model, "generate", "model")
    with _Params._adopt(params, "generate") as p:
        ptr = _new(_workload_generate, _WP, bmodel, p._handle())
    return Workload._adopt(ptr)


def import_onnx(path, train: bool = False, batch: Optional[int] = None,
                micro_batches: Optional[int] = None, optimizer: Optional[str] = None,
                device: Optional[str] = None, bwd_factor: Optional[float] = None,
                save_all_inputs: Optional[bool] = None, recompute: Optional[str] = None,
                schedule: Optional[str] = None,
                virtual_stages: Optional[int] = None, loss: Optional[str] = None) -> Workload:
    """An ONNX model as a workload, as `baechi workload import PATH` writes it:
    train=True adds backward and update ops (then loss ("cross-entropy",
    "mse", "none"; default: the rule of docs/onnx-import.md), micro_batches, optimizer,
    bwd_factor, save_all_inputs, recompute ("none", "full", "selective"),
    schedule ("gpipe", "1f1b", "interleaved") and virtual_stages apply); batch scales activations and FLOPs;
    device: the cost model (default "v100"; "none": untimed)."""
    data = _path_arg(path, "import_onnx", "path")
    params = {"train": train, "batch": batch, "micro_batches": micro_batches,
              "optimizer": optimizer, "device": device, "bwd_factor": bwd_factor,
              "save_all_inputs": save_all_inputs, "recompute": recompute,
              "schedule": schedule, "virtual_stages": virtual_stages, "loss": loss}
    with _Params._adopt(params, "import_onnx") as p:
        ptr = _new(_workload_import_onnx, _WP, data, p._handle())
    return Workload._adopt(ptr, os.fspath(path))


def train(workload: Workload, **params) -> Workload:
    """The training graph of a forward workload, as `baechi workload train`:
    optimizer (str), bwd_factor (number), save_all_inputs (bool),
    micro_batches (int), recompute, schedule (str), virtual_stages (int),
    device (str; default the workload's reference
    device when a preset, else "v100"; "none": untimed), override (bool)."""
    wh = _handle_arg(workload, Workload, "train", "workload")
    with _Params._adopt(params, "train") as p:
        ptr = _new(_workload_train, _WP, wh, p._handle())
    return Workload._adopt(ptr)


def parallelize(workload: Workload, **params) -> Workload:
    """The step of a training workload over dp x tp x pp devices, as `baechi
    workload parallelize` (docs/parallelism.md): dp, tp, pp (int, default
    1), zero (int 0..3), bucket_mb (number, default 25), mixed_precision
    (bool), pp_balance ("layers" or "time").  Every op of the result has its rank's device."""
    wh = _handle_arg(workload, Workload, "parallelize", "workload")
    with _Params._adopt(params, "parallelize") as p:
        ptr = _new(_workload_parallelize, _WP, wh, p._handle())
    return Workload._adopt(ptr)


def _take_text(fn, *args):
    """Calls a C function whose last argument receives text to baechi_free."""
    out = _TEXT()
    _check(fn(*args, ctypes.byref(out)))
    if not out.value:
        raise Error(ERR_NOMEM, "baechi: the library returned no text")
    try:
        return ctypes.string_at(out.value).decode("utf-8", "replace")
    finally:
        _free(out)


def explain_memory(workload: Workload, cluster: Cluster, placement: Placement,
                   model: str = "timed", **options) -> List[dict]:
    """What is live at each device's peak, as `baechi sim --explain-memory
    --json` ("memory_explain"): one dict per device with id, name,
    limit_bytes, peak and oom (None when the device fit); a snapshot is a
    dict with time_us, at_op, total_bytes, n_live, by_kind ({kind: bytes}:
    parameters, optimizer, gradients, saved, activations, received, temp) and
    top (the 20 largest live allocations: op, tensor, kind, bytes,
    since_us).  The world options as simulate()."""
    import json
    wh = _handle_arg(workload, Workload, "explain_memory", "workload")
    ch = _handle_arg(cluster, Cluster, "explain_memory", "cluster")
    ph = _handle_arg(placement, Placement, "explain_memory", "placement")
    bmodel = _str_arg(model, "explain_memory", "model")
    opts_d = dict(placement.options)
    opts_d.update(options)
    with _Options._adopt(opts_d, "explain_memory") as opts:
        text = _take_text(_explain_memory, wh, ch, ph, bmodel, opts._handle())
    return json.loads(text)


def report(db_path, where=None, model: Optional[str] = None,
           sweep: Optional[str] = None) -> List[dict]:
    """The runs of a results database, one dict per run (the tidy table of
    `baechi report --format json`; pandas.DataFrame(rows) makes a frame).
    where: a condition of --where ("placer=m-etf,m-sct", "memory_fraction<0.5")
    or a list of them (ANDed); model: "timed" or "baechi" (None: both);
    sweep: the same as where="sweep=NAME"."""
    import json
    data = _path_arg(db_path, "report", "db_path")
    if where is None:
        conds = []
    elif isinstance(where, str):
        conds = [where]
    elif isinstance(where, (list, tuple)):
        conds = list(where)
    else:
        raise TypeError("report: argument 'where' must be str or a list of str, not %s"
                        % _typename(where))
    bconds = [_str_arg(c, "report", "where") for c in conds]
    if sweep is not None:
        s = _str_arg(sweep, "report", "sweep").decode("utf-8")
        if "," in s:
            raise ValueError("report: argument 'sweep' must be one sweep name (no comma)")
        bconds.append(("sweep=" + s).encode("utf-8"))
    bmodel = None if model is None else _str_arg(model, "report", "model")
    arr = (_S * (len(bconds) + 1))(*bconds, None)
    text = _take_text(_report_json, data, arr, bmodel)
    return json.loads(text)["rows"]
