"""What an FMU offers, read before anything is extracted: typed variables, interfaces, binaries.

FMI types map onto port types (:mod:`luncosim_core.ports.types`): ``Float64``/``Real`` ->
``double``, ``Float32`` -> ``float``, ``Int8``/``Int16``/``Int32``/``Integer`` -> ``int``,
``UInt8``/``UInt16``/``UInt32`` -> ``uint``, ``Int64`` -> ``int64``, ``UInt64`` -> ``uint64``,
``Boolean`` -> ``bool``, ``Enumeration`` -> ``int`` (FMI 2) / ``int64`` (FMI 3). The 8- and 16-bit
integers carry their range as the port's bounds. ``String``, ``Binary`` and ``Clock`` variables
are not ports. Array variables (FMI 3) appear element-wise as ``name[i]`` / ``name[i,j]``
(1-based, row-major, as Modelica arrays do); their sizes come from fixed dimensions or from
structural parameters (their start values, or the values the scene authors).
"""

from __future__ import annotations

import itertools
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.modelica.interface import ModelInterface, Variable

PORT_TYPES = {
    "Real": "double", "Float64": "double", "Float32": "float",
    "Integer": "int", "Int8": "int", "Int16": "int", "Int32": "int",
    "UInt8": "uint", "UInt16": "uint", "UInt32": "uint", "Int64": "int64", "UInt64": "uint64",
    "Boolean": "bool",
}
NARROW_RANGES = {"Int8": (-128, 127), "UInt8": (0, 255), "Int16": (-32768, 32767), "UInt16": (0, 65535)}
PARAMETER_CAUSALITIES = ("parameter", "structuralParameter")
_LIBRARY_SUFFIXES = (".so", ".dll", ".dylib")


def fmu_error(code: str, message: str, layer: str = "", path: str = "") -> DiagnosticError:
    return DiagnosticError(Diagnostic("error", code, message, path=path, layer=layer, source="modelica"))


@dataclass(frozen=True, slots=True)
class FmuVariable:
    """One FMU variable with its FMI type, port type, shape and flattened start values."""

    name: str
    vr: int
    fmi_type: str  # as the model description spells it (Real, Float32, Enumeration, ...)
    access_type: str  # the get/set family: Float64, Float32, Int8 ... UInt64, Boolean, Real, Integer
    port_type: str  # "" when the variable cannot be a port (String, Binary, Clock)
    causality: str
    variability: str
    shape: tuple[int, ...] = ()
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    description: str | None = None
    start: tuple[float, ...] = ()

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def elements(self) -> tuple[str, ...]:
        """Scalar names: ``name`` for a scalar, ``name[1]``, ``name[1,2]`` ... for an array."""
        if not self.shape:
            return (self.name,)
        return tuple(f"{self.name}[{','.join(str(i + 1) for i in idx)}]"
                     for idx in itertools.product(*(range(d) for d in self.shape)))


@dataclass(frozen=True, slots=True)
class FmuDescription:
    """The parsed model description: version, co-simulation identifier and typed variables."""

    md: object  # fmpy ModelDescription
    fmi_version: str
    model_identifier: str
    variables: tuple[FmuVariable, ...]

    @property
    def fmi3(self) -> bool:
        return self.fmi_version.startswith("3")

    def by_name(self) -> dict[str, FmuVariable]:
        return {v.name: v for v in self.variables}

    def interface(self) -> ModelInterface:
        """Ports the FMU can offer: numeric inputs, outputs and parameters, element-wise."""
        def rows(causalities: tuple[str, ...]) -> tuple[Variable, ...]:
            out: list[Variable] = []
            for v in self.variables:
                if v.causality not in causalities or not v.port_type:
                    continue
                for i, element in enumerate(v.elements):
                    start = v.start[i] if i < len(v.start) else None
                    out.append(Variable(element, v.unit, v.minimum, v.maximum, v.description, start, v.port_type))
            return tuple(out)

        return ModelInterface(inputs=rows(("input",)), outputs=rows(("output",)),
                              parameters=rows(PARAMETER_CAUSALITIES), states=())


def _number(text: object) -> float | None:
    if text in (None, ""):
        return None
    s = str(text).strip()
    low = s.lower()
    if low in ("true", "false"):
        return 1.0 if low == "true" else 0.0
    try:
        return float(s)
    except ValueError:
        return None


def _starts(text: object, port_type: str) -> tuple[float, ...]:
    if text in (None, "") or not port_type:
        return ()
    values = [_number(part) for part in str(text).split()]
    return tuple(v for v in values if v is not None)


def _fit(start: tuple[float, ...], shape: tuple[int, ...]) -> tuple[float, ...]:
    """Start values sized to the array: one value applies to every element; an array resized by
    a structural parameter keeps its leading start values (zeros beyond them)."""
    if not shape or not start:
        return start
    size = 1
    for d in shape:
        size *= d
    if len(start) == 1:
        return start * size
    return (start + (0.0,) * size)[:size]


