"""A hand-written recursive-descent reader of Modelica's structure (not its full expression
grammar): classes, components with modifiers and annotations, extends, imports and connect
equations, every node with its source span. Other equations and statements are skipped as
balanced token runs; expressions are kept as :class:`Value` trees where they are literals,
arrays, references or calls, else as text spans.

:func:`parse` raises :class:`ParseError` (message, offset, line, column) on text it cannot read.
"""

from __future__ import annotations

from luncosim_core.modelica.syntax.lexer import ID, NUM, STR, LexError, Token, tokenize
from luncosim_core.modelica.syntax.tree import (
    Arg,
    ClassDef,
    Component,
    Connect,
    Extends,
    Modification,
    Section,
    StoredDefinition,
    Value,
)

CLASS_KINDS = frozenset({"model", "block", "class", "package", "connector", "record", "function", "type", "operator"})
CLASS_PREFIXES = frozenset({"encapsulated", "partial", "final", "expandable", "pure", "impure", "redeclare",
                            "replaceable", "inner", "outer"})
COMPONENT_PREFIXES = frozenset({"flow", "stream", "discrete", "parameter", "constant", "input", "output",
                                "final", "inner", "outer", "replaceable", "redeclare", "each"})
BLOCK_ENDS = frozenset({"for", "if", "when", "while"})
_CLOSE = frozenset({",", ")", "}", ";", "]"})
_OPEN = {"(": ")", "{": "}", "[": "]"}
_OPERATORS = frozenset({"+", "-", "*", "/", "^", ".+", ".-", ".*", "./", ".^", "=", ":=", "==", "<>", "<", ">",
                        "<=", ">=", "(", "{", "[", ",", ":"})


class ParseError(ValueError):
    def __init__(self, message: str, text: str, offset: int) -> None:
        self.offset = offset
        self.line = text.count("\n", 0, offset) + 1
        self.column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        super().__init__(f"line {self.line}, column {self.column}: {message}")


