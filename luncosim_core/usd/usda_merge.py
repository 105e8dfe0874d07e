"""Minimal-diff saves: carry a layer's edits into its file's own text.

USD writes a layer in its own canonical form (metadata and properties in its order, its number
format, no comments), so exporting after a one-value edit would rewrite much of a hand-written
file. Instead :func:`merge_edits` compares the canonical text of the layer before and after the
edits statement by statement (prims by name, properties by name, variant sets) and splices only
the statements that changed into the file's text: a changed property replaces its own statement,
a new one is inserted after its predecessor, a removed one loses its lines, a prim whose header
(metadata) changed gets the new header; comments, order and formatting of everything else stay.

The result is checked: it must parse to exactly the edited layer. When it does not (a file USD's
grammar accepts in a shape this outline does not follow), the canonical text is returned, which
is what a plain export would have written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pxr import Sdf

from luncosim_core.text.splice import Splice, apply_splices

_LISTOPS = ("prepend", "append", "delete", "add", "reorder")
_CLOSE = {"(": ")", "[": "]", "{": "}"}


class OutlineError(ValueError):
    """The text does not follow the outline this module understands."""


@dataclass
class Statement:
    key: tuple[str, ...]
    start: int  # offset of the statement's first character
    end: int  # offset just past its last character
    text: str
    header_end: int = 0  # prims: offset of the body's "{"
    body: list[Statement] = field(default_factory=list)
    body_start: int = 0  # just past "{"
    tail: int = -1  # properties: just past a trailing "# comment" on its last line (else ``end``)

    @property
    def line_end(self) -> int:
        """Just past the statement and the comment that ends its line."""
        return self.tail if self.tail >= 0 else self.end


# ------------------------------------------------------------------------------------ scanning
def _skip_string(text: str, i: int) -> int:
    """``i`` at a quote or '@': the offset just past the literal."""
    for quote in ('"""', "'''", "@@@"):
        if text.startswith(quote, i):
            j = text.find(quote, i + 3)
            if j < 0:
                raise OutlineError(f"unterminated {quote} at offset {i}")
            return j + 3
    q = text[i]
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and q != "@":
            j += 2
            continue
        if c == q:
            return j + 1
        if c == "\n" and q != "@":
            break
        j += 1
    raise OutlineError(f"unterminated {q} at offset {i}")


def _skip_gap(text: str, i: int, end: int) -> int:
    """Past whitespace and comments."""
    while i < end:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            j = text.find("\n", i)
            i = end if j < 0 else j + 1
        else:
            break
    return i


def _scan(text: str, i: int, end: int, stop: str) -> int:
    """From ``i``, the offset of the first ``stop`` character at bracket depth 0 (``"\\n"`` matches
    a line end, and the end of the range); brackets, strings and comments are skipped whole."""
    depth: list[str] = []
    while i < end:
        c = text[i]
        if not depth and c in stop:
            return i
        if c in "\"'@":
            i = _skip_string(text, i)
            continue
        if c == "#":
            j = text.find("\n", i)
            i = end if j < 0 else j
            continue
        if c in _CLOSE:
            depth.append(_CLOSE[c])
        elif depth and c == depth[-1]:
            depth.pop()
        elif c in ")]}":
            if not depth and "}" in stop:
                return i
            raise OutlineError(f"unbalanced {c!r} at offset {i}")
        i += 1
    if "\n" in stop and not depth:
        return end
    raise OutlineError(f"no {stop!r} before offset {end}")


def _matching(text: str, i: int, end: int) -> int:
    """``i`` at an opening bracket: the offset of its closing one."""
    j = _scan(text, i + 1, end, _CLOSE[text[i]])
    return j


def _quoted_name(text: str) -> str:
    start = text.find('"')
    if start < 0:
        raise OutlineError(f"no name in {text[:60]!r}")
    return text[start + 1:_skip_string(text, start) - 1]


