"""Typed reads, writes and steps of an FMU (FMI 2 and 3) through the C functions fmpy loaded.

A :class:`Reader` is planned once for a fixed list of variables: grouped by FMI type, one
preallocated buffer and one C call per type per read, values returned as float64 (``Boolean``
as 0/1, integers exact up to 2**53). Writes convert float64 values to the variable's C type;
the caller has checked them against the port type first. Calls go straight to the loaded
library functions with buffers planned once (fmpy's per-call wrappers convert every argument
at every call, which costs more than the FMU's own step).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence

import numpy as np

from luncosim_core.modelica.fmu_description import FmuVariable

_FMI3_C = {
    "Float64": ctypes.c_double, "Float32": ctypes.c_float, "Int8": ctypes.c_int8, "UInt8": ctypes.c_uint8,
    "Int16": ctypes.c_int16, "UInt16": ctypes.c_uint16, "Int32": ctypes.c_int32, "UInt32": ctypes.c_uint32,
    "Int64": ctypes.c_int64, "UInt64": ctypes.c_uint64, "Boolean": ctypes.c_bool,
}
_FMI2_C = {"Real": ctypes.c_double, "Integer": ctypes.c_int, "Boolean": ctypes.c_int}
_FLOATS = ("Float64", "Float32", "Real")
_STATUS = ("ok", "warning", "discard", "error", "fatal", "pending")


class FmiCallError(RuntimeError):
    """An FMI function returned discard, error or fatal."""

    def __init__(self, function: str, status: int):
        label = _STATUS[status] if 0 <= status < len(_STATUS) else "illegal status"
        super().__init__(f"{function} returned {label}")
        self.function = function
        self.status = status


def _function(fmu, name: str):
    """``name`` from the FMU's library as a checked call taking ready-made ctypes arguments.

    A private function object without ``argtypes``: the arguments are converted once, when a
    call is planned, not at every call (fmpy's shared one converts each argument each time).
    """
    fn = fmu.dll._FuncPtr((name, fmu.dll))
    fn.restype = ctypes.c_int

    def call(*args) -> None:
        status = fn(*args)
        if status > 1:
            raise FmiCallError(name, status)

    return call


def _c_type(fmi3: bool, access: str):
    return (_FMI3_C if fmi3 else _FMI2_C)[access]


class Reader:
    """Reads a fixed list of variables (all elements of each), one C call per FMI type.

    ``names`` lists the element names in the order :meth:`read` returns their values.
    """

    def __init__(self, fmu, fmi3: bool, variables: Sequence[FmuVariable]):
        groups: dict[str, list[FmuVariable]] = {}
        for v in variables:
            groups.setdefault(v.access_type, []).append(v)
        self.names: list[str] = []
        self._calls: list[tuple[object, tuple, np.ndarray, slice]] = []
        prefix = "fmi3Get" if fmi3 else "fmi2Get"
        for access, vs in groups.items():
            vrs = (ctypes.c_uint * len(vs))(*(v.vr for v in vs))
            n = sum(v.size for v in vs)
            buf = (_c_type(fmi3, access) * n)()
            nvr, nv = ctypes.c_size_t(len(vs)), ctypes.c_size_t(n)
            args = (vrs, nvr, buf, nv) if fmi3 else (vrs, nvr, buf)
            at = len(self.names)
            self.names += [e for v in vs for e in v.elements]
            self._calls.append((_function(fmu, prefix + access), args, np.ctypeslib.as_array(buf), slice(at, at + n)))
        self._fmu = fmu
        self.size = len(self.names)

    def read(self) -> np.ndarray:
        """Fresh float64 values of every planned element, in the order of :attr:`names`."""
        component = ctypes.c_void_p(self._fmu.component)
        out = np.empty(self.size)
        for call, args, view, where in self._calls:
            call(component, *args)
            out[where] = view
        return out


class Writer:
    """Sets variables to values (all elements of an array): one C call per variable, through a
    buffer planned at its first write."""

    def __init__(self, fmu, fmi3: bool):
        self._fmu = fmu
        self._fmi3 = fmi3
        self._calls: dict[str, object] = {}
        self._plans: dict[str, tuple] = {}

    def _plan(self, var: FmuVariable) -> tuple:
        call = self._calls.get(var.access_type)
        if call is None:
            prefix = "fmi3Set" if self._fmi3 else "fmi2Set"
            call = self._calls[var.access_type] = _function(self._fmu, prefix + var.access_type)
        buf = (_c_type(self._fmi3, var.access_type) * var.size)()
        args = [(ctypes.c_uint * 1)(var.vr), ctypes.c_size_t(1), buf]
        if self._fmi3:
            args.append(ctypes.c_size_t(var.size))
        plan = self._plans[var.name] = (call, buf, float if var.access_type in _FLOATS else int, tuple(args))
        return plan

    def write(self, items: Sequence[tuple[FmuVariable, Sequence[float]]]) -> None:
        component = ctypes.c_void_p(self._fmu.component)
        for var, values in items:
            call, buf, convert, args = self._plans.get(var.name) or self._plan(var)
            buf[:] = [convert(x) for x in values]
            call(component, *args)


class Stepper:
    """``doStep`` with preallocated out-arguments; returns whether the FMU asks to terminate."""

    def __init__(self, fmu, fmi3: bool):
        self._fmu = fmu
        self._fmi3 = fmi3
        self._call = _function(fmu, "fmi3DoStep" if fmi3 else "fmi2DoStep")
        if fmi3:
            self._flags = [ctypes.c_bool() for _ in range(3)]
            self._last = ctypes.c_double()
            self._out = (*(ctypes.pointer(f) for f in self._flags), ctypes.pointer(self._last))

    def step(self, t0: float, h: float) -> bool:
        component, t0, h = ctypes.c_void_p(self._fmu.component), ctypes.c_double(t0), ctypes.c_double(h)
        if self._fmi3:
            self._call(component, t0, h, ctypes.c_bool(True), *self._out)
            return self._flags[1].value  # terminateSimulation (event handling and early return unused)
        self._call(component, t0, h, ctypes.c_int(1))
        return False