class _Parser:
    def __init__(self, text: str) -> None:
        self.src = text
        try:
            self.toks = tokenize(text)
        except LexError as exc:
            raise ParseError(str(exc), text, exc.offset) from None
        self.i = 0
        self.n = len(self.toks)
        self.toks.extend([Token("EOF", len(text), len(text))] * 3)  # sentinels: peek needs no bounds check
        self._refs: list[tuple[int, int]] | None = None

    # -- token helpers --------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.toks[self.i + k]

    def word(self, k: int = 0) -> str:
        """The identifier at ``k`` (empty when that token is not one)."""
        t = self.toks[self.i + k]
        return self.src[t.start:t.end] if t.kind == ID else ""

    def at(self, kind: str, k: int = 0) -> bool:
        return self.toks[self.i + k].kind == kind

    def take(self) -> Token:
        t = self.peek()
        if t.kind == "EOF":
            raise self.error("unexpected end of file")
        self.i += 1
        return t

    def expect(self, kind: str, what: str = "") -> Token:
        t = self.peek()
        if t.kind != kind:
            got = "the end of the file" if t.kind == "EOF" else repr(self.src[t.start:t.end])
            raise self.error(f"expected {what or repr(kind)}, found {got}")
        self.i += 1
        return t

    def expect_word(self, w: str) -> Token:
        if self.word() != w:
            raise self.error(f"expected '{w}'")
        return self.take()

    def error(self, message: str) -> ParseError:
        return ParseError(message, self.src, self.peek().start)

    def prev_end(self) -> int:
        return self.toks[self.i - 1].end if self.i else 0

    def skip_balanced(self, stop: frozenset[str]) -> None:
        """Advance to the next token of kind in ``stop`` at bracket depth 0 (not consuming it)."""
        depth: list[str] = []
        while True:
            t = self.peek()
            if t.kind == "EOF":
                if depth:
                    raise self.error(f"missing '{depth[-1]}'")
                return
            if not depth and t.kind in stop:
                return
            if t.kind in _OPEN:
                depth.append(_OPEN[t.kind])
            elif depth and t.kind == depth[-1]:
                depth.pop()
            elif t.kind in (")", "}", "]"):
                if not depth:
                    return
                raise self.error(f"unbalanced '{t.kind}'")
            self.i += 1

    def name(self) -> tuple[str, int, int]:
        """A dotted name (``Modelica.Units.SI.Voltage``, a leading '.' allowed)."""
        start = self.peek().start
        parts = []
        if self.at("."):
            self.take()
            parts.append("")
        parts.append(self.src[slice(*_span(self.expect(ID, "a name")))])
        while self.at(".") and self.at(ID, 1):
            self.take()
            parts.append(self.src[slice(*_span(self.take()))])
        return ".".join(parts), start, self.prev_end()

    def note_ref(self, t: Token) -> None:
        if self._refs is not None:
            self._refs.append((t.start, t.end))

    # -- expressions and modifications -----------------------------------------------------------
    def value(self) -> Value:
        start = self.peek().start
        v = self.primary()
        if self.value_ends():
            return v
        self.skip_expression()
        return Value("expr", start, self.prev_end())

    def value_ends(self) -> bool:
        t = self.peek()
        if t.kind in _CLOSE or t.kind == "EOF":
            return True
        if t.kind == STR:
            return True
        return self.word() in ("annotation", "each", "final")

    def skip_expression(self) -> None:
        depth = 0
        while True:
            t = self.peek()
            if t.kind == "EOF":
                if depth:
                    raise self.error("unexpected end of file in an expression")
                return
            if depth == 0 and (t.kind in _CLOSE or self.word() == "annotation"):
                return
            if depth == 0 and t.kind == STR and self.toks[self.i - 1].kind not in _OPERATORS:
                return
            if t.kind in _OPEN:
                depth += 1
            elif t.kind in (")", "}", "]"):
                depth -= 1
            if t.kind == ID and self.toks[self.i - 1].kind != ".":
                self.note_ref(t)
            self.i += 1

    def primary(self) -> Value:
        t = self.peek()
        k = t.kind
        if k == "{":
            return self.array()
        if k in ("-", "+") and self.at(NUM, 1):
            self.take()
            n = self.take()
            x = float(self.src[n.start:n.end])
            return Value("number", t.start, n.end, number=-x if k == "-" else x)
        if k == NUM:
            self.take()
            return Value("number", t.start, t.end, number=float(self.src[t.start:t.end]))
        if k == STR:
            self.take()
            return Value("string", t.start, t.end)
        if k == ID or (k == "." and self.at(ID, 1)):
            return self.reference_or_call()
        self.skip_expression()
        if self.prev_end() <= t.start:
            raise self.error("expected an expression")
        return Value("expr", t.start, self.prev_end())

    def array(self) -> Value:
        start = self.take().start
        items: list[Value] = []
        if not self.at("}"):
            while True:
                items.append(self.value())
                if self.at(","):
                    self.take()
                    continue
                if self.at(";") or self.word() == "for":  # a matrix row break or a comprehension
                    self.skip_balanced(frozenset({"}"}))
                    self.expect("}")
                    return Value("expr", start, self.prev_end())
                break
        self.expect("}", "'}'")
        return Value("array", start, self.prev_end(), items=items)

    def reference_or_call(self) -> Value:
        first = self.peek()
        name, start, _ = self.name()
        while self.at("["):
            self.take()
            self.skip_balanced(frozenset({"]"}))
            self.expect("]")
            while self.at(".") and self.at(ID, 1):
                self.take()
                self.take()
        if self.at("("):
            mod = self.modification(in_call=True)
            return Value("call", start, self.prev_end(), name=name, mod=mod)
        if first.kind == ID:
            self.note_ref(first)
        return Value("name", start, self.prev_end(), name=name)

    def modification(self, in_call: bool = False) -> Modification:
        start = self.expect("(").start
        args: list[Arg] = []
        if not self.at(")"):
            while True:
                args.append(self.mod_arg(in_call))
                if self.at(","):
                    self.take()
                    continue
                break
        if self.word() == "for" and in_call:  # a reduction: sum(x[i] for i in 1:n)
            self.skip_balanced(frozenset({")"}))
        self.expect(")", "')' or ','")
        return Modification(start, self.prev_end(), args)

    def mod_arg(self, in_call: bool) -> Arg:
        start = self.peek().start
        while self.word() in ("each", "final"):
            self.take()
        if self.word() in ("redeclare", "replaceable"):
            self.skip_balanced(frozenset({",", ")"}))
            return Arg(None, start, self.prev_end())
        if self.at(ID) and self.peek(1).kind in ("=", "(", ":=", ",", ")", ".", STR):
            mark = self.i
            arg = self.named_arg(start, in_call)
            if arg is not None:
                return arg
            self.i = mark
        v = self.value()
        return Arg(None, start, v.end, value=v)

    def named_arg(self, start: int, in_call: bool) -> Arg | None:
        refs_mark = len(self._refs) if self._refs is not None else 0
        name, ns, ne = self.name()
        mod = self.modification() if self.at("(") else None
        value = None
        if self.peek().kind in ("=", ":="):
            self.take()
            value = self.value()
        elif self.peek().kind not in (",", ")", STR):
            if self._refs is not None:
                del self._refs[refs_mark:]
            return None
        elif in_call and mod is None and "." not in name:
            # a positional reference inside a call (max(a, b)): it may name a component
            self.note_ref(Token(ID, ns, ne))
        while self.at(STR):  # a description of a modified element
            self.take()
            if self.at("+"):
                self.take()
        return Arg(name, start, self.prev_end(), ns, ne, mod, value)

    # -- classes ---------------------------------------------------------------------------------
    def stored_definition(self) -> StoredDefinition:
        sd = StoredDefinition(self.src)
        if self.word() == "within":
            self.take()
            if not self.at(";"):
                sd.within = self.name()[0]
            self.expect(";", "';' after within")
        while not self.at("EOF"):
            start = self.peek().start
            prefixes = self.class_prefixes()
            sd.classes.append(self.class_def(start, prefixes, ""))
            self.expect(";", "';' after the class")
        return sd

    def class_prefixes(self) -> tuple[str, ...]:
        out = []
        while self.word() in CLASS_PREFIXES:
            out.append(self.word())
            self.take()
        return tuple(out)

    def class_kind(self) -> str:
        w = self.word()
        if w not in CLASS_KINDS:
            raise self.error("expected a class (model, block, connector, package, ...)")
        self.take()
        if w == "operator" and self.word() in ("record", "function"):
            w = "operator " + self.word()
            self.take()
        return w

    def class_def(self, start: int, prefixes: tuple[str, ...], scope: str) -> ClassDef:
        kind = self.class_kind()
        if self.word() == "extends":  # model extends Base ... end Base;
            self.take()
        name = self.src[slice(*_span(self.expect(ID, "a class name")))]
        qualified = f"{scope}.{name}" if scope else name
        cls = ClassDef(name, kind, qualified, start, -1, prefixes)
        if self.at("="):
            self.short_class(cls)
        else:
            self.long_class(cls)
        cls.end = self.prev_end()
        return cls

    def short_class(self, cls: ClassDef) -> None:
        cls.short = True
        self.take()
        pre = []
        while self.word() in ("input", "output", "flow", "stream", "parameter", "constant", "discrete"):
            pre.append(self.word())
            self.take()
        cls.short_prefixes = tuple(pre)
        if self.word() == "enumeration" or self.word() == "der":
            cls.short_base = self.word()
            self.take()
            self.skip_balanced(frozenset({";"}) | {STR, ID})
        else:
            cls.short_base = self.name()[0]
        while self.at("["):
            self.take()
            self.skip_balanced(frozenset({"]"}))
            self.expect("]")
        if self.at("("):
            cls.short_mod = self.modification()
        cls.description = self.description()
        self.maybe_annotation(cls)

    def maybe_annotation(self, cls: ClassDef) -> None:
        if self.word() == "annotation":
            cls.annotation_start = self.take().start
            cls.annotation = self.modification()

    def description(self) -> str | None:
        if not self.at(STR):
            return None
        parts = []
        while self.at(STR):
            t = self.take()
            parts.append(self.src[t.start + 1:t.end - 1])
            if self.at("+") and self.at(STR, 1):
                self.take()
        return "".join(parts)

    def long_class(self, cls: ClassDef) -> None:
        cls.description = self.description()
        cls.body_start = self.prev_end()
        saved = self._refs
        self._refs = cls.references
        section = Section("public", cls.body_start)
        cls.sections.append(section)
        while True:
            if self.word() == "end" and self.at(ID, 1) and self.word(1) not in BLOCK_ENDS:
                break
            if self.at("EOF"):
                raise self.error(f"missing 'end {cls.name};'")
            section = self.class_part(cls, section)
        section.end = self.peek().start
        self._refs = saved
        cls.end_keyword = self.take().start
        end_name = self.word()
        if end_name != cls.name:
            raise self.error(f"'end {end_name}' closes class {cls.name!r}")
        self.take()

    def class_part(self, cls: ClassDef, section: Section) -> Section:
        """One element, section keyword or equation of ``cls``; returns the current section."""
        w = self.word()
        kind = None
        if w in ("public", "protected", "equation", "algorithm"):
            kind = w
        elif w == "initial" and self.word(1) in ("equation", "algorithm"):
            kind = "initial " + self.word(1)
        if kind is not None:
            section.end = self.peek().start
            section = Section(kind, self.peek().start)
            cls.sections.append(section)
            self.take()
            if kind.startswith("initial"):
                self.take()
            return section
        if w == "annotation":
            cls.annotation_start = self.take().start
            cls.annotation = self.modification()
            self.expect(";", "';' after the annotation")
            cls.annotation_end = self.prev_end()
            return section
        if section.kind in ("public", "protected"):
            self.element(cls, section.kind)
            cls.element_end = self.prev_end()
        else:
            self.equation(cls)
        return section

    def element(self, cls: ClassDef, section: str) -> None:
        start = self.peek().start
        w = self.word()
        if w == "import":
            self.take()
            s = self.peek().start
            self.skip_balanced(frozenset({";"}))
            cls.imports.append(self.src[s:self.prev_end()].replace(" ", ""))
            self.expect(";")
            return
        if w == "extends":
            self.extends(cls, start)
            return
        mark = self.i
        prefixes = self.class_prefixes()
        if self.word() in CLASS_KINDS:
            saved = self._refs
            self._refs = None
            inner = self.class_def(start, prefixes, cls.qualified)
            self._refs = saved
            if self.word() == "constrainedby":
                self.skip_balanced(frozenset({";"}))
            self.expect(";", "';' after the class")
            cls.classes.append(inner)
            return
        self.i = mark
        self.component_clause(cls, section, start)

    def extends(self, cls: ClassDef, start: int) -> None:
        self.take()
        name = self.name()[0]
        mod = self.modification() if self.at("(") else None
        ann = None
        if self.word() == "annotation":
            self.take()
            ann = self.modification()
        self.expect(";", "';' after extends")
        cls.extends.append(Extends(name, start, self.prev_end(), mod, ann))

    def component_clause(self, cls: ClassDef, section: str, start: int) -> None:
        prefixes = []
        while self.word() in COMPONENT_PREFIXES:
            prefixes.append(self.word())
            self.take()
        type_name = self.name()[0]
        dims = self.subscripts()
        first = len(cls.components)
        while True:
            cls.components.append(self.declarator(type_name, tuple(prefixes), section, start, dims))
            if not self.at(","):
                break
            self.take()
        if self.word() == "constrainedby":
            self.skip_balanced(frozenset({";"}))
        self.expect(";", "';' after the declaration")
        clause = cls.components[first:]
        for k, c in enumerate(clause):
            c.clause_end = self.prev_end()
            c.declarators = len(clause)
            c.index = k

    def subscripts(self) -> str:
        s = self.peek().start
        while self.at("["):
            self.take()
            self.skip_balanced(frozenset({"]"}))
            self.expect("]")
        return self.src[s:self.prev_end()] if self.prev_end() > s else ""

    def declarator(self, type_name: str, prefixes: tuple[str, ...], section: str, clause_start: int,
                   dims: str) -> Component:
        nt = self.expect(ID, "a component name")
        name = self.src[nt.start:nt.end]
        comp = Component(name, type_name, prefixes, section, clause_start, -1, nt.start, -1, nt.start, nt.end)
        comp.subscripts = dims + self.subscripts()
        if self.at("("):
            comp.mod = self.modification()
        if self.peek().kind in ("=", ":="):
            self.take()
            comp.binding = self.value()
        if self.word() == "if":
            self.take()
            self.skip_expression()
        comp.description = self.description()
        if self.word() == "annotation":
            comp.annotation_start = self.take().start
            comp.annotation = self.modification()
        comp.end = self.prev_end()
        return comp

    def equation(self, cls: ClassDef) -> None:
        start = self.peek().start
        if self.word() == "connect" and self.at("(", 1):
            self.take()
            self.take()
            a, a_span = self.connect_ref()
            self.expect(",", "',' between the connectors")
            b, b_span = self.connect_ref()
            close = self.expect(")", "')' closing connect").start
            conn = Connect(a, b, start, -1, a_span, b_span, close=close)
            self.description()
            if self.word() == "annotation":
                conn.annotation_start = self.take().start
                conn.annotation = self.modification()
            self.expect(";", "';' after connect")
            conn.end = self.prev_end()
            cls.connects.append(conn)
            return
        self.statement()

    def connect_ref(self) -> tuple[str, tuple[int, int]]:
        s = self.peek().start
        self.note_ref(self.peek())
        self.skip_balanced(frozenset({",", ")"}))
        e = self.prev_end()
        if e <= s:
            raise self.error("expected a connector")
        return "".join(self.src[s:e].split()), (s, e)

    def statement(self) -> None:
        """Skip one equation or statement up to its ';' (a for/if/when block's parts included),
        noting identifiers that may name components."""
        start = self.i
        depth = 0
        while True:
            t = self.peek()
            if t.kind == "EOF":
                raise self.error("missing ';'")
            if depth == 0 and t.kind == ";":
                break
            if t.kind in _OPEN:
                depth += 1
            elif t.kind in (")", "}", "]"):
                depth -= 1
            elif t.kind == ID and (self.i == 0 or self.toks[self.i - 1].kind != "."):
                self.note_ref(t)
            self.i += 1
        if self.i == start:
            raise self.error("empty statement")
        self.take()


