"""Drop a sub-component input's default binding when its enclosing class sets it by an equation.

Modelica semantics: in ``Sub s; equation s.u = f(t);`` where ``Sub`` declares
``input Real u = 1``, the enclosing class's equation replaces the default (the component is used
as a block whose input is driven from outside). rumoca 0.10 counts both the binding and the
equation (one equation too many: "unbalanced"). This module rewrites the source text the way the
semantics read: the equation moves into a modification of the component,
``Sub s(u = f(t));``, which replaces the default binding, and the equation is removed. The rewrite
only touches equations ``inst.member = expr`` (or ``expr = inst.member``) at the top level of an
equation section whose ``member`` is an input with a default binding in the component's class;
every other equation stays as authored. Offsets of the rest of the text are preserved where
possible (removed equations are blanked, newlines kept) so diagnostics keep their lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.modelica.source_text import blank_comments

_CLASS_KW = r"(?:model|block|class|connector|record|function|package|type|operator)"
_CLASS_START = re.compile(
    rf"^\s*(?:(?:partial|encapsulated|final|expandable|replaceable|redeclare|pure|impure|operator)\s+)*"
    rf"{_CLASS_KW}\s+(\w+)\b")
_PREFIXES = r"(?:(?:parameter|constant|input|output|flow|stream|discrete|final|inner|outer|replaceable|redeclare)\s+)*"
_DECL = re.compile(rf"^\s*{_PREFIXES}([A-Za-z_][\w.]*)\s+([A-Za-z_]\w*)\b")
_INPUT = re.compile(r"^\s*(?:final\s+)?input\s+([A-Za-z_][\w.]*)\s+")
_SECTION = re.compile(r"\s*(initial\s+equation|initial\s+algorithm|equation|algorithm|public|protected)\b")
_WITHIN = re.compile(r"^\s*within\s+([A-Za-z_][\w.]*)?\s*;", re.M)
_MEMBER = re.compile(r"^\s*([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*$")
_KEYWORDS = {"if", "for", "when", "while", "end", "else", "elseif", "elsewhen", "connect", "assert", "extends",
             "import", "annotation", "equation", "algorithm", "initial", "public", "protected", "der", "reinit",
             "terminate"}


@dataclass
class _Stmt:
    start: int  # offset of the first non-space character
    end: int  # offset of the terminating ';'


@dataclass
class _Class:
    name: str
    decls: dict[str, tuple[str, int, int, int]] = field(default_factory=dict)  # inst -> (type, name_end, paren_open, paren_close)
    bound_inputs: set[str] = field(default_factory=set)
    equations: list[_Stmt] = field(default_factory=list)  # top-level equation statements
    nested: dict[str, _Class] = field(default_factory=dict)


def _statements(blank: str, start: int, end: int):
    """Split ``blank[start:end]`` at depth-0 semicolons: ``(chunk start, ';' offset)``."""
    depth = 0
    i = start
    chunk = start
    while i < end:
        c = blank[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            yield chunk, i
            chunk = i + 1
        i += 1


def _skip_space(blank: str, i: int) -> int:
    while i < len(blank) and blank[i].isspace():
        i += 1
    return i


def _match_paren(blank: str, i: int) -> int:
    """Offset of the parenthesis closing the one at ``i`` (or -1)."""
    depth = 0
    for j in range(i, len(blank)):
        if blank[j] == "(":
            depth += 1
        elif blank[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _parse(blank: str, start: int, end: int, name: str) -> _Class:
    """One class body: component declarations, bound inputs, top-level equations, nested classes."""
    cls = _Class(name)
    section = "public"
    nest: list[str] = []  # open if/for/when blocks inside equations
    stmts = list(_statements(blank, start, end))
    k = 0
    while k < len(stmts):
        cstart, semi = stmts[k]
        k += 1
        section, i = _sections(blank, _skip_space(blank, cstart), section)
        text = blank[i:semi]
        m = _CLASS_START.match(text)
        if m:
            if re.match(r"\s*=", text[m.end():]):
                continue  # short class definition (type X = Real(...))
            close = _class_end(blank, stmts, k, m.group(1))
            if close is not None:
                cls.nested[m.group(1)] = _parse(blank, i + m.end(), close[0], m.group(1))
                k = close[1] + 1
            continue
        if section in ("public", "protected"):
            _declaration(blank, i, semi, cls)
        elif section == "equation" and _top_level_equation(text, nest):
            cls.equations.append(_Stmt(i, semi))
    return cls


def _sections(blank: str, i: int, section: str) -> tuple[str, int]:
    """Section keywords preceding the first statement of the section in the same chunk: the section
    in force and where the statement starts."""
    while True:
        m = _SECTION.match(blank, i)
        if not m:
            return section, i
        kw = re.sub(r"\s+", " ", m.group(1))
        section = "equation" if kw == "equation" else kw
        i = _skip_space(blank, m.end())


def _class_end(blank: str, stmts: list[tuple[int, int]], k: int, inner_name: str) -> tuple[int, int] | None:
    """``(start of the "end <name>" statement, its index)`` closing the nested class ``inner_name``."""
    depth = 1
    for j in range(k, len(stmts)):
        s2, e2 = stmts[j]
        t2 = blank[_skip_space(blank, s2):e2]
        if re.match(rf"^\s*end\s+{inner_name}\s*$", t2):
            depth -= 1
            if depth == 0:
                return s2, j
        elif _CLASS_START.match(t2) and re.match(rf"^\s*(?:\w+\s+)*{_CLASS_KW}\s+{inner_name}\b", t2):
            depth += 1
    return None


def _top_level_equation(text: str, nest: list[str]) -> bool:
    """Whether an equation statement stands outside every if/for/when block (``nest`` tracks them)."""
    word = re.match(r"\s*(\w+)", text)
    w = word.group(1) if word else ""
    if w == "end" and nest:
        nest.pop()
        return False
    if w in ("if", "for", "when"):
        nest.append(w)
        return False
    return not nest and w not in ("else", "elseif", "elsewhen")


def _declaration(blank: str, i: int, semi: int, cls: _Class) -> None:
    text = blank[i:semi]
    inp = _INPUT.match(text)
    if inp:
        # input <type> name[(mods)] = default, other = default
        rest = i + inp.end()
        for part_start, part_end in _comma_parts(blank, rest, semi):
            p = _skip_space(blank, part_start)
            nm = re.match(r"([A-Za-z_]\w*)", blank[p:part_end])
            if not nm:
                continue
            q = _skip_space(blank, p + nm.end())
            if q < part_end and blank[q] == "[":
                continue
            if q < part_end and blank[q] == "(":
                close = _match_paren(blank, q)
                if close < 0:
                    continue
                q = _skip_space(blank, close + 1)
            if q < part_end and blank[q] == "=":
                cls.bound_inputs.add(nm.group(1))
        return
    m = _DECL.match(text)
    if not m or m.group(1) in _KEYWORDS or m.group(2) in _KEYWORDS:
        return
    type_name, inst = m.group(1), m.group(2)
    name_end = i + m.end()
    q = _skip_space(blank, name_end)
    if q < semi and blank[q] == "[":
        return  # arrays of components are left alone
    if "," in blank[name_end:semi].split("(")[0]:
        return  # several components in one declaration
    if q < semi and blank[q] == "(":
        close = _match_paren(blank, q)
        if close < 0 or close > semi:
            return
        cls.decls[inst] = (type_name, name_end, q, close)
    else:
        cls.decls[inst] = (type_name, name_end, -1, -1)


def _comma_parts(blank: str, start: int, end: int):
    depth = 0
    part = start
    for j in range(start, end):
        c = blank[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            yield part, j
            part = j + 1
    yield part, end


def _top_equals(blank: str, start: int, end: int) -> int:
    """Offset of the single depth-0 ``=`` of an equation (or -1)."""
    depth = 0
    found = -1
    for j in range(start, end):
        c = blank[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0:
            prev = blank[j - 1] if j > 0 else ""
            nxt = blank[j + 1] if j + 1 < len(blank) else ""
            if prev in "<>=:!" or nxt == "=":
                return -1
            if found >= 0:
                return -1
            found = j
    return found


class _Resolver:
    """Finds the class a component's type names, in this file or in the library roots."""

    def __init__(self, file_classes: dict[str, _Class], path: str | None, within: str,
                 roots: tuple[str, ...]) -> None:
        self.file_classes = file_classes
        self.path = Path(path) if path else None
        self.within = within
        self.roots = [Path(r) for r in roots]
        self.cache: dict[Path, _Class | None] = {}

    def bound_inputs(self, type_name: str, scope: _Class) -> set[str] | None:
        simple = type_name.split(".")[-1]
        if "." not in type_name:
            local = scope.nested.get(simple) or self.file_classes.get(simple)
            if local is not None:
                return local.bound_inputs
        for candidate in self._candidates(type_name):
            cls = self._load(candidate, simple)
            if cls is not None:
                return cls.bound_inputs
        return None

    def _candidates(self, type_name: str):
        parts = type_name.split(".")
        rel = Path(*parts[:-1]) / f"{parts[-1]}.mo" if len(parts) > 1 else Path(f"{parts[0]}.mo")
        if self.path is not None and len(parts) == 1:
            yield self.path.parent / rel
        pkg = self.within.split(".") if self.within else []
        for n in range(len(pkg), -1, -1):  # enclosing packages, innermost first
            for root in self.roots:
                yield root.joinpath(*pkg[:n]) / rel

    def _load(self, file: Path, simple: str) -> _Class | None:
        if file in self.cache:
            return self.cache[file]
        cls = None
        if file.is_file():
            try:
                text = read_text_limited(file, "Modelica source")
            except (OSError, UnreadableFile):  # not text, too large: no class here (the compiler says why)
                text = ""
            cls = _file_classes(blank_comments(text))[1].get(simple)
        self.cache[file] = cls
        return cls


