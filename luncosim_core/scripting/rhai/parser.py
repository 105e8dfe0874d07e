"""Pratt parser: Rhai tokens -> :class:`~.ast.Script`.

Binary precedences follow the Rhai reference (lowest first): ``|| | ^`` 30, ``&& &`` 60,
``== !=`` 90, ``in !in`` 110, ``< <= > >=`` 130, ``??`` 135, ``.. ..=`` 140, ``+ -`` 150,
``* / %`` 180, ``**`` 190 (right-assoc), ``<< >>`` 210; unary and postfix bind tighter.
"""

from __future__ import annotations

from typing import Any

from .ast import FnDef, Node, Script
from .errors import RhaiSyntaxError
from .lexer import Lexer, Token
from .values import I64_MAX, Char, Unit

BINARY_PREC: dict[str, int] = {
    "||": 30, "|": 30, "^": 30,
    "&&": 60, "&": 60,
    "==": 90, "!=": 90,
    "in": 110, "!in": 110,
    "<": 130, "<=": 130, ">": 130, ">=": 130,
    "??": 135,
    "..": 140, "..=": 140,
    "+": 150, "-": 150,
    "*": 180, "/": 180, "%": 180,
    "**": 190,
    "<<": 210, ">>": 210,
}
ASSIGN_OPS = frozenset(
    ("=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", "&=", "|=", "^=", "??=")
)
KEYWORDS = frozenset((
    "let", "const", "if", "else", "switch", "do", "while", "until", "loop", "for", "in",
    "continue", "break", "return", "throw", "try", "catch", "fn", "private", "import",
    "export", "as", "true", "false", "this", "global",
))
RESERVED = frozenset(("var", "static", "shared", "goto", "exit", "match", "case", "public",
                      "protected", "new", "use", "with", "module", "package", "super",
                      "thread", "spawn", "go", "sync", "async", "await", "yield", "default",
                      "void", "null", "nil"))
_BLOCK_STMTS = frozenset(("if", "while", "loop", "do", "for", "switch", "try", "block", "fn"))