def read_description(path: Path, structural: Mapping[str, float | Sequence[float]] | None = None) -> FmuDescription:
    """Parse ``modelDescription.xml`` of a co-simulation FMU; refuse what cannot run here.

    ``structural`` gives authored values of structural parameters, which size arrays.
    Raises :class:`DiagnosticError`: ``fmu.invalid`` (unreadable), ``fmu.unsupported`` (no
    co-simulation interface: the message names the interfaces it does have), ``fmu.shape``.
    """
    from fmpy import read_model_description

    layer = str(path)
    try:
        md = read_model_description(str(path))
    except Exception as exc:  # noqa: BLE001 - fmpy raises many types on bad archives
        raise fmu_error("fmu.invalid", f"cannot read FMU: {exc}", layer) from None
    if md.coSimulation is None:
        offered = [label for label, iface in (("model exchange", md.modelExchange),
                                              ("scheduled execution", getattr(md, "scheduledExecution", None)))
                   if iface is not None]
        kinds = " and ".join(offered) or "no interface at all"
        raise fmu_error("fmu.unsupported", f"FMU {md.modelName} has no co-simulation interface (it offers "
                        f"{kinds} only); only co-simulation FMUs can run as participants", layer)
    fmi3 = md.fmiVersion.startswith("3")
    structural = dict(structural or {})
    by_vr = {v.valueReference: v for v in md.modelVariables}
    variables: list[FmuVariable] = []
    for v in md.modelVariables:
        fmi_type = v.type
        if fmi3:
            access = "Int64" if fmi_type == "Enumeration" else fmi_type
            port = "int64" if fmi_type == "Enumeration" else PORT_TYPES.get(fmi_type, "")
        else:
            access = "Integer" if fmi_type == "Enumeration" else fmi_type
            port = "int" if fmi_type == "Enumeration" else PORT_TYPES.get(fmi_type, "")
        if v.type == "Clock":
            port = ""
        declared = getattr(v, "declaredType", None)
        unit = getattr(v, "unit", None) or (getattr(declared, "unit", None) if declared else None)
        lo = _number(getattr(v, "min", None))
        hi = _number(getattr(v, "max", None))
        if lo is None and declared is not None:
            lo = _number(getattr(declared, "min", None))
        if hi is None and declared is not None:
            hi = _number(getattr(declared, "max", None))
        if fmi_type in NARROW_RANGES:
            rlo, rhi = NARROW_RANGES[fmi_type]
            lo = rlo if lo is None else max(lo, rlo)
            hi = rhi if hi is None else min(hi, rhi)
        shape = _shape(v, by_vr, structural, layer)
        variables.append(FmuVariable(v.name, v.valueReference, fmi_type, access, port, v.causality or "local",
                                     v.variability or "", shape, unit or None, lo, hi, v.description or None,
                                     _fit(_starts(v.start, port), shape)))
    return FmuDescription(md, md.fmiVersion, md.coSimulation.modelIdentifier, tuple(variables))


def _shape(v, by_vr: dict, structural: dict, layer: str) -> tuple[int, ...]:
    dims = list(getattr(v, "dimensions", None) or [])
    shape: list[int] = []
    for d in dims:
        size: float | None = _number(d.start) if d.start not in (None, "") else None
        if size is None and d.valueReference is not None:
            param = by_vr.get(d.valueReference)
            if param is not None:
                authored = structural.get(param.name)
                size = _number(authored) if authored is not None and not isinstance(authored, (list, tuple)) else _number(param.start)
        if size is None or size < 0 or not float(size).is_integer():
            raise fmu_error("fmu.shape", f"the size of array variable '{v.name}' cannot be determined "
                            f"(dimension {len(shape) + 1})", layer, v.name)
        shape.append(int(size))
    return tuple(shape)


def host_binary_folder(fmi_version: str) -> str:
    """The ``binaries/<folder>`` this host loads for an FMU of ``fmi_version``."""
    import fmpy

    return fmpy.platform_tuple if fmi_version.startswith("3") else fmpy.platform


def check_platform(path: Path, desc: FmuDescription) -> None:
    """Refuse an FMU with no binary for this host, naming the platforms it has (before extracting)."""
    from fmpy import sharedLibraryExtension

    host = host_binary_folder(desc.fmi_version)
    wanted = f"binaries/{host}/{desc.model_identifier}{sharedLibraryExtension}"
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise fmu_error("fmu.invalid", f"cannot read FMU: {exc}", str(path)) from None
    if wanted in names:
        return
    platforms = sorted({n.split("/")[1] for n in names
                        if n.startswith("binaries/") and n.count("/") >= 2 and n.endswith(_LIBRARY_SUFFIXES)})
    has = ", ".join(platforms) if platforms else "no binaries"
    sources = any(n.startswith("sources/") and n.endswith(".c") for n in names)
    hint = " It ships C sources: compile them for this platform (e.g. fmpy.util.compile_platform_binary)." if sources else ""
    raise fmu_error("fmu.platform", f"FMU {desc.md.modelName} has no binary for this host ({host}: FMI "
                    f"{desc.fmi_version} loads {wanted}); it has {has}.{hint}", str(path))