def _special_files(folder: str, names: list[str]) -> set[str]:
    """What a library copy leaves out: a FIFO, a device or a socket (a copy would block, or read
    /dev/zero without end); links are followed as the copy follows them."""
    import os
    import stat

    out = set()
    for name in names:
        try:
            mode = os.stat(os.path.join(folder, name)).st_mode
        except OSError:
            out.add(name)  # a dangling link
            continue
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            out.add(name)
    return out


def _file_classes(blank: str) -> tuple[dict[str, _Class], dict[str, _Class]]:
    """``(top-level classes, every class by simple name)`` of a file."""
    pseudo = _parse(blank, 0, len(blank), "")
    every: dict[str, _Class] = {}

    def walk(c: _Class) -> None:
        for k, v in c.nested.items():
            every.setdefault(k, v)
            walk(v)

    walk(pseudo)
    return pseudo.nested, every


def drop_overridden_input_defaults(text: str, path: str | None, roots: tuple[str, ...]) -> tuple[str, list[str]]:
    """``(rewritten text, moved inputs as "Class.inst.member")``; the text unchanged when nothing moves."""
    blank = blank_comments(text)
    within_m = _WITHIN.search(blank)
    within = (within_m.group(1) or "") if within_m else ""
    top, every = _file_classes(blank)
    resolver = _Resolver(every, path, within, roots)
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), non-overlapping
    moved: list[str] = []

    def visit(cls: _Class) -> None:
        adds: dict[str, list[str]] = {}
        for eq in cls.equations:
            eqpos = _top_equals(blank, eq.start, eq.end)
            if eqpos < 0:
                continue
            lhs, rhs = blank[eq.start:eqpos], blank[eqpos + 1:eq.end]
            for side, other in ((lhs, (eqpos + 1, eq.end)), (rhs, (eq.start, eqpos))):
                m = _MEMBER.match(side)
                if not m or m.group(1) not in cls.decls:
                    continue
                inst, member = m.group(1), m.group(2)
                bound = resolver.bound_inputs(cls.decls[inst][0], cls)
                if not bound or member not in bound:
                    continue
                expr = " ".join(text[other[0]:other[1]].split())
                if f"{member} =" in " ".join(adds.get(inst, [])):
                    continue
                adds.setdefault(inst, []).append(f"{member} = {expr}")
                edits.append((eq.start, eq.end + 1, re.sub(r"[^\n]", " ", text[eq.start:eq.end + 1])))
                moved.append(f"{cls.name}.{inst}.{member}")
                break
        for inst, mods in adds.items():
            _type, name_end, popen, pclose = cls.decls[inst]
            if popen < 0:
                edits.append((name_end, name_end, "(" + ", ".join(mods) + ")"))
            else:
                inner = blank[popen + 1:pclose].strip()
                edits.append((pclose, pclose, (", " if inner else "") + ", ".join(mods)))
        for nested in cls.nested.values():
            visit(nested)

    for cls in top.values():
        visit(cls)
    if not edits:
        return text, []
    out = text
    for start, end, repl in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + repl + out[end:]
    return out, moved