def _statement(text: str, i: int, end: int) -> Statement:
    word = text[i:_scan(text, i, end, " \t\r\n(=")].strip()
    if word in ("def", "over", "class"):
        brace = _scan(text, i, end, "{")
        close = _matching(text, brace, end)
        name = _quoted_name(text[i:brace])
        body = _statements(text, brace + 1, close)
        return Statement(("prim", name), i, close + 1, text[i:close + 1], brace, body, brace + 1)
    if word == "variantSet":
        eq = _scan(text, i, end, "=")
        brace = _scan(text, eq + 1, end, "{")
        close = _matching(text, brace, end)
        return Statement(("variantSet", _quoted_name(text[i:eq])), i, close + 1, text[i:close + 1])
    stop = _scan(text, i, end, "\n")
    line = text[i:stop].rstrip()
    own = line[:_comment_at(line)].rstrip()  # a trailing comment is not the statement's: an edit keeps it
    head = own[:_scan(own, 0, len(own), "=(\n")].split() if own else []
    if not head:
        raise OutlineError(f"empty statement at offset {i}")
    listop = head[0] if head[0] in _LISTOPS else ""
    return Statement(("prop", listop, head[-1]), i, i + len(own), own, tail=i + len(line))


def _comment_at(line: str) -> int:
    """Offset of the comment ending ``line`` (a ``#`` outside brackets and strings), else its length."""
    try:
        return _scan(line, 0, len(line), "#")
    except OutlineError:
        return len(line)


