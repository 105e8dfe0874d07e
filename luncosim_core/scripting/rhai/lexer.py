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
            while self.pos < n and src[self.pos] != "\n":
                self.pos += 1
        while True:
            # skip whitespace and comments
            while self.pos < n:
                c = src[self.pos]
                if c == "\n":
                    self._newline()
                    self.pos += 1
                elif c in " \t\r\f\v\ufeff":
                    self.pos += 1
                elif c == "/" and src.startswith("//", self.pos):
                    while self.pos < n and src[self.pos] != "\n":
                        self.pos += 1
                elif c == "/" and src.startswith("/*", self.pos):
                    self._block_comment()
                else:
                    break
            if self.pos >= n:
                if stop_at_brace:
                    raise self.error("Unterminated ${ ... } in string interpolation")
                toks.append(("eof", None, self.line, self.col()))
                return toks
            c = src[self.pos]
            line, col = self.line, self.col()
            if c in _IDENT_START or (c.isalpha() and not c.isascii()):
                start = self.pos
                while self.pos < n and (src[self.pos] in _IDENT_CHARS or
                                        (not src[self.pos].isascii() and src[self.pos].isalnum())):
                    self.pos += 1
                toks.append(("ident", src[start:self.pos], line, col))
            elif c in _DIGITS:
                toks.append(self._number(line, col))
            elif c == '"':
                self.pos += 1
                toks.append(("str", self._string('"', line, col), line, col))
            elif c == "'":
                self.pos += 1
                s = self._string("'", line, col)
                if len(s) != 1:
                    raise self.error("Invalid character literal: must hold exactly one character",
                                     line, col)
                toks.append(("char", s, line, col))
            elif c == "`":
                self.pos += 1
                toks.append(("istr", self._backtick(line, col), line, col))
            elif c == "#" and self.pos + 1 < n and src[self.pos + 1] in '#"':
                toks.append(("str", self._raw_string(line, col), line, col))
            else:
                op = None
                if src.startswith(_OPS3, self.pos):
                    op = src[self.pos:self.pos + 3]
                elif src[self.pos:self.pos + 2] in _OPS2:
                    op = src[self.pos:self.pos + 2]
                elif c in _OPS1:
                    op = c
                if op is None:
                    raise self.error(f"Unexpected character '{c}'")
                self.pos += len(op)
                if stop_at_brace:
                    if op in ("{", "#{"):
                        depth += 1
                    elif op == "}":
                        if depth == 0:
                            toks.append(("eof", "}", line, col))
                            return toks
                        depth -= 1
                toks.append(("op", op, line, col))

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
        src, n = self.src, len(self.src)
        start = self.pos
        if src[self.pos] == "0" and self.pos + 1 < n and src[self.pos + 1] in "xXoObB":
            base = {"x": 16, "o": 8, "b": 2}[src[self.pos + 1].lower()]
            self.pos += 2
            valid = "0123456789abcdefABCDEF_" if base == 16 else ("01234567_" if base == 8
                                                                 else "01_")
            while self.pos < n and src[self.pos] in valid:
                self.pos += 1
            text = src[start + 2:self.pos].replace("_", "")
            if not text:
                raise self.error(f"Invalid number literal: {src[start:self.pos]}", line, col)
            v = int(text, base)
            if v > I64_MAX:
                if v < 2**64:  # bit pattern of a negative i64
                    v -= 2**64
                else:
                    raise self.error(f"Integer literal too large: {src[start:self.pos]}", line, col)
            return ("int", v, line, col)
        while self.pos < n and (src[self.pos] in _DIGITS or src[self.pos] == "_"):
            self.pos += 1
        is_float = False
        if self.pos + 1 < n and src[self.pos] == "." and src[self.pos + 1] in _DIGITS:
            is_float = True
            self.pos += 1
            while self.pos < n and (src[self.pos] in _DIGITS or src[self.pos] == "_"):
                self.pos += 1
        elif self.pos + 1 < n and src[self.pos] == "." and _ends_float(src[self.pos + 1]):
            self.pos += 1  # `1.` is a float when what follows cannot start a property name
            return ("float", float(src[start:self.pos - 1].replace("_", "")), line, col)
        if self.pos < n and src[self.pos] in "eE":
            p = self.pos + 1
            if p < n and src[p] in "+-":
                p += 1
            if p < n and src[p] in _DIGITS:
                is_float = True
                self.pos = p
                while self.pos < n and src[self.pos] in _DIGITS:
                    self.pos += 1
        text = src[start:self.pos].replace("_", "")
        if is_float:
            return ("float", float(text), line, col)
        v = int(text)
        if v == I64_MAX + 1:  # only valid after a minus: `-9223372036854775808` (the parser)
            return ("int", v, line, col)
        if v > I64_MAX:
            raise self.error(f"Integer literal too large: {src[start:self.pos]}", line, col)
        return ("int", v, line, col)

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
    """After ``1.``: the period belongs to the number unless a name, ``_`` or ``.`` follows."""
    return c not in _IDENT_START and c != "." and not (c.isalpha() and not c.isascii())


def tokenize(src: str, file: str = "") -> list[Token]:
    """Tokens of a whole script."""
    return Lexer(src, file).tokenize()