def _span(t: Token) -> tuple[int, int]:
    return t.start, t.end


def parse(text: str) -> StoredDefinition:
    """Parse a Modelica file (the whole text) into its structure with spans."""
    return _Parser(text).stored_definition()


def parse_value(text: str) -> Value:
    """Parse ``text`` as one expression (a modifier value): a :class:`ParseError` if it is not
    exactly one well-formed expression."""
    p = _Parser(text)
    if p.n == 0:
        raise ParseError("an empty expression", text, 0)
    _ExpressionCheck(text, p.toks).check()
    v = p.value()
    if not p.at("EOF"):
        raise p.error("more text after the expression")
    return v


_BINARY = frozenset({"+", "-", "*", "/", "^", ".+", ".-", ".*", "./", ".^", "==", "<>", "<", ">", "<=", ">=", ":"})
_WORD_BINARY = frozenset({"and", "or"})
_RESERVED = frozenset({"then", "else", "elseif", "end", "equation", "algorithm", "annotation", "connect", "model",
                       "within", "loop", "in", "for", "and", "or"})


class _ExpressionCheck:
    """A strict grammar check of one Modelica expression (operands between operators, brackets
    matched, if/then/else complete) over its tokens."""

    def __init__(self, text: str, toks: list[Token]) -> None:
        self.text, self.toks, self.i = text, toks, 0

    def kind(self) -> str:
        return self.toks[self.i].kind if self.i < len(self.toks) else "EOF"

    def word(self) -> str:
        t = self.toks[self.i] if self.i < len(self.toks) else None
        return self.text[t.start:t.end] if t is not None and t.kind == ID else ""

    def fail(self, message: str) -> ParseError:
        at = self.toks[self.i].start if self.i < len(self.toks) else len(self.text)
        return ParseError(message, self.text, at)

    def check(self) -> None:
        self.expr()
        if self.kind() != "EOF":
            raise self.fail("more text after the expression")

    def expr(self) -> None:
        if self.word() == "if":
            self.i += 1
            self.expr()
            self.keyword("then")
            self.expr()
            while self.word() == "elseif":
                self.i += 1
                self.expr()
                self.keyword("then")
                self.expr()
            self.keyword("else")
            self.expr()
            return
        self.operand()
        while self.kind() in _BINARY or self.word() in _WORD_BINARY:
            self.i += 1
            self.operand()

    def keyword(self, w: str) -> None:
        if self.word() != w:
            raise self.fail(f"expected '{w}'")
        self.i += 1

    def operand(self) -> None:
        while self.kind() in ("-", "+") or self.word() == "not":
            self.i += 1
        k = self.kind()
        if k in (NUM, STR):
            self.i += 1
        elif k == ID and self.word() not in _RESERVED:
            self.reference()
        elif k == "(":
            self.group("(", ")")
        elif k == "{":
            self.group("{", "}")
        elif k == "[":
            self.group("[", "]")
        else:
            raise self.fail("expected an operand")

    def reference(self) -> None:
        self.i += 1
        while True:
            if self.kind() == "[":
                self.group("[", "]")
            elif self.kind() == "." and self.i + 1 < len(self.toks) and self.toks[self.i + 1].kind == ID:
                self.i += 2
            else:
                break
        if self.kind() == "(":
            self.group("(", ")")

    def group(self, open_: str, close: str) -> None:
        """A bracketed, comma/semicolon separated list of (possibly named) expressions."""
        self.i += 1
        if self.kind() == close:
            self.i += 1
            return
        while True:
            if self.kind() == ID and self.i + 1 < len(self.toks) and self.toks[self.i + 1].kind == "=":
                self.i += 2
            self.expr()
            if self.word() == "for":  # a reduction / comprehension: skip its iterators
                depth = 0
                while self.kind() != "EOF" and not (depth == 0 and self.kind() == close):
                    depth += self.kind() in _OPEN
                    depth -= self.kind() in (")", "}", "]")
                    self.i += 1
            if self.kind() in (",", ";"):
                self.i += 1
                continue
            break
        if self.kind() != close:
            raise self.fail(f"expected '{close}'")
        self.i += 1
