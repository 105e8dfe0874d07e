"""The parameters of a component's class (inherited ones included), with type, unit, bounds,
default and description, and the check a new value must pass (for the Parameters dialog)."""

from __future__ import annotations

from dataclasses import dataclass

from luncosim_core.modelica.syntax.parser import ParseError, parse_value
from luncosim_core.modelica.syntax.resolve import Library
from luncosim_core.modelica.syntax.tree import ClassDef, Component, Modification


@dataclass(frozen=True)
class ParameterInfo:
    name: str
    type_name: str
    unit: str = ""
    default: str = ""  # the binding in the class (text), "" when none
    description: str = ""
    min: float | None = None
    max: float | None = None
    declared_in: str = ""


def _attribute(text: str, mod: Modification | None, name: str) -> str | None:
    arg = mod.arg(name) if mod is not None else None
    if arg is None or arg.value is None:
        return None
    return text[arg.value.start:arg.value.end]


def _number(v: str | None) -> float | None:
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


def _type_attributes(lib: Library, type_name: str, scope: ClassDef) -> dict[str, str]:
    """unit/min/max of a type through its short-class chain (the nearest wins)."""
    found: dict[str, str] = {}
    cls, depth = lib.resolve(type_name, scope) if "." in type_name or type_name[:1].isupper() else None, 0
    while cls is not None and cls.short and depth < 20:
        home = lib.home(cls)
        text = home.sd.text if home else ""
        for key in ("unit", "min", "max"):
            value = _attribute(text, cls.short_mod, key)
            if value is not None and key not in found:
                found[key] = value
        cls, depth = lib.resolve(cls.short_base, cls), depth + 1
    return found


def _info(lib: Library, comp: Component, owner: ClassDef) -> ParameterInfo:
    home = lib.home(owner)
    text = home.sd.text if home else ""
    attrs = _type_attributes(lib, comp.type_name, owner)
    for key in ("unit", "min", "max"):
        value = _attribute(text, comp.mod, key)
        if value is not None:
            attrs[key] = value
    default = text[comp.binding.start:comp.binding.end] if comp.binding is not None else ""
    return ParameterInfo(comp.name, comp.type_name, attrs.get("unit", "").strip('"'), default,
                         comp.description or "", _number(attrs.get("min")), _number(attrs.get("max")), owner.name)


def parameters_of(lib: Library, cls: ClassDef) -> list[ParameterInfo]:
    """Every parameter ``cls`` declares or inherits, in declaration order (bases first)."""
    out: list[ParameterInfo] = []
    seen: set[str] = set()
    for base in reversed(lib.bases(cls)):
        for comp in base.components:
            if "parameter" in comp.prefixes and comp.name not in seen:
                seen.add(comp.name)
                out.append(_info(lib, comp, base))
    return out


def value_problem(info: ParameterInfo, value: str) -> str | None:
    """Why ``value`` cannot be ``info``'s modifier (None when it can): not an expression, or a
    number outside the parameter's min/max."""
    try:
        v = parse_value(value)
    except ParseError as exc:
        return f"{info.name}: {value!r} is not a Modelica expression ({exc})"
    if v.kind == "number" and v.number is not None:
        if info.min is not None and v.number < info.min:
            return f"{info.name} = {value} is below its minimum {info.min:g}"
        if info.max is not None and v.number > info.max:
            return f"{info.name} = {value} is above its maximum {info.max:g}"
    return None
