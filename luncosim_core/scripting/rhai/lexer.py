"""Hand-written Rhai tokenizer.

A token is a tuple ``(kind, value, line, col)``; kinds: ``int``, ``float``, ``str``, ``char``,
``istr`` (a backtick string: value is a list of parts, each a ``str`` or a list of tokens of an
``${...}`` block), ``ident``, ``op`` (punctuation/operator) and ``eof``.
"""

from __future__ import annotations

from .errors import RhaiSyntaxError
from .values import I64_MAX

Token = tuple

_OPS3 = ("..=", "**=", "<<=", ">>=", "??=")
_OPS2 = (
    "::", "..", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=", "**", "<<", ">>", "??", "?.", "?[", "#{", "->",
)
_OPS1 = set("+-*/%=<>!&|^()[]{},;:.?#@$~")
_IDENT_START = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | set("0123456789")
_DIGITS = set("0123456789")
_HEX = "0123456789abcdefABCDEF_"
_RADIX = {"x": (16, _HEX), "X": (16, _HEX), "o": (8, "01234567_"), "O": (8, "01234567_"),
          "b": (2, "01_"), "B": (2, "01_")}
_SIMPLE_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


class Lexer:
    """Tokenizes Rhai source text; errors are :class:`RhaiSyntaxError` with line/column."""

    def __init__(self, src: str, file: str = "", line: int = 1, col: int = 1) -> None:
        self.src = src
        self.file = file
        self.pos = 0
        self.line = line
        self.line_start = -(col - 1)  # so that col() == col at pos 0

    def error(self, msg: str, line: int | None = None, col: int | None = None) -> RhaiSyntaxError:
        return RhaiSyntaxError(
            msg, self.file, self.line if line is None else line, self.col() if col is None else col
        )

    def col(self) -> int:
        return self.pos - self.line_start + 1

    def _newline(self) -> None:
        self.line += 1
        self.line_start = self.pos + 1

    def tokenize(self, stop_at_brace: bool = False) -> list[Token]:
        """All tokens up to the end (or, with ``stop_at_brace``, up to the unmatched ``}``,
        which is consumed and not returned)."""
        src = self.src
        n = len(src)
        toks: list[Token] = []
        depth = 0
        if self.pos == 0 and src.startswith("#!"):
            self._skip_line()
        while True:
            self._skip_space()
            if self.pos >= n:
                if stop_at_brace:
                    raise self.error("Unterminated ${ ... } in string interpolation")
                toks.append(("eof", None, self.line, self.col()))
                return toks
            c = src[self.pos]
            line, col = self.line, self.col()
            if c in _IDENT_START:
                tok = self._ident(line, col)
            elif c in _DIGITS:
                tok = self._number(line, col)
            else:
                reader = _READERS.get(c)
                tok = reader(self, line, col) if reader is not None else None
                if tok is None:
                    tok = self._op(c, line, col)
                    if stop_at_brace:
                        depth = _brace_depth(tok[1], depth)
                        if depth < 0:
                            toks.append(("eof", "}", line, col))
                            return toks
            toks.append(tok)

    def _skip_line(self) -> None:
        src, n = self.src, len(self.src)
        while self.pos < n and src[self.pos] != "\n":
            self.pos += 1

    def _skip_space(self) -> None:
        """Whitespace and comments."""
        src, n = self.src, len(self.src)
        while self.pos < n:
            c = src[self.pos]
            if c == "\n":
                self._newline()
                self.pos += 1
            elif c in " \t\r\f\v\ufeff":
                self.pos += 1
            elif c == "/" and src.startswith("//", self.pos):
                self._skip_line()
            elif c == "/" and src.startswith("/*", self.pos):
                self._block_comment()
            else:
                return

    def _ident(self, line: int, col: int) -> Token:
        """A name: ASCII letters, digits and ``_`` (as Rhai's default build, without the
        ``unicode-xid-ident`` feature, allows)."""
        src, n = self.src, len(self.src)
        start = self.pos
        while self.pos < n and src[self.pos] in _IDENT_CHARS:
            self.pos += 1
        return ("ident", src[start:self.pos], line, col)

    def _op(self, c: str, line: int, col: int) -> Token:
        src = self.src
        if src.startswith(_OPS3, self.pos):
            op = src[self.pos:self.pos + 3]
        elif src[self.pos:self.pos + 2] in _OPS2:
            op = src[self.pos:self.pos + 2]
        elif c in _OPS1:
            op = c
        else:
            raise self.error(f"Unexpected '{c}'")
        self.pos += len(op)
        return ("op", op, line, col)

    def _dquote(self, line: int, col: int) -> Token:
        self.pos += 1
        return ("str", self._string('"', line, col), line, col)

    def _squote(self, line: int, col: int) -> Token:
        self.pos += 1
        s = self._string("'", line, col)
        if len(s) != 1:
            raise self.error("Invalid character literal: must hold exactly one character",
                             line, col)
        return ("char", s, line, col)

    def _btick(self, line: int, col: int) -> Token:
        self.pos += 1
        return ("istr", self._backtick(line, col), line, col)

    def _hash(self, line: int, col: int) -> Token | None:
        """``#"..."#`` is a raw string; any other ``#`` is an operator (``#{``)."""
        src = self.src
        if self.pos + 1 < len(src) and src[self.pos + 1] in '#"':
            return ("str", self._raw_string(line, col), line, col)
        return None

    def _block_comment(self) -> None:
        src, n = self.src, len(self.src)
        line, col = self.line, self.col()
        self.pos += 2
        depth = 1
        while self.pos < n:
            if src.startswith("/*", self.pos):
                depth += 1
                self.pos += 2
            elif src.startswith("*/", self.pos):
                depth -= 1
                self.pos += 2
                if depth == 0:
                    return
            else:
                if src[self.pos] == "\n":
                    self._newline()
                self.pos += 1
        raise self.error("Unterminated comment", line, col)

    def _number(self, line: int, col: int) -> Token:
        src = self.src
        if src[self.pos] == "0" and src[self.pos + 1:self.pos + 2] in _RADIX:
            return self._radix_number(line, col)
        start = self.pos
        self._digits()
        is_float = False
        if src[self.pos:self.pos + 1] == "." and src[self.pos + 1:self.pos + 2] in _DIGITS:
            is_float = True
            self.pos += 1
            self._digits()
        elif src[self.pos:self.pos + 1] == "." and _ends_float(src[self.pos + 1:self.pos + 2]):
            self.pos += 1  # `1.` is a float when what follows cannot start a property name
            return ("float", float(src[start:self.pos - 1].replace("_", "")), line, col)
        is_float = self._exponent() or is_float
        text = src[start:self.pos].replace("_", "")
        if is_float:
            return ("float", float(text), line, col)
        v = int(text)
        if v > I64_MAX + 1:  # too large for an integer: a float, as Rhai reads it
            return ("float", float(v), line, col)
        # `9223372036854775808` is i64's minimum after a minus (the parser), else a float
        return ("int", v, line, col)

    def _digits(self) -> None:
        src, n = self.src, len(self.src)
        while self.pos < n and (src[self.pos] in _DIGITS or src[self.pos] == "_"):
            self.pos += 1

    def _exponent(self) -> bool:
        """``e10``, ``E-3`` after the digits (only when a digit follows)."""
        src, n = self.src, len(self.src)
        if self.pos >= n or src[self.pos] not in "eE":
            return False
        p = self.pos + 1
        if p < n and src[p] in "+-":
            p += 1
        if p >= n or src[p] not in _DIGITS:
            return False
        self.pos = p
        while self.pos < n and src[self.pos] in _DIGITS:
            self.pos += 1
        return True

    def _radix_number(self, line: int, col: int) -> Token:
        """``0x``/``0o``/``0b``: read as an unsigned 64-bit pattern (``0xffffffffffffffff``
        is -1), as Rhai does; more than 64 bits is an error."""
        src, n = self.src, len(self.src)
        start = self.pos
        base, valid = _RADIX[src[self.pos + 1]]
        self.pos += 2
        while self.pos < n and src[self.pos] in valid:
            self.pos += 1
        text = src[start + 2:self.pos].replace("_", "")
        if not text:
            raise self.error(f"Invalid number literal: {src[start:self.pos]}", line, col)
        v = int(text, base)
        if v >= 2**64:
            raise self.error(f"Integer literal too large: {src[start:self.pos]}", line, col)
        return ("int", v - 2**64 if v > I64_MAX else v, line, col)

    def _escape(self, line: int, col: int) -> str:
        """After a backslash: decode one escape sequence."""
        src, n = self.src, len(self.src)
        if self.pos >= n:
            raise self.error("Unterminated string", line, col)
        e = src[self.pos]
        if e in _SIMPLE_ESC:
            self.pos += 1
            return _SIMPLE_ESC[e]
        width = {"x": 2, "u": 4, "U": 8}.get(e)
        if width is None:
            raise self.error(f"Invalid escape sequence: \\{e}")
        self.pos += 1
        if e == "u" and self.pos < n and src[self.pos] == "{":
            end = src.find("}", self.pos)
            hexs = src[self.pos + 1:end] if end > 0 else ""
            self.pos = end + 1 if end > 0 else n
        else:
            hexs = src[self.pos:self.pos + width]
            self.pos += width
        try:
            return chr(int(hexs, 16))
        except ValueError:
            raise self.error(f"Invalid escape sequence: \\{e}{hexs}") from None

    def _string(self, quote: str, line: int, col: int) -> str:
        src, n = self.src, len(self.src)
        out: list[str] = []
        while True:
            if self.pos >= n:
                raise self.error("Unterminated string", line, col)
            c = src[self.pos]
            if c == quote:
                self.pos += 1
                if self.pos < n and src[self.pos] == quote:  # a doubled quote is one quote
                    self.pos += 1
                    out.append(quote)
                    continue
                return "".join(out)
            if c == "\\":
                self.pos += 1
                if self.pos < n and src[self.pos] in "\r\n":
                    self._continue_line(col)
                    continue
                out.append(self._escape(line, col))
                continue
            if c == "\n":
                raise self.error("Unterminated string", line, col)
            out.append(c)
            self.pos += 1

    def _continue_line(self, quote_col: int) -> None:
        """A backslash at the end of a line: skip the newline and, as Rhai does, the next
        line's whitespace up to the column of the opening quote (the rest is kept)."""
        src, n = self.src, len(self.src)
        if src[self.pos] == "\r":
            self.pos += 1
        if self.pos < n and src[self.pos] == "\n":
            self._newline()
            self.pos += 1
        while self.pos < n and src[self.pos] in " \t" and self.col() <= quote_col:
            self.pos += 1

    def _raw_string(self, line: int, col: int) -> str:
        src, n = self.src, len(self.src)
        hashes = 0
        while self.pos < n and src[self.pos] == "#":
            hashes += 1
            self.pos += 1
        if self.pos >= n or src[self.pos] != '"':
            raise self.error("Invalid raw string: expected '\"' after '#'", line, col)
        self.pos += 1
        close = '"' + "#" * hashes
        end = src.find(close, self.pos)
        if end < 0:
            raise self.error("Unterminated raw string", line, col)
        text = src[self.pos:end]
        for ch in text:
            if ch == "\n":
                self.line += 1
        nl = text.rfind("\n")
        self.pos = end + len(close)
        if nl >= 0:
            self.line_start = self.pos - len(close) - (len(text) - nl - 1)
        return text

    def _backtick(self, line: int, col: int) -> list:
        src, n = self.src, len(self.src)
        parts: list = []
        buf: list[str] = []
        for lead in ("\r\n", "\n", "\r"):  # a newline right after the backtick is dropped
            if src.startswith(lead, self.pos):
                self.pos += len(lead)
                self._newline()
                self.line_start = self.pos
                break
        while True:
            if self.pos >= n:
                raise self.error("Unterminated string", line, col)
            c = src[self.pos]
            if c == "`":
                if src.startswith("``", self.pos):
                    buf.append("`")
                    self.pos += 2
                    continue
                self.pos += 1
                if buf or not parts:
                    parts.append("".join(buf))
                return parts
            if c == "$" and src.startswith("${", self.pos):
                if buf:
                    parts.append("".join(buf))
                    buf = []
                self.pos += 2
                parts.append(self.tokenize(stop_at_brace=True))
                continue
            if c == "\n":
                self._newline()
            if c != "\r" or not src.startswith("\r\n", self.pos):  # CR LF reads as LF
                buf.append(c)
            self.pos += 1


def _ends_float(c: str) -> bool:
    """After ``1.``: the period belongs to the number unless a name, ``_``, ``.`` or nothing
    follows."""
    return c != "" and c not in _IDENT_START and c != "."


def _brace_depth(op: str, depth: int) -> int:
    """Nesting inside ``${ ... }``: -1 when ``op`` is the closing brace."""
    if op in ("{", "#{"):
        return depth + 1
    if op == "}":
        return depth - 1
    return depth


_READERS = {'"': Lexer._dquote, "'": Lexer._squote, "`": Lexer._btick, "#": Lexer._hash}


def tokenize(src: str, file: str = "") -> list[Token]:
    """Tokens of a whole script."""
    return Lexer(src, file).tokenize()