class LibraryOverlay:
    """Rewritten copies of library roots whose classes need the same input-default rewrite.

    A root whose files need no rewrite is used as is. Otherwise the whole root is mirrored into a
    temporary folder (``.mo`` files rewritten, everything else copied) that lives as long as this
    object; it is rebuilt when the library changes (same fingerprint rule as the session cache).
    """

    def __init__(self) -> None:
        import tempfile

        self._tmp = tempfile.TemporaryDirectory(prefix="luncosim-mo-overlay-")
        self._made: dict[tuple[str, tuple], tuple[str, tuple[str, ...]]] = {}
        self.path_map: dict[str, str] = {}  # overlay file -> original file

    def roots(self, roots: tuple[str, ...]) -> tuple[tuple[str, ...], list[str]]:
        """``(roots to compile with, inputs moved in library classes)``."""
        from luncosim_core.modelica.frontend import library_fingerprint  # the session cache's rule

        out: list[str] = []
        moved: list[str] = []
        for root in roots:
            fp = library_fingerprint((root,))
            key = (root, fp)
            if key not in self._made:
                self._made[key] = self._build(root, roots, len(self._made))
            new_root, root_moved = self._made[key]
            out.append(new_root)
            moved.extend(root_moved)
        return tuple(out), moved

    def _build(self, root: str, roots: tuple[str, ...], serial: int) -> tuple[str, tuple[str, ...]]:
        import shutil

        src = Path(root)
        rewrites: dict[Path, str] = {}
        moved: list[str] = []
        for file in sorted(src.rglob("*.mo")):
            try:  # a FIFO or a device named *.mo is refused, never read (it would block or never end)
                text = read_text_limited(file, "Modelica source")
            except (OSError, UnreadableFile):
                continue  # the compiler says why it cannot read it
            new, m = drop_overridden_input_defaults(text, str(file), roots)
            if m:
                rewrites[file] = new
                moved.extend(m)
        if not rewrites:
            return root, ()
        dest = Path(self._tmp.name) / f"{serial}-{src.name}"
        shutil.copytree(src, dest, dirs_exist_ok=True, ignore=_special_files)
        for file, text in rewrites.items():
            target = dest / file.relative_to(src)
            target.write_text(text, encoding="utf-8")
        for file in src.rglob("*.mo"):
            self.path_map[str(dest / file.relative_to(src))] = str(file)
        return str(dest), tuple(moved)

    def overlay_path(self, original: str | None) -> str | None:
        """The rewritten copy of a library file (the original path when it has none)."""
        if original is None:
            return None
        for copy, source in self.path_map.items():
            if source == original:
                return copy
        return original

    def close(self) -> None:
        self._tmp.cleanup()
