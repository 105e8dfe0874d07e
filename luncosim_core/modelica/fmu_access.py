"""Typed reads and writes of FMU variables (FMI 2 and 3) through fmpy's raw C calls.

A :class:`Reader` is planned once for a fixed list of variables: one preallocated value buffer
per FMI type, one C call per type per read, values returned as float64 in the planned order
(``Boolean`` as 0/1, integers exactly up to 2**53). Writes convert float64 values to the
variable's C type; the caller has checked them against the port type first.
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


def _c_type(fmi3: bool, access: str):
    return (_FMI3_C if fmi3 else _FMI2_C)[access]


def _to_c(access: str, value: float):
    return float(value) if access in _FLOATS else int(value)


class Reader:
    """Reads a fixed list of variables (all elements of each) with one C call per FMI type."""

    def __init__(self, fmu, fmi3: bool, variables: Sequence[FmuVariable]):
        self._calls: list[tuple[object, tuple, object, list[int]]] = []
        self.size = sum(v.size for v in variables)
        positions: dict[str, list[int]] = {}
        groups: dict[str, list[FmuVariable]] = {}
        at = 0
        for v in variables:
            groups.setdefault(v.access_type, []).append(v)
            positions.setdefault(v.access_type, []).extend(range(at, at + v.size))
            at += v.size
        prefix = "fmi3Get" if fmi3 else "fmi2Get"
        for access, vs in groups.items():
            fn = getattr(fmu, prefix + access)
            vrs = (ctypes.c_uint * len(vs))(*(v.vr for v in vs))
            n = sum(v.size for v in vs)
            buf = (_c_type(fmi3, access) * n)()
            args = (vrs, len(vs), buf, n) if fmi3 else (vrs, len(vs), buf)
            self._calls.append((fn, args, buf, positions[access]))
        self._fmu = fmu
        self._views = [np.ctypeslib.as_array(buf) for _, _, buf, _ in self._calls]
        self._where = [np.asarray(w, dtype=np.intp) for _, _, _, w in self._calls]

    def read(self) -> np.ndarray:
        """Fresh float64 values of every planned element, in the planned order."""
        component = self._fmu.component
        out = np.empty(self.size)
        for (fn, args, _, _), view, where in zip(self._calls, self._views, self._where, strict=True):
            fn(component, *args)
            out[where] = view
        return out


def write(fmu, fmi3: bool, items: Sequence[tuple[FmuVariable, Sequence[float]]]) -> None:
    """Set each variable to its values (all elements of an array), one C call per FMI type."""
    groups: dict[str, list[tuple[FmuVariable, Sequence[float]]]] = {}
    for var, values in items:
        groups.setdefault(var.access_type, []).append((var, values))
    prefix = "fmi3Set" if fmi3 else "fmi2Set"
    for access, entries in groups.items():
        fn = getattr(fmu, prefix + access)
        vrs = (ctypes.c_uint * len(entries))(*(v.vr for v, _ in entries))
        flat = [_to_c(access, x) for _, values in entries for x in values]
        buf = (_c_type(fmi3, access) * len(flat))(*flat)
        if fmi3:
            fn(fmu.component, vrs, len(entries), buf, len(flat))
        else:
            fn(fmu.component, vrs, len(entries), buf)