class Parser:
    """Parses one script. ``max_expr_depth`` limits nesting (0 = unlimited)."""

    def __init__(self, src: str, file: str = "", max_expr_depth: int = 0) -> None:
        self.file = file
        self.toks = Lexer(src, file).tokenize()
        self.i = 0
        self.max_depth = max_expr_depth
        self.depth = 0
        self.fns: list[FnDef] = []
        self.fn_depth = 0

    # ── token helpers ──────────────────────────────────────────────────────────────────
    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        t = self.toks[self.i]
        if t[0] != "eof":
            self.i += 1
        return t

    def is_op(self, op: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t[0] == "op" and t[1] == op

    def is_kw(self, kw: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t[0] == "ident" and t[1] == kw

    def error(self, msg: str, tok: Token | None = None) -> RhaiSyntaxError:
        t = tok or self.peek()
        return RhaiSyntaxError(msg, self.file, t[2], t[3])

    @staticmethod
    def describe(t: Token) -> str:
        if t[0] == "eof":
            return "'}'" if t[1] == "}" else "end of script"
        if t[0] == "str":
            return f'string "{t[1]}"'
        return f"'{t[1]}'"

    def expect_op(self, op: str, ctx: str = "") -> Token:
        t = self.peek()
        if t[0] == "op" and t[1] == op:
            return self.next()
        where = f" {ctx}" if ctx else ""
        raise self.error(f"Expecting '{op}'{where}, found {self.describe(t)}")

    def expect_ident(self, what: str = "a name") -> Token:
        t = self.peek()
        if t[0] != "ident" or t[1] in KEYWORDS:
            raise self.error(f"Expecting {what}, found {self.describe(t)}")
        if t[1] in RESERVED:
            raise self.error(f"'{t[1]}' is a reserved keyword")
        return self.next()

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.max_depth and self.depth > self.max_depth:
            raise self.error("Expression exceeds maximum complexity", tok)

    # ── script and statements ──────────────────────────────────────────────────────────
    def parse_script(self) -> Script:
        stmts = self.parse_stmts(top=True)
        t = self.peek()
        if t[0] != "eof":
            raise self.error(f"Unexpected {self.describe(t)}")
        return Script(stmts, self.fns, self.file)

    def parse_stmts(self, top: bool = False) -> list[Node]:
        """Statements up to '}' or end of input (not consumed)."""
        stmts: list[Node] = []
        while True:
            t = self.peek()
            if t[0] == "eof" or (t[0] == "op" and t[1] == "}"):
                return stmts
            if t[0] == "op" and t[1] == ";":
                self.next()
                continue
            st = self.parse_stmt(top)
            inline = self._literal_eval(st, top)
            if inline is not None:
                stmts.extend(inline)
            elif st is not None:
                stmts.append(st)
            t = self.peek()
            if t[0] == "op" and t[1] == ";":
                self.next()
                continue
            if t[0] == "eof" or (t[0] == "op" and t[1] == "}"):
                return stmts
            if st is None or st.k in _BLOCK_STMTS or (st.k == "expr" and st.e.k in _BLOCK_STMTS):
                continue
            if st.k == "let" and st.e is not None and st.e.k in ("block", "if", "switch", "closure"):
                continue  # a value ending in '}' reads fine without ';'
            if st.k == "assign" and st.value.k in ("if", "switch", "block", "closure"):
                continue
            raise self.error(f"Expecting ';' to terminate this statement, found {self.describe(t)}")

    def parse_stmt(self, top: bool) -> Node | None:
        t = self.peek()
        if t[0] == "ident":
            m = _STMT_KEYWORDS.get(t[1])
            if m is not None:
                return m(self, t, top)
        if t[0] == "op" and t[1] == "{":
            e = self.parse_block()
            return Node("expr", e.line, e.col, e=e)
        e = self.parse_expr()
        nt = self.peek()
        if nt[0] == "op" and nt[1] in ASSIGN_OPS:
            self.next()
            if not _assignable(e):
                raise self.error("Cannot assign to this expression", nt)
            value = self.parse_expr()
            return Node("assign", nt[2], nt[3], op=nt[1], target=e, value=value)
        return Node("expr", e.line, e.col, e=e)

    def _stmt_let(self, t: Token, top: bool) -> Node:
        return self.parse_let()

    def _stmt_fn(self, t: Token, top: bool) -> None:
        if not top or self.fn_depth:
            raise self.error("Functions can only be defined at global level")
        self.parse_fn()
        return None

    def _stmt_private(self, t: Token, top: bool) -> Node | None:
        if self.is_kw("fn", 1):
            return self._stmt_fn(t, top)
        return self._stmt_plain(t, top)

    def _stmt_import(self, t: Token, top: bool) -> Node:
        return self.parse_import()

    def _stmt_export(self, t: Token, top: bool) -> Node:
        if not top:
            raise self.error("Export statement can only appear at global level")
        return self.parse_export()

    def _stmt_valued(self, t: Token, top: bool) -> Node:
        """``break [value]``, ``return [value]``, ``throw [value]``."""
        self.next()
        val = None if self._at_stmt_end() else self.parse_expr()
        return Node(t[1], t[2], t[3], e=val)

    def _stmt_continue(self, t: Token, top: bool) -> Node:
        self.next()
        return Node("continue", t[2], t[3])

    def _stmt_control(self, t: Token, top: bool) -> Node:
        """A control-flow statement ends at its closing brace: no postfix/binary tail."""
        e = self.parse_primary()
        return Node("expr", e.line, e.col, e=e)

    def _stmt_plain(self, t: Token, top: bool) -> Node | None:
        """``private`` not followed by ``fn``: parsed as an expression (and rejected there)."""
        e = self.parse_expr()
        return Node("expr", e.line, e.col, e=e)

    def _literal_eval(self, st: Node | None, top: bool) -> list[Node] | None:
        """``eval("literal");`` as a statement runs in the caller's scope, so its ``let``s
        shadow the block's variables as in Rhai: its statements are parsed in place."""
        if st is None or st.k != "expr" or st.e.k != "call" or st.e.name != "eval" or \
                st.e.ns or len(st.e.args) != 1 or st.e.args[0].k != "lit" or \
                type(st.e.args[0].value) is not str:
            return None
        lit = st.e.args[0]
        sub = Parser.__new__(Parser)
        sub.file, sub.i, sub.max_depth, sub.depth = self.file, 0, self.max_depth, self.depth
        sub.toks = Lexer(lit.value, self.file, lit.line, lit.col + 1).tokenize()
        sub.fns, sub.fn_depth = self.fns, self.fn_depth
        stmts = sub.parse_stmts(top)
        if sub.peek()[0] != "eof":
            raise sub.error(f"Unexpected {sub.describe(sub.peek())} in eval")
        return stmts

    def _at_stmt_end(self) -> bool:
        t = self.peek()
        return t[0] == "eof" or (t[0] == "op" and t[1] in (";", "}"))

    def parse_let(self) -> Node:
        t = self.next()
        name = self.expect_ident("a variable name")
        e = None
        if self.is_op("="):
            self.next()
            e = self.parse_expr()
        elif t[1] == "const":
            raise self.error("Expecting '=' after constant name")
        return Node("let", name[2], name[3], name=name[1], e=e, const=t[1] == "const",
                    export=False)

    def parse_import(self) -> Node:
        t = self.next()
        path = self.parse_expr()
        alias = None
        if self.is_kw("as"):
            self.next()
            alias = self.expect_ident("a module alias")[1]
        return Node("import", t[2], t[3], path=path, alias=alias)

    def parse_export(self) -> Node:
        t = self.next()
        if self.is_kw("let") or self.is_kw("const"):
            st = self.parse_let()
            st.export = True
            st.export_as = st.name
            return st
        names = []
        while True:
            n = self.expect_ident("a variable name to export")
            alias = n[1]
            if self.is_kw("as"):
                self.next()
                alias = self.expect_ident("an export alias")[1]
            names.append((n[1], alias))
            if not self.is_op(","):
                break
            self.next()
        return Node("export", t[2], t[3], names=names)

    def parse_fn(self) -> None:
        private = False
        if self.is_kw("private"):
            private = True
            self.next()
        fn_tok = self.next()
        this_type = None
        t = self.peek()
        if t[0] == "str" and self.is_op(".", 1):
            this_type = t[1]
            self.i += 2
        elif t[0] == "ident" and self.is_op(".", 1):
            this_type = _TYPE_ALIASES.get(t[1], t[1])
            self.i += 2
        name = self.expect_ident("a function name")
        self.expect_op("(", "after the function name")
        params: list[str] = []
        while not self.is_op(")"):
            p = self.expect_ident("a parameter name")
            if p[1] in params:
                raise self.error(f"Duplicated parameter: {p[1]}", p)
            params.append(p[1])
            if self.is_op(","):
                self.next()
            elif not self.is_op(")"):
                raise self.error(f"Expecting ',' or ')' in the parameter list, found "
                                 f"{self.describe(self.peek())}")
        self.next()
        if not self.is_op("{"):
            raise self.error("Expecting '{' to start the function body")
        self.fn_depth += 1
        body = self.parse_block()
        self.fn_depth -= 1
        for f in self.fns:
            if f.name == name[1] and len(f.params) == len(params) and f.this_type == this_type:
                raise self.error(f"Function '{name[1]}' with {len(params)} parameters is "
                                 "already defined", name)
        self.fns.append(FnDef(name[1], params, body, fn_tok[2], fn_tok[3], private, this_type))

    def parse_block(self) -> Node:
        t = self.expect_op("{")
        self.enter(t)
        stmts = self.parse_stmts()
        self.expect_op("}", "to end this block")
        self.depth -= 1
        return Node("block", t[2], t[3], stmts=stmts)

    # ── expressions ────────────────────────────────────────────────────────────────────
    def parse_expr(self, min_prec: int = 0) -> Node:
        start = self.peek()
        self.enter(start)
        left = self.parse_unary()
        while True:
            t = self.peek()
            if t[0] == "op":
                op = t[1]
                if op == "!" and self.is_kw("in", 1):
                    op = "!in"
            elif t[0] == "ident" and t[1] == "in":
                op = "in"
            else:
                break
            prec = BINARY_PREC.get(op)
            if prec is None or prec <= min_prec:
                break
            self.next()
            if op == "!in":
                self.next()
            right = self._right_operand(op, prec)
            left = self._binary(op, left, right, t)
        self.depth -= 1
        return left

    def _right_operand(self, op: str, prec: int) -> Node:
        """The right side of a binary operator; as in Rhai, a range's missing end is open
        (``2..``) and ``??`` may be followed by a statement (``x ?? break 42``)."""
        nt = self.peek()
        if op in ("..", "..=") and nt[0] in ("op", "eof") and nt[1] in _OPEN_RANGE_END:
            return Node("lit", nt[2], nt[3], value=I64_MAX)
        if op == "??" and nt[0] == "ident" and nt[1] in ("break", "continue", "return", "throw"):
            stmt = self.parse_stmt(False)
            return Node("block", nt[2], nt[3], stmts=[stmt])
        return self.parse_expr(prec - 1 if op == "**" else prec)

    @staticmethod
    def _binary(op: str, left: Node, right: Node, t: Token) -> Node:
        if op == "&&":
            return Node("and", t[2], t[3], l=left, r=right)
        if op == "||":
            return Node("or", t[2], t[3], l=left, r=right)
        if op == "??":
            return Node("coalesce", t[2], t[3], l=left, r=right)
        if op in ("..", "..="):
            return Node("range", t[2], t[3], l=left, r=right, inclusive=op == "..=")
        if op in ("in", "!in"):
            return Node("in", t[2], t[3], l=left, r=right, negate=op == "!in")
        return Node("binary", t[2], t[3], op=op, l=left, r=right)

    def parse_unary(self) -> Node:
        t = self.peek()
        if t[0] != "op" or t[1] not in ("..", "..=", "-", "+", "!"):
            return self.parse_postfix(self.parse_primary())
        if t[1] in ("..", "..="):  # `..2`: a range from 0, as in Rhai
            return Node("lit", t[2], t[3], value=0)
        nt = self.peek(1)
        if t[1] == "-" and nt[0] == "int" and nt[1] == I64_MAX + 1 and nt[2] == t[2] and \
                nt[3] == t[3] + 1:  # `-9223372036854775808`, one token in Rhai: i64's minimum
            self.next()
            self.next()
            return Node("lit", t[2], t[3], value=-I64_MAX - 1)
        self.next()
        self.enter(t)
        operand = self.parse_unary()
        self.depth -= 1
        if t[1] == "-" and operand.k == "lit" and type(operand.value) in (int, float) \
                and operand.line == t[2]:
            return Node("lit", t[2], t[3], value=_negate_literal(operand.value))
        return Node("unary", t[2], t[3], op=t[1], e=operand)

    def parse_postfix(self, e: Node) -> Node:
        chain_safe = False  # after `?.`/`?[` the rest of the chain short-circuits on ()
        while True:
            t = self.peek()
            if t[0] != "op":
                return e
            op = t[1]
            if op in ("?.", "?["):
                chain_safe = True
            elif chain_safe and op in (".", "["):
                op = "?" + op
            if op in (".", "?."):
                self.next()
                name = self.peek()
                if name[0] != "ident":
                    raise self.error(f"Expecting a property or method name after '{op}', "
                                     f"found {self.describe(name)}")
                self.next()
                if self.is_op("(") and self.peek()[2] == name[2]:
                    args = self.parse_args()
                    e = Node("method", name[2], name[3], obj=e, name=name[1], args=args,
                             safe=op == "?.")
                else:
                    e = Node("prop", name[2], name[3], obj=e, name=name[1], safe=op == "?.")
            elif op in ("[", "?["):
                self.next()
                idx = self.parse_expr()
                _check_literal_index(self, e, idx)
                self.expect_op("]", "to close the index")
                e = Node("index", t[2], t[3], obj=e, idx=idx, safe=op == "?[")
            elif op == "(" and e.k == "closure":
                args = self.parse_args()
                e = Node("method", t[2], t[3], obj=e, name="call", args=args, safe=False)
            else:
                return e

    def parse_args(self) -> list[Node]:
        self.expect_op("(")
        args: list[Node] = []
        while not self.is_op(")"):
            args.append(self.parse_expr())
            if self.is_op(","):
                self.next()
            elif not self.is_op(")"):
                raise self.error(f"Expecting ',' or ')' in the argument list, found "
                                 f"{self.describe(self.peek())}")
        self.next()
        return args

    def parse_primary(self) -> Node:
        t = self.peek()
        return _PRIMARY[t[0]](self, t)

    def _p_number(self, t: Token) -> Node:
        self.next()
        v = t[1]
        if type(v) is int and v > I64_MAX:  # `9223372036854775808` without a minus: a float
            v = float(v)
        return Node("lit", t[2], t[3], value=v)

    def _p_str(self, t: Token) -> Node:
        self.next()
        return Node("lit", t[2], t[3], value=t[1])

    def _p_char(self, t: Token) -> Node:
        self.next()
        return Node("lit", t[2], t[3], value=Char(t[1]))

    def _p_istr(self, t: Token) -> Node:
        self.next()
        line, col = t[2], t[3]
        parts: list[Any] = []
        for p in t[1]:
            if isinstance(p, str):
                parts.append(p)
                continue
            sub = Parser.__new__(Parser)
            sub.file, sub.toks, sub.i = self.file, p, 0
            sub.max_depth, sub.depth, sub.fns, sub.fn_depth = self.max_depth, self.depth, \
                self.fns, 1
            stmts = sub.parse_stmts()
            if sub.peek()[0] != "eof":
                raise sub.error(f"Unexpected {sub.describe(sub.peek())} in ${{...}}")
            parts.append(Node("block", line, col, stmts=stmts))
        return Node("istr", line, col, parts=parts)

    def _p_eof(self, t: Token) -> Node:
        if t[1] == "}":
            raise self.error("Unexpected '}' in ${...}")
        raise self.error("Script is incomplete: unexpected end of script")

    def _p_op(self, t: Token) -> Node:
        m = _PRIMARY_OPS.get(t[1])
        if m is None:
            raise self.error(f"Unexpected {self.describe(t)}")
        return m(self)

    def _p_paren(self) -> Node:
        t = self.next()
        nt = self.peek()
        if self.is_op(")") and nt[2] == t[2] and nt[3] == t[3] + 1:  # `()`, not `( )`
            self.next()
            return Node("lit", t[2], t[3], value=Unit)
        e = self.parse_expr()
        self.expect_op(")", "to close the parenthesis")
        return e

    def _p_array(self) -> Node:
        t = self.next()
        items = []
        while not self.is_op("]"):
            items.append(self.parse_expr())
            if self.is_op(","):
                self.next()
            elif not self.is_op("]"):
                raise self.error(f"Expecting ',' or ']' in the array literal, found "
                                 f"{self.describe(self.peek())}")
        self.next()
        return Node("array", t[2], t[3], items=items)

    def _p_ident(self, t: Token) -> Node:
        val = t[1]
        m = _PRIMARY_KEYWORDS.get(val)
        if m is not None:
            return m(self, t)
        if val in KEYWORDS and val != "global":
            raise self.error(f"Unexpected keyword '{val}'")
        if val in RESERVED:
            raise self.error(f"'{val}' is a reserved keyword")
        self.next()
        if self.is_op("::"):
            return self._p_path(t)
        if val == "global":
            raise self.error("Expecting '::' after 'global'")
        if self.is_op("(") and self.peek()[2] == t[2]:
            return Node("call", t[2], t[3], name=val, args=self.parse_args(), ns=None)
        if self.is_op("!") and self.is_op("(", 1):
            self.next()
            return Node("call", t[2], t[3], name=val, args=self.parse_args(), ns=None,
                        bang=True)
        return Node("var", t[2], t[3], name=val)

    def _p_path(self, t: Token) -> Node:
        """``a::b::name`` (a module variable) or ``a::b::name(args)``."""
        ns = [t[1]]
        while self.is_op("::"):
            self.next()
            ns.append(self.expect_ident("a name after '::'")[1])
        name = ns.pop()
        if self.is_op("(") and self.peek()[2] == t[2]:
            return Node("call", t[2], t[3], name=name, args=self.parse_args(), ns=ns)
        return Node("path", t[2], t[3], ns=ns, name=name)

    def _p_bool(self, t: Token) -> Node:
        self.next()
        return Node("lit", t[2], t[3], value=t[1] == "true")

    def _p_this(self, t: Token) -> Node:
        self.next()
        return Node("this", t[2], t[3])

    def _p_while(self, t: Token) -> Node:
        self.next()
        cond = self.parse_expr()
        return Node("while", t[2], t[3], cond=cond, body=self.parse_block())

    def _p_loop(self, t: Token) -> Node:
        self.next()
        return Node("loop", t[2], t[3], body=self.parse_block())

    def _p_do(self, t: Token) -> Node:
        self.next()
        body = self.parse_block()
        if self.is_kw("while"):
            until = False
        elif self.is_kw("until"):
            until = True
        else:
            raise self.error("Expecting 'while' or 'until' after the 'do' block")
        self.next()
        return Node("do", t[2], t[3], body=body, cond=self.parse_expr(), until=until)

    def _p_fn(self, t: Token) -> Node:
        raise self.error("Functions can only be defined at global level")

    def parse_map(self) -> Node:
        t = self.next()
        pairs: list[tuple[str, Node]] = []
        seen: set[str] = set()
        while not self.is_op("}"):
            k = self.peek()
            if k[0] in ("ident", "str"):
                key = k[1]
            elif k[0] == "istr" and len(k[1]) == 1 and isinstance(k[1][0], str):
                key = k[1][0]  # a backtick key without interpolation
            else:
                raise self.error(f"Expecting a property name in the object map, found "
                                 f"{self.describe(k)}")
            self.next()
            if key in seen:
                raise self.error(f"Duplicated property '{key}' in object map literal", k)
            seen.add(key)
            self.expect_op(":", "after the property name")
            pairs.append((key, self.parse_expr()))
            if self.is_op(","):
                self.next()
            elif not self.is_op("}"):
                raise self.error(f"Expecting ',' or '}}' in the object map literal, found "
                                 f"{self.describe(self.peek())}")
        self.next()
        return Node("map", t[2], t[3], pairs=pairs)

    def parse_closure(self) -> Node:
        t = self.next()
        params: list[str] = []
        if t[1] == "|":
            while not self.is_op("|"):
                p = self.expect_ident("a closure parameter")
                params.append(p[1])
                if self.is_op(","):
                    self.next()
                elif not self.is_op("|"):
                    raise self.error(f"Expecting ',' or '|' in the closure parameters, found "
                                     f"{self.describe(self.peek())}")
            self.next()
        self.fn_depth += 1
        st = self.parse_stmt(False)
        self.fn_depth -= 1
        if st is None:
            raise self.error("Expecting a closure body")
        body = st.e if st.k == "expr" else Node("block", st.line, st.col, stmts=[st])
        return Node("closure", t[2], t[3], params=params, body=body)

    def parse_if(self) -> Node:
        t = self.next()
        cond = self.parse_expr()
        then = self.parse_block()
        other = None
        if self.is_kw("else"):
            self.next()
            other = self.parse_if() if self.is_kw("if") else self.parse_block()
        return Node("if", t[2], t[3], cond=cond, then=then, other=other)

    def parse_for(self) -> Node:
        t = self.next()
        idx_name = None
        if self.is_op("("):
            self.next()
            name = self.expect_ident("a loop variable")[1]
            self.expect_op(",", "between the loop variable and the counter")
            idx_name = self.expect_ident("a counter variable")[1]
            self.expect_op(")", "after the loop variables")
        else:
            name = self.expect_ident("a loop variable")[1]
        if not self.is_kw("in"):
            raise self.error(f"Expecting 'in' after the loop variable, found "
                             f"{self.describe(self.peek())}")
        self.next()
        it = self.parse_expr()
        body = self.parse_block()
        return Node("for", t[2], t[3], name=name, idx=idx_name, iter=it, body=body)

    def parse_switch(self) -> Node:
        t = self.next()
        subject = self.parse_expr()
        self.expect_op("{", "to start the switch block")
        cases: list[tuple[list[Node], Node | None, Node]] = []
        default = None
        seen_range = False
        while not self.is_op("}"):
            ct = self.peek()
            if ct[0] == "ident" and ct[1] == "_":
                self.next()
                pats: list[Node] = []
                is_default = True
            else:
                is_default = False
                pats = [self.parse_expr(30)]
                while self.is_op("|"):
                    self.next()
                    pats.append(self.parse_expr(30))
            guard = None
            if self.is_kw("if"):
                self.next()
                guard = self.parse_expr()
            self.expect_op("=>", "after the switch case")
            body = self.parse_block() if self.is_op("{") else self.parse_stmt_expr()
            if is_default:
                if guard is not None:
                    raise self.error("Default switch case cannot have a condition", ct)
                if default is not None:
                    raise self.error("Duplicated default switch case", ct)
                default = body
            else:
                if default is not None:
                    raise self.error("The default case must be the last one", ct)
                seen_range = _check_case_values(self, pats, ct, seen_range)
                cases.append((pats, guard, body))
            if self.is_op(","):
                self.next()
            elif not self.is_op("}") and body.k != "block":
                raise self.error(f"Expecting ',' or '}}' after the switch case, found "
                                 f"{self.describe(self.peek())}")
        self.next()
        return Node("switch", t[2], t[3], subject=subject, cases=cases, default=default)

    def parse_stmt_expr(self) -> Node:
        """A switch arm body that is not a block: an expression or a flow statement."""
        t = self.peek()
        if t[0] == "ident" and t[1] in ("break", "continue", "return", "throw"):
            st = self.parse_stmt(False)
            return Node("block", t[2], t[3], stmts=[st])
        return self.parse_expr()

    def parse_try(self) -> Node:
        t = self.next()
        body = self.parse_block()
        if not self.is_kw("catch"):
            raise self.error("Expecting 'catch' after the 'try' block")
        self.next()
        var = None
        if self.is_op("("):
            self.next()
            var = self.expect_ident("the error variable")[1]
            self.expect_op(")", "after the error variable")
        catch = self.parse_block()
        return Node("try", t[2], t[3], body=body, var=var, catch=catch)


_STMT_KEYWORDS = {
    "let": Parser._stmt_let, "const": Parser._stmt_let, "fn": Parser._stmt_fn,
    "private": Parser._stmt_private, "import": Parser._stmt_import,
    "export": Parser._stmt_export, "break": Parser._stmt_valued,
    "return": Parser._stmt_valued, "throw": Parser._stmt_valued,
    "continue": Parser._stmt_continue,
    **{kw: Parser._stmt_control for kw in ("if", "while", "loop", "do", "for", "switch", "try")},
}
_PRIMARY = {
    "int": Parser._p_number, "float": Parser._p_number, "str": Parser._p_str,
    "char": Parser._p_char, "istr": Parser._p_istr, "op": Parser._p_op, "eof": Parser._p_eof,
    "ident": Parser._p_ident,
}
_PRIMARY_OPS = {
    "(": Parser._p_paren, "[": Parser._p_array, "#{": Parser.parse_map,
    "{": Parser.parse_block, "|": Parser.parse_closure, "||": Parser.parse_closure,
}
_PRIMARY_KEYWORDS = {
    "true": Parser._p_bool, "false": Parser._p_bool, "this": Parser._p_this,
    "if": lambda p, t: p.parse_if(), "while": Parser._p_while, "loop": Parser._p_loop,
    "do": Parser._p_do, "for": lambda p, t: p.parse_for(),
    "switch": lambda p, t: p.parse_switch(), "try": lambda p, t: p.parse_try(),
    "fn": Parser._p_fn,
}


def _negate_literal(v: int | float) -> int | float:
    """``-literal``: as Rhai's parser, a negated integer that does not fit (the negation of
    i64's minimum) becomes a float."""
    if type(v) is int and v == -I64_MAX - 1:
        return -float(v)
    return -v


_TYPE_ALIASES = {"int": "i64", "float": "f64", "string": "string", "map": "map",
                 "array": "array"}


_OPEN_RANGE_END = ("]", ")", "}", ",", ";", "=>", None)


def _literal_kind(e: Node) -> str | None:
    """The type of a constant index expression, as Rhai's parser sees it."""
    if e.k == "lit":
        from .values import type_of
        return type_of(e.value)
    if e.k in ("and", "or") or (e.k == "unary" and e.op == "!") or e.k == "in":
        return "bool"
    return None


def _check_literal_index(p: Parser, obj: Node, idx: Node) -> None:
    """Rhai rejects at compile time an array or string literal indexed by a constant that is
    not a number, and a map literal indexed by a constant that is not a string."""
    kind = _literal_kind(idx)
    if kind is None:
        return
    is_str = obj.k == "lit" and isinstance(obj.value, str)
    if (obj.k == "array" or is_str) and kind not in ("i64", "range", "range="):
        what = "Array" if obj.k == "array" else "String"
        raise p.error(f"{what} access expects integer index, not {kind}", (0, 0, idx.line, idx.col))
    if obj.k == "map" and kind != "string":
        raise p.error(f"Object map access expects string index, not {kind}",
                      (0, 0, idx.line, idx.col))


def _check_case_values(p: Parser, pats: list[Node], ct: Token, seen_range: bool) -> bool:
    """Switch cases are constants, and (as Rhai requires) numbers come before ranges."""
    for pat in pats:
        if pat.k == "range":
            if pat.l.k != "lit" or pat.r.k != "lit":
                raise p.error("Switch case values must be constants", ct)
            seen_range = True
        elif pat.k != "lit":
            raise p.error("Switch case values must be constants", ct)
        elif seen_range and type(pat.value) in (int, float):
            raise p.error("Numeric switch case cannot follow a range case", ct)
    return seen_range


def _assignable(e: Node) -> bool:
    """A variable, ``this``, or a property/index chain on one (not on a call's result)."""
    while e.k in ("prop", "index"):
        e = e.obj
    return e.k in ("var", "this", "path")


def parse(src: str, file: str = "", max_expr_depth: int = 0) -> Script:
    """Parse a whole script (raises :class:`RhaiSyntaxError` with line and column)."""
    return Parser(src, file, max_expr_depth).parse_script()
