"""The interface contract of a Modelica file against the scene's program prims that use it.

A program prim declares the ports it expects: ``inputs:<name>`` and ``outputs:<name>`` with an
optional ``customData = {unit = ...}``. The runtime checks them against the compiled model
(:func:`luncosim_core.modelica.check_interface`) and refuses to run a prim whose declaration does
not match. The editor says so while the model is typed: :func:`model_interface` reads the
model's inputs, outputs and parameters with their units from the syntax layer (its components,
inherited ones, connector short classes such as ``RealInput = input Real``, units from the
component's modifier or its type's, e.g. ``Modelica.Units.SI.Time``), and :func:`check_contracts`
runs ``check_interface`` for every prim in ``contracts`` whose source is this file, each finding
positioned at the model's name (or at the port's declaration when the model has it) and naming
the prim. As at run time, a declared input that is a model parameter is a parameter binding, a
port without a unit takes the model's, and array ports (checked element-wise at run time) are
left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic


@dataclass(frozen=True)
class Contract:
    """One program prim's declared ports (name -> unit or None)."""

    prim: str
    inputs: dict[str, str | None] = field(default_factory=dict)
    outputs: dict[str, str | None] = field(default_factory=dict)


def program_contracts(stage, roots) -> dict[Path, list[Contract]]:
    """The Modelica program prims of ``stage`` by the source file they use (``info:sourceAsset``)."""
    from pxr import Sdf

    from luncosim_core.ports.surface import RIGID_BODY_INPUTS, is_rigid_body
    from luncosim_core.usd.programs import program_language, program_prims

    out: dict[Path, list[Contract]] = {}
    if stage is None:
        return out
    for prim in program_prims(stage):
        if program_language(prim) != "modelica":
            continue
        asset = prim.GetAttribute("info:sourceAsset")
        if not asset or not asset.HasAuthoredValue():
            continue
        value = asset.Get()
        authored = value.path if isinstance(value, Sdf.AssetPath) else str(value or "")
        anchor = next((s.layer.realPath for s in asset.GetPropertyStack() if s.layer.realPath), None)
        path = _resolve(authored, anchor, roots)
        if path is None:
            continue
        body = is_rigid_body(prim)
        inputs: dict[str, str | None] = {}
        outputs: dict[str, str | None] = {}
        for attr in prim.GetAttributes():
            ns, _, name = attr.GetName().partition(":")
            if ns not in ("inputs", "outputs") or not name or attr.GetTypeName().isArray:
                continue
            if body and ns == "inputs" and name in RIGID_BODY_INPUTS:
                continue
            unit = str((attr.GetCustomData() or {}).get("unit", "")) or None
            (inputs if ns == "inputs" else outputs)[name] = unit
        out.setdefault(path, []).append(Contract(str(prim.GetPath()), inputs, outputs))
    return out


def _resolve(authored: str, anchor, roots) -> Path | None:
    if roots is not None:
        check = roots.resolve_file(authored, anchor)
        return check.path.resolve() if check.diagnostic is None and check.path is not None else None
    path = Path(authored)
    if not path.is_absolute() and anchor:
        path = Path(anchor).parent / authored
    return path.resolve() if path.is_file() else None


@dataclass(frozen=True)
class _Var:
    name: str
    unit: str | None
    offset: int  # of its name in the model's text (-1: inherited from another file)


def model_interface(text: str, path: str | Path, roots=None, sd=None):
    """``(ModelInterface, {name: offset}, class name, offset of its name)`` of the file's model,
    read by the syntax layer (``sd``: the text already parsed); None when it does not parse or
    has no model class."""
    from luncosim_core.language.modelica import library_roots
    from luncosim_core.modelica.interface import ModelInterface, Variable
    from luncosim_core.modelica.syntax.parser import ParseError, parse
    from luncosim_core.modelica.syntax.resolve import library_for

    try:
        sd = parse(text) if sd is None else sd
    except (ParseError, RecursionError):
        return None
    cls = sd.find(None) or (sd.classes[0] if sd.classes else None)
    if cls is None or cls.kind in ("package", "connector", "record", "function", "type"):
        return None
    here = Path(path).resolve()
    lib = library_for(here, library_roots(roots))
    lib.add(sd, here)
    sides: dict[str, list[_Var]] = {"input": [], "output": [], "parameter": []}
    for base in lib.bases(cls):
        home = lib.home(base)
        own = home is not None and home.sd is sd
        for comp in base.components:
            if comp.subscripts:
                continue  # arrays are checked element-wise when the model runs
            kind, unit = _kind_and_unit(lib, comp, base, home.sd.text if home is not None else text)
            if kind:
                sides[kind].append(_Var(comp.name, unit, comp.name_start if own else -1))
    interface = ModelInterface(
        inputs=tuple(Variable(v.name, v.unit) for v in sides["input"]),
        outputs=tuple(Variable(v.name, v.unit) for v in sides["output"]),
        parameters=tuple(Variable(v.name, v.unit) for v in sides["parameter"]))
    where = {v.name: v.offset for vs in sides.values() for v in vs if v.offset >= 0}
    at = text.find(cls.name, cls.start)
    return interface, where, cls.name, at if at >= 0 else cls.start


def _kind_and_unit(lib, comp, scope, source: str) -> tuple[str, str | None]:
    """``input``/``output``/``parameter`` (or "") and the unit of one component."""
    prefixes = set(comp.prefixes)
    unit = _unit_arg(comp.mod, source)
    type_name, where = comp.type_name, scope
    for _ in range(20):  # short classes: RealInput = input Real, Time = Real(unit = "s") ...
        cls = lib.resolve(type_name, where)
        if cls is None or not cls.short:
            break
        prefixes.update(cls.short_prefixes)
        if unit is None:
            home = lib.home(cls)
            unit = _unit_arg(cls.short_mod, home.sd.text if home is not None else source)
        type_name, where = cls.short_base, cls
    kind = next((k for k in ("input", "output") if k in prefixes), "")
    if not kind and ("parameter" in prefixes or "constant" in prefixes):
        kind = "parameter"
    return kind, unit


def _unit_arg(mod, source: str) -> str | None:
    arg = mod.arg("unit") if mod is not None else None
    value = arg.value if arg is not None else None
    if value is None or value.kind != "string":
        return None
    return source[value.start:value.end].strip().strip('"')


def check_contracts(text: str, path: str | Path, roots, contracts, sd=None) -> list[Diagnostic]:
    """The contract findings of this buffer against the prims that use its file (see the module doc)."""
    from luncosim_core.modelica.interface import check_interface

    here = Path(path).resolve()
    users = (contracts or {}).get(here) or []
    if not users:
        return []
    found = model_interface(text, here, roots, sd)
    if found is None:
        return []
    interface, where, model, model_at = found
    params = {p.name for p in interface.parameters}
    out: list[Diagnostic] = []
    for c in users:
        inputs = {n: u for n, u in c.inputs.items() if n not in params}
        for d in check_interface(interface, inputs, c.outputs, prim_path=c.prim, model_name=model):
            if d.code == "modelica.interface.unit_unchecked" and not d.data.get("declared"):
                continue  # a port that declares no unit takes the model's
            at = where.get(str(d.data.get("port")), model_at)
            line = text.count("\n", 0, at) + 1
            col = at - (text.rfind("\n", 0, at) + 1) + 1
            out.append(Diagnostic(d.severity, d.code, f"{c.prim}: {d.message}", layer=str(here), line=line,
                                  column=col, source="modelica", data=d.data))
    return out
