"""Find references: every place in the twin's sources that names what the name at a position
names (comments and strings are not looked in).

Modelica: the name is resolved (:func:`luncosim_core.language.modelica.resolve_at`); a class is
found in every ``.mo`` file of the twin wherever a (dotted) name resolves to the same class; a
component within the class that declares it. Rhai: a function the file defines is found in the
file and in every ``.rhai`` file that imports it (bare or as ``alias::name``); any other name
(a variable, a host function) within the file. ``sources`` are the open buffers (their text wins
over the file's). The definition itself is one of the hits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Reference:
    file: Path
    line: int  # 1-based
    column: int  # 1-based
    text: str  # the line, stripped


def _read(path: Path, sources: dict) -> str | None:
    if path in sources:
        return sources[path]
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _ref(path: Path, text: str, offset: int) -> Reference:
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return Reference(path, line, offset - start + 1, text[start:end if end >= 0 else len(text)].strip())


def twin_files(twin_root: Path | None, suffix: str, extra=()) -> list[Path]:
    """The twin's source files with ``suffix`` (and ``extra`` open ones), sorted, each once."""
    found = set()
    if twin_root is not None and Path(twin_root).is_dir():
        found.update(p.resolve() for p in Path(twin_root).rglob(f"*{suffix}") if p.is_file())
    found.update(Path(p).resolve() for p in extra if Path(p).suffix == suffix)
    return sorted(found)


def references(path: str | Path, text: str, offset: int, roots=None, sources: dict | None = None
               ) -> tuple[str, list[Reference]]:
    """The name at ``offset`` and its references in the twin (see the module doc)."""
    here = Path(path).resolve()
    sources = {Path(k).resolve(): v for k, v in (sources or {}).items()}
    sources.setdefault(here, text)
    twin_root = getattr(roots, "twin_root", None) if roots is not None else None
    if here.suffix == ".mo":
        return _modelica(here, text, offset, roots, sources, twin_root)
    return _rhai(here, text, offset, roots, sources, twin_root)


# ---------------------------------------------------------------------------------- Modelica
def _modelica(here: Path, text: str, offset: int, roots, sources: dict, twin_root) -> tuple[str, list[Reference]]:
    from luncosim_core.language.modelica import dotted_name_at, resolve_at

    found = resolve_at(text, here, offset, roots)
    name = dotted_name_at(text, offset)[0]
    if found is None:
        return name, []
    kind, node, lib, _ = found
    if kind == "component":
        comp, owner = node
        home = lib.home(owner)
        file = home.path if home is not None and home.path is not None else here
        source = _read(file, sources) or ""
        return comp.name, [_ref(file, source, at) for at, _first in _names(source, comp.name, owner.start, owner.end)
                           if _first]
    target = _full(lib, node)
    out: list[Reference] = []
    for file in twin_files(twin_root, ".mo", sources):
        source = _read(file, sources)
        if source is not None and node.name in source:
            out += _class_hits(file, source, node.name, target, roots)
    home = lib.home(node)
    if home is not None and home.path is not None and all(r.file != home.path for r in out):
        src = home.sd.text
        at = src.find(node.name, node.start)
        out.insert(0, _ref(home.path, src, at if at >= 0 else node.start))  # the definition, outside the twin
    return node.name, out


def _full(lib, cls) -> str:
    home = lib.home(cls)
    return home.full if home is not None else cls.name


def _names(text: str, name: str, start: int = 0, end: int | None = None):
    """(offset, is-first-part) of every identifier token ``name`` in ``text[start:end]``."""
    from luncosim_core.modelica.syntax.lexer import LexError, tokenize

    try:
        toks = tokenize(text)
    except LexError:
        return
    end = len(text) if end is None else end
    prev = None
    for tok in toks:
        if start <= tok.start < end and text[tok.start:tok.end] == name:
            yield tok.start, not (prev is not None and text[prev.start:prev.end] == ".")
        prev = tok


def _class_hits(file: Path, source: str, short: str, target: str, roots) -> list[Reference]:
    from luncosim_core.language.modelica import resolve_at

    hits = []
    for at, _first in _names(source, short):
        found = resolve_at(source, file, at, roots)
        if found is not None and found[0] == "class" and _full(found[2], found[1]) == target:
            hits.append(_ref(file, source, at))
    return hits


# ---------------------------------------------------------------------------------- Rhai
def _rhai_idents(text: str):
    """(name, line, column, previous token) of every identifier (strings and comments skipped)."""
    from luncosim_core.scripting.rhai.errors import RhaiError
    from luncosim_core.scripting.rhai.lexer import tokenize

    try:
        toks = tokenize(text)
    except RhaiError:
        return
    prev = None
    for tok in toks:
        if tok[0] == "ident":
            yield tok[1], tok[2], tok[3], prev
        prev = tok


def _offset(text: str, line: int, col: int) -> int:
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + col - 1


def _rhai(here: Path, text: str, offset: int, roots, sources: dict, twin_root) -> tuple[str, list[Reference]]:
    from luncosim_core.language.rhai import rhai_functions, rhai_imports

    a = offset
    while a > 0 and (text[a - 1].isalnum() or text[a - 1] == "_"):
        a -= 1
    b = offset
    while b < len(text) and (text[b].isalnum() or text[b] == "_"):
        b += 1
    name = text[a:b]
    if not name:
        return name, []
    own = [_ref(here, text, _offset(text, ln, col)) for n, ln, col, _p in _rhai_idents(text) if n == name]
    if name not in rhai_functions(text):
        return name, own
    out = own
    for file in twin_files(twin_root, ".rhai", sources):
        if file == here:
            continue
        source = _read(file, sources)
        if source is None or name not in source:
            continue
        aliases = {alias for alias, module in rhai_imports(source, file, roots).items() if module == here}
        if not aliases:
            continue
        for n, ln, col, prev in _rhai_idents(source):
            if n != name:
                continue
            qualified = prev is not None and prev[1] == "::"
            if not qualified or _alias_before(source, ln, col) in aliases:
                out.append(_ref(file, source, _offset(source, ln, col)))
    return name, out


def _alias_before(source: str, line: int, col: int) -> str:
    """The module alias of ``alias::name`` ending at ``line``:``col``."""
    at = _offset(source, line, col) - 2
    b = at
    while at > 0 and (source[at - 1].isalnum() or source[at - 1] == "_"):
        at -= 1
    return source[at:b]
