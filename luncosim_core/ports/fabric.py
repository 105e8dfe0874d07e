"""The connection fabric: wires compiled to dense index arrays, propagated as one gather/scatter.

Rule for several wires into one input: their values are **summed** (after each wire's unit
conversion). A pending source (NaN) makes its sink pending: a sink never reads an invented zero.
"""

from __future__ import annotations

import numpy as np

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import Wire
from luncosim_core.ports.units import UnitError, conversion


class Fabric:
    """Compiled wiring: ``values[sink] = sum(values[src] * scale + offset)`` per tick."""

    def __init__(self) -> None:
        self.wires: list[Wire] = []
        self.valid: list[Wire] = []
        self.broken: list[Wire] = []
        self.src = np.zeros(0, dtype=np.intp)
        self.scale = np.zeros(0)
        self.offset = np.zeros(0)
        self.sinks = np.zeros(0, dtype=np.intp)  # unique sink indices
        self.slot = np.zeros(0, dtype=np.intp)  # per wire: position of its sink in ``sinks``
        self.direct = True  # every sink has exactly one wire: plain scatter
        self.broken_sinks = np.zeros(0, dtype=np.intp)

    def compile(self, wires: list[Wire], index: dict[str, int], units: dict[str, str]) -> list[Diagnostic]:
        """Resolve wires against the registry index; unit factors compiled in; report broken ones."""
        diags: list[Diagnostic] = []
        self.wires = list(wires)
        valid: list[Wire] = []
        broken: list[Wire] = []
        for w in sorted(wires, key=lambda w: (w.sink_key, w.source_key)):
            reason = w.broken
            if not reason and w.source_key not in index:
                reason = _missing_source_reason(w)
            if not reason and w.sink_key not in index:
                reason = f"sink {w.sink_key} is not a port"
            scale, offset = 1.0, 0.0
            if not reason:
                try:
                    scale, offset = conversion(units.get(w.source_key, ""), units.get(w.sink_key, ""))
                except UnitError as exc:
                    reason = f"incompatible units: {exc}"
            if reason:
                w = Wire(**{**_asdict(w), "broken": reason})
                broken.append(w)
                diags.append(Diagnostic("error", "wire-broken", f"wire {w.describe()} is broken: {reason}; the sink stays pending",
                                        path=f"{w.sink_prim}.{w.sink_attr}", source="ports",
                                        data={"source": f"{w.source_prim}.{w.source_attr}", "sink": f"{w.sink_prim}.{w.sink_attr}"}))
                continue
            valid.append(Wire(**{**_asdict(w), "scale": scale, "offset": offset}))
        self.valid, self.broken = valid, broken
        self.src = np.array([index[w.source_key] for w in valid], dtype=np.intp)
        dst = np.array([index[w.sink_key] for w in valid], dtype=np.intp)
        self.scale = np.array([w.scale for w in valid], dtype=np.float64)
        self.offset = np.array([w.offset for w in valid], dtype=np.float64)
        self.sinks, self.slot = np.unique(dst, return_inverse=True) if len(dst) else (dst, dst)
        self.direct = len(self.sinks) == len(dst)
        if self.direct:
            self.sinks = dst
        self.identity = bool(np.all(self.scale == 1.0) and np.all(self.offset == 0.0))
        valid_sinks = set(self.sinks.tolist())
        self.broken_sinks = np.array(sorted({index[w.sink_key] for w in broken if w.sink_key in index} - valid_sinks), dtype=np.intp)
        return diags

    def propagate(self, values: np.ndarray) -> None:
        """One vectorised gather/scatter over the compiled wires (in place)."""
        if len(self.src):
            contrib = values[self.src]
            if not self.identity:
                contrib = contrib * self.scale + self.offset
            if self.direct:
                values[self.sinks] = contrib
            else:
                values[self.sinks] = np.bincount(self.slot, weights=contrib, minlength=len(self.sinks))
        if len(self.broken_sinks):
            values[self.broken_sinks] = np.nan


def _missing_source_reason(w: Wire) -> str:
    if w.implicit:
        return (f"{w.source_prim} declares no outputs:{w.source_port} and its compiled model has no output "
                f"'{w.source_port}' (public-output rule: a model's other variables are private; or the model "
                f"did not compile)")
    return f"source {w.source_key} is not published by anything in this runtime"


def _asdict(w: Wire) -> dict:
    return {f: getattr(w, f) for f in Wire.__slots__}
