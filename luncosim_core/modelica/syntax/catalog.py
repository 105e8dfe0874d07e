"""The classes a diagram can place, read from library roots (Qt-free): the palette's data.

A root is a folder of top-level packages laid out the Modelica way (``Pkg/package.mo``,
``Pkg/Sub.mo``, ``Pkg.mo``) or a folder of loose model files (a twin's ``models/``). Every file is
parsed once; each class becomes an :class:`Entry` under its full name (the file's ``within``
prefix and the class's place in the file). A class is placeable when a component can be declared
of it: a model, block, class or connector that is not ``partial``.

:func:`component_name` names a new component as LunCoSim and Dymola do: the class's initials
(``Resistor`` -> ``R1``, ``ConstantVoltage`` -> ``CV1``) and the first free number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.modelica.syntax.ops import KEYWORDS
from luncosim_core.modelica.syntax.parser import ParseError, parse

PLACEABLE_KINDS = frozenset({"model", "block", "class", "connector", "expandable connector"})
SKIP_DIRS = frozenset({".lunco", ".git", ".venv", "__pycache__", "node_modules"})
MAX_FILES = 5000  # a root past this many .mo files is read only this far (the palette says so)


@dataclass(frozen=True)
class Entry:
    """One class of a library: ``qualified`` is its full Modelica name (``Workbench.Electrical.Resistor``)."""

    qualified: str
    kind: str
    description: str
    path: Path
    source: str  # the palette section: "Workbench", "Modelica (bundled subset)", "Twin", "LunCoSim"
    placeable: bool

    @property
    def short(self) -> str:
        return self.qualified.rsplit(".", 1)[-1]


@dataclass
class Catalog:
    """Entries of one or more roots, and what could not be read (file: reason)."""

    entries: list[Entry]
    problems: list[str]
    roots: list[Path]  # folders a Library needs to resolve the entries' names

    def find(self, qualified: str) -> Entry | None:
        for e in self.entries:
            if e.qualified == qualified:
                return e
        return None

    def search(self, text: str) -> list[Entry]:
        """Placeable entries whose full name or description holds every word of ``text``."""
        words = text.lower().split()
        return [e for e in self.entries if e.placeable
                and all(w in e.qualified.lower() or w in e.description.lower() for w in words)]


def _files(root: Path) -> list[Path]:
    out: list[Path] = []
    for path in sorted(root.rglob("*.mo")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if path.is_file():
            out.append(path)
        if len(out) >= MAX_FILES:
            break
    return out


def read_root(root: Path, source: str, only: tuple[str, ...] = ()) -> Catalog:
    """Every class in the ``.mo`` files under ``root`` (``only``: just these top-level packages)."""
    root = Path(root)
    entries: list[Entry] = []
    problems: list[str] = []
    roots: list[Path] = []
    if not root.is_dir():
        return Catalog(entries, [f"{root} is not a folder"], roots)
    for path in _files(root):
        rel = path.relative_to(root)
        if only and rel.parts[0].removesuffix(".mo") not in only:
            continue
        try:
            sd = parse(read_text_limited(path, "Modelica source"))
        except UnreadableFile as exc:  # the message names the file (and the line of a bad byte)
            problems.append(str(exc))
            continue
        except (OSError, ParseError, RecursionError) as exc:
            problems.append(f"{path}: {exc.strerror if isinstance(exc, OSError) and exc.strerror else exc or 'nested too deeply'}")
            continue
        if not sd.within:  # a loose file or a top-level package: the folder holding it is a library root
            home = path.parent.parent if path.name == "package.mo" else path.parent
            if home not in roots:
                roots.append(home)
        prefix = f"{sd.within}." if sd.within else ""
        for c in sd.all_classes():
            placeable = c.kind in PLACEABLE_KINDS and "partial" not in c.prefixes
            entries.append(Entry(prefix + c.qualified, c.kind, c.description or "", path, source, placeable))
    if root not in roots:
        roots.insert(0, root)
    return Catalog(entries, problems, roots)


def merge(catalogs: list[Catalog]) -> Catalog:
    """One catalog of several (the first holding a full name keeps it)."""
    seen: set[str] = set()
    entries: list[Entry] = []
    problems: list[str] = []
    roots: list[Path] = []
    for cat in catalogs:
        for e in cat.entries:
            if e.qualified not in seen:
                seen.add(e.qualified)
                entries.append(e)
        problems += cat.problems
        roots += [r for r in cat.roots if r not in roots]
    return Catalog(entries, problems, roots)


def initials(short: str) -> str:
    """``Resistor`` -> ``R``, ``ConstantVoltage`` -> ``CV``, ``PIDAxis`` -> ``PIDA``, ``pin`` -> ``P``."""
    caps = "".join(ch for ch in short if ch.isupper())
    return caps or (short[:1].upper() if short[:1].isalpha() else "C")


def component_name(short: str, taken: set[str] | frozenset[str]) -> str:
    """The first of ``R1``, ``R2``... (from the class's short name) not in ``taken``."""
    stem = initials(short)
    k = 1
    while f"{stem}{k}" in taken or f"{stem}{k}" in KEYWORDS:
        k += 1
    return f"{stem}{k}"


def copy_name(name: str, taken: set[str] | frozenset[str]) -> str:
    """A pasted copy's name: ``R1`` -> the first free ``R2``, ``R3``...; ``pump`` -> ``pump1``."""
    m = re.match(r"(.*?)(\d+)\Z", name)
    stem, k = (m.group(1), int(m.group(2)) + 1) if m and m.group(1) else (name, 1)
    while f"{stem}{k}" in taken or f"{stem}{k}" in KEYWORDS:
        k += 1
    return f"{stem}{k}"


def bundled_library() -> Path:
    """The library that ships with the workbench (``assets/models``: Workbench and the MSL subset)."""
    from luncosim_core.modelica.compiler import BUNDLED_LIBRARY

    return BUNDLED_LIBRARY


def palette(twin_root: Path | None = None, lunco_models: Path | None = None) -> Catalog:
    """The diagram's palette: our Workbench package, the bundled standard-library subset, the
    twin's models and LunCoSim's library (``lunco_models``: the lunco:// root's ``models`` folder,
    when it is not the bundled one)."""
    bundled = bundled_library().resolve()
    parts = [read_root(bundled, "Workbench", only=("Workbench",)),
             read_root(bundled, "Modelica (bundled subset)", only=("Modelica",))]
    if twin_root is not None and Path(twin_root).is_dir():
        parts.append(read_root(Path(twin_root), "Twin"))
    if lunco_models is not None and Path(lunco_models).is_dir() and Path(lunco_models).resolve() != bundled:
        parts.append(read_root(Path(lunco_models), "LunCoSim"))
    return merge(parts)