def _property_meta(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The ``(`` and ``)`` offsets of a property statement's metadata block (after its value), or None."""
    i = _scan(text, start, end, "=(\n")
    if i < end and text[i] == "=":
        i = _skip_gap(text, i + 1, end)
        if i < end and (text[i] in _CLOSE or text[i] in "\"'@"):
            i = _matching(text, i, end) + 1 if text[i] in _CLOSE else _skip_string(text, i)
        else:
            while i < end and text[i] not in " \t\r\n(":
                i += 1
        i = _skip_gap(text, i, end)
    if i < end and text[i] == "(":
        close = _matching(text, i, end)
        return (i, close) if not text[close + 1:end].strip() else None
    return None


def _statements(text: str, i: int, end: int) -> list[Statement]:
    out: list[Statement] = []
    seen: set[tuple[str, ...]] = set()
    i = _skip_gap(text, i, end)
    while i < end:
        st = _statement(text, i, end)
        if st.key in seen:
            raise OutlineError(f"{st.key} appears twice")
        seen.add(st.key)
        out.append(st)
        i = _skip_gap(text, st.end, end)
    return out


def outline(text: str) -> tuple[tuple[int, int] | None, list[Statement]]:
    """The layer metadata block (offsets of its ``(`` and ``)``) and the top-level statements."""
    i = _skip_gap(text, 0, len(text))  # the "#usda 1.0" line is a comment to the scanner
    block = None
    if i < len(text) and text[i] == "(":
        block = (i, _matching(text, i, len(text)))
        i = block[1] + 1
    return block, _statements(text, i, len(text))


# ------------------------------------------------------------------------------------ merging
def _line_start(text: str, i: int) -> int:
    return text.rfind("\n", 0, i) + 1


def _indent(text: str, i: int) -> str:
    start = _line_start(text, i)
    return text[start:i] if not text[start:i].strip() else ""


def _reindent(st: Statement, source: str, indent: str) -> str:
    """``st`` (from ``source``) as lines starting with ``indent`` instead of its own indent."""
    own = _indent(source, st.start)
    lines = st.text.split("\n")
    out = [indent + lines[0]]
    for line in lines[1:]:
        out.append(indent + line[len(own):] if line.startswith(own) else line)
    return "\n".join(out)


def _delete(text: str, st: Statement) -> Splice:
    """Remove a statement's lines (its own lines only, when it shares none with another)."""
    start = _line_start(text, st.start)
    end = text.find("\n", st.line_end)
    end = len(text) if end < 0 else end + 1
    if text[start:st.start].strip() or text[st.line_end:end].strip():
        return Splice(st.start, st.end, "")
    if text[start - 2:start] == "\n\n" and text.startswith("\n", end):
        end += 1  # a block between blank lines takes one of them along
    return Splice(start, end, "")


class _Merge:
    def __init__(self, original: str, before: str, after: str, forms: dict | None = None) -> None:
        self.o, self.b, self.a = original, before, after
        self.forms = forms if forms is not None else {}
        self.splices: list[Splice] = []
        self.inserts: dict[int, list[str]] = {}  # offset in the original -> texts, in order

    def body(self, o: list[Statement], b: list[Statement], a: list[Statement], insert_at: int, indent: str) -> None:
        o_by, b_by = {s.key: s for s in o}, {s.key: s for s in b}
        a_keys = {s.key for s in a}
        for key, st in b_by.items():
            if key not in o_by:
                raise OutlineError(f"{key} is in the layer but not found in the file's text")
            if key[0] == "prop":  # how the file writes this statement (undo gives it back)
                self.forms[(key, st.text.strip())] = o_by[key].text
        renamed = _renames(b_by, [s for s in a if s.key not in b_by], a_keys)
        gone = set(renamed.values())
        for st in o:
            if st.key in b_by and st.key not in a_keys and st.key not in gone:
                self.splices.append(_delete(self.o, st))
        anchor: Statement | None = None
        for st in a:
            if st.key in renamed:
                anchor = o_by[renamed[st.key]]
                name = self.o.find('"', anchor.start)
                self.splices.append(Splice(name + 1, _skip_string(self.o, name) - 1, st.key[1]))
                continue
            old = o_by.get(st.key)
            if old is None or st.key not in b_by:
                self.insert(st, anchor, insert_at, indent or _indent(self.a, st.start))
                continue
            if b_by[st.key].text != st.text:
                self.change(old, b_by[st.key], st)
            anchor = old

    def insert(self, st: Statement, anchor: Statement | None, insert_at: int, indent: str) -> None:
        if anchor is not None:
            indent = _indent(self.o, anchor.start) or indent
            insert_at = anchor.line_end
        gap = "\n\n" if st.key[0] == "prim" and anchor is not None else "\n"
        self.inserts.setdefault(insert_at, []).append(gap + _reindent(st, self.a, indent))

    def header(self, o: Statement, b: Statement, a: Statement) -> None:
        """A prim's metadata changed: merge its entries, or replace the header when the name,
        type or specifier changed or either side has no metadata block."""
        blocks = [_meta_block(t, st.start, st.header_end) for t, st in ((self.o, o), (self.b, b), (self.a, a))]
        same_line = self.b[b.start:blocks[1][0] if blocks[1] else b.header_end].split("(")[0] == \
            self.a[a.start:blocks[2][0] if blocks[2] else a.header_end].split("(")[0]
        if all(blocks) and same_line:
            self.metadata(blocks[0], blocks[1], blocks[2], _indent(self.o, o.start) + "    ")
            return
        header = Statement(a.key, a.start, a.header_end, self.a[a.start:a.header_end])
        self.splices.append(Splice(o.start, o.header_end, _reindent(header, self.a, _indent(self.o, o.start)).lstrip(" \t")))

    def metadata(self, o: tuple[int, int], b: tuple[int, int], a: tuple[int, int], indent: str) -> None:
        """Entries of a ``( ... )`` metadata block merged like a prim's body."""
        o_st, b_st, a_st = (_statements(t, r[0] + 1, r[1]) for t, r in ((self.o, o), (self.b, b), (self.a, a)))
        inner = _indent(self.o, o_st[0].start) if o_st else indent
        self.body(o_st, b_st, a_st, o[0] + 1, inner)

    def property_parts(self, o: Statement, b: Statement, a: Statement) -> bool:
        """A property with a metadata block on every side: its declaration and value, and each
        metadata entry, change on their own (the file's entry order and one-line blocks stay).
        False when the statement must be replaced whole."""
        blocks = [_property_meta(t, st.start, st.end) for t, st in ((self.o, o), (self.b, b), (self.a, a))]
        if not all(blocks):
            return False
        (o_meta, b_meta, a_meta) = blocks
        b_head, a_head = self.b[b.start:b_meta[0]].rstrip(), self.a[a.start:a_meta[0]].rstrip()
        if b_head != a_head:
            o_head = self.o[o.start:o_meta[0]].rstrip()
            self.splices.append(Splice(o.start, o.start + len(o_head), a_head))
        if self.b[b_meta[0]:b_meta[1] + 1] != self.a[a_meta[0]:a_meta[1] + 1]:
            self.metadata(o_meta, b_meta, a_meta, _indent(self.o, o.start) + "    ")
        return True

    def all_splices(self) -> list[Splice]:
        return self.splices + [Splice(at, at, "".join(texts)) for at, texts in self.inserts.items()]

    def change(self, o: Statement, b: Statement, a: Statement) -> None:
        if a.key[0] != "prim":
            text = self.forms.get((a.key, a.text.strip()))
            if text is None and self.property_parts(o, b, a):
                return
            text = text or _reindent(a, self.a, _indent(self.o, o.start)).lstrip(" \t")
            self.splices.append(Splice(o.start, o.end, text))
            return
        if self.b[b.start:b.header_end] != self.a[a.start:a.header_end]:
            self.header(o, b, a)
        inner = _indent(self.o, o.body[0].start) if o.body else ""
        child_indent = inner or _indent(self.o, o.start) + (_indent(self.a, a.body[0].start)[len(_indent(self.a, a.start)):]
                                                            if a.body else "    ")
        self.body(o.body, b.body, a.body, o.body_start, child_indent)


def merge_edits(original: str, before: str, after: str, forms: dict | None = None) -> str:
    """``original`` (the file's text) with the edits that turned canonical ``before`` into canonical
    ``after`` spliced in; ``after`` itself when that cannot be done exactly (see the module doc).

    ``forms`` (kept by the caller across saves) remembers how the file wrote each statement, so a
    value edited and later undone is written back exactly as it was."""
    if before == after:
        return original
    try:
        merged = _merge(original, before, after, forms)
    except OutlineError:
        return after
    layer = Sdf.Layer.CreateAnonymous(".usda")
    if not layer.ImportFromString(merged) or layer.ExportToString() != after:
        return after
    return merged


def _renames(b_by: dict, added: list[Statement], a_keys: set) -> dict[tuple, tuple]:
    """New prim keys that are a removed prim under another name (same text but the name)."""
    removed = [st for key, st in b_by.items() if key[0] == "prim" and key not in a_keys]
    out: dict[tuple, tuple] = {}
    for new in added:
        for old in removed:
            if new.key[0] == "prim" and old.key not in out.values() and \
                    old.text.replace(f'"{old.key[1]}"', f'"{new.key[1]}"', 1) == new.text:
                out[new.key] = old.key
                break
    return out


def _meta_block(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The ``(`` and ``)`` offsets of the metadata block in ``text[start:end]`` (a prim's header
    or the layer's head), or None."""
    name = text.find('"', start, end)
    i = _skip_string(text, name) if name >= 0 else start
    i = _skip_gap(text, i, end)
    if i < end and text[i] == "(":
        return i, _matching(text, i, end)
    return None


def _merge(original: str, before: str, after: str, forms: dict | None) -> str:
    (o_head, o), (b_head, b), (a_head, a) = outline(original), outline(before), outline(after)
    m = _Merge(original, before, after, forms)
    if (before[b_head[0]:b_head[1]] if b_head else "") != (after[a_head[0]:a_head[1]] if a_head else ""):
        if not (o_head and b_head and a_head):
            raise OutlineError("the layer metadata block appeared or vanished")
        m.metadata(o_head, b_head, a_head, "    ")
    end_of_first_line = original.find("\n")
    m.body(o, b, a, o_head[1] + 1 if o_head else max(end_of_first_line, 0), "")
    return apply_splices(original, m.all_splices())[0]
