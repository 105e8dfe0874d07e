"""A model's public interface (inputs, outputs, parameters, states) and the prim contract check."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from luncosim_core.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class Variable:
    """One scalar interface variable; array variables appear element-wise as ``name[i]``.

    ``type`` is the port type its values have (``double`` for Modelica ``Real``; an FMU's
    ``Int32`` is ``int``, ``Boolean`` is ``bool``: see :mod:`luncosim_core.ports.types`)."""

    name: str
    unit: str | None = None
    min: float | None = None
    max: float | None = None
    description: str | None = None
    start: float | None = None
    type: str = "double"


@dataclass(frozen=True, slots=True)
class ModelInterface:
    """What a compiled model exposes, in declaration order."""

    inputs: tuple[Variable, ...] = ()
    outputs: tuple[Variable, ...] = ()
    parameters: tuple[Variable, ...] = ()
    states: tuple[Variable, ...] = ()

    def input(self, name: str) -> Variable | None:
        return next((v for v in self.inputs if v.name == name), None)

    def output(self, name: str) -> Variable | None:
        return next((v for v in self.outputs if v.name == name), None)

    def parameter(self, name: str) -> Variable | None:
        return next((v for v in self.parameters if v.name == name), None)


_UNITLESS = {"", "1", "one", "dimensionless"}


def _units_compatible(a: str | None, b: str | None) -> tuple[bool, str]:
    """True when both units measure the same dimension; an unknown unit is a mismatch reason."""
    if a is None or b is None:
        return True, ""  # an undeclared unit on either side is not checked
    if a.strip() in _UNITLESS and b.strip() in _UNITLESS:
        return True, ""
    from luncosim_core.modelica.units import dimensionality

    da, ea = dimensionality(a)
    db, eb = dimensionality(b)
    if ea or eb:
        return False, ea or eb
    return da == db, ""


def check_interface(
    interface: ModelInterface,
    declared_inputs: Mapping[str, str | None] | None = None,
    declared_outputs: Mapping[str, str | None] | None = None,
    prim_path: str = "",
    model_name: str = "",
) -> list[Diagnostic]:
    """Check a prim's declared ``inputs:<name>``/``outputs:<name>`` against the model.

    Every declared output must be a model output and every declared input a model input, with
    compatible units (same physical dimension). Each mismatch is a ``modelica.interface`` error
    naming the prim port and the model variable.
    """
    diags: list[Diagnostic] = []
    model = model_name or "the model"
    sides = (
        ("input", declared_inputs or {}, {v.name: v for v in interface.inputs}, interface.outputs),
        ("output", declared_outputs or {}, {v.name: v for v in interface.outputs}, interface.inputs),
    )
    for kind, declared, vars_, other in sides:
        for name in sorted(declared):
            unit = declared[name]
            var = vars_.get(name)
            prop = f"{prim_path}.{kind}s:{name}" if prim_path else f"{kind}s:{name}"
            if var is None:
                hint = ""
                if any(o.name == name for o in other):
                    other_kind = "output" if kind == "input" else "input"
                    hint = f" ('{name}' is a model {other_kind})"
                elif any(p.name == name for p in interface.parameters):
                    hint = f" ('{name}' is a model parameter)"
                available = ", ".join(sorted(vars_)) or "none"
                diags.append(Diagnostic(
                    "error", "modelica.interface.missing",
                    f"prim declares {kind} '{name}' but {model} has no {kind} '{name}'{hint}; "
                    f"model {kind}s: {available}",
                    path=prop, source="modelica",
                    data={"port": name, "kind": kind},
                ))
                continue
            if bool(unit) != bool(var.unit) and (unit or var.unit or "").strip() not in _UNITLESS:
                diags.append(Diagnostic(
                    "warning", "modelica.interface.unit_unchecked",
                    f"prim {kind} '{name}' declares unit '{unit or ''}' but {model} {kind} "
                    f"'{name}' declares '{var.unit or ''}': the unit cannot be checked or converted",
                    path=prop, source="modelica",
                    data={"port": name, "kind": kind, "declared": unit, "model": var.unit},
                ))
                continue
            ok, why = _units_compatible(unit, var.unit)
            if not ok:
                reason = f" ({why})" if why else ""
                diags.append(Diagnostic(
                    "error", "modelica.interface.unit",
                    f"prim {kind} '{name}' has unit '{unit}' but {model} {kind} '{name}' has "
                    f"unit '{var.unit}'{reason}",
                    path=prop, source="modelica",
                    data={"port": name, "kind": kind, "declared": unit, "model": var.unit},
                ))
    return diags
