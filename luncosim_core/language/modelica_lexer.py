"""Modelica highlighting and folding, one line at a time (Lexilla has no Modelica lexer).

:func:`style_line` takes one line's UTF-8 bytes (end of line included) and the state the previous
line ended in, and returns one style byte per input byte, the state this line ends in, and the
fold level at the line's start and end. The state is a small int (what a container lexer keeps
per line): inside a block comment or a string, inside an ``annotation( ... )`` and how deep, and
the fold depth. So an editor restyles from the first changed line and stops at the first line
whose end state is unchanged: the lines after it keep their styles.

Styles: keywords, built-in types, strings, comments, numbers, operators, annotations (the keyword
and everything inside its parentheses but comments), built-in functions, identifiers.
Folds: a long class definition (``model X`` .. ``end X;``; a short ``type T = Real;`` does not
fold), a statement-level ``if``/``for``/``when``/``while`` .. ``end ...;``, multi-line brackets
(an annotation spread over lines), block comments.
"""

from __future__ import annotations

import re

DEFAULT, COMMENT, KEYWORD, TYPE, STRING, NUMBER, OPERATOR, ANNOTATION, IDENTIFIER, BUILTIN = range(10)
STYLE_NAMES = ("default", "comment", "keyword", "type", "string", "number", "operator", "annotation",
               "identifier", "builtin")

KEYWORDS = frozenset(b"""algorithm and annotation block break class connect connector constant constrainedby
discrete each else elseif elsewhen encapsulated end enumeration equation expandable extends external
false final flow for function if import impure in initial inner input loop model not operator or outer
output package parameter partial protected public pure record redeclare replaceable return stream then true
type when while within""".split())
TYPES = frozenset(b"Real Integer Boolean String Clock StateSelect AssertionLevel ExternalObject".split())
BUILTINS = frozenset(b"""der abs acos asin atan atan2 cat ceil change cos cosh cross delay diagonal div edge exp fill
floor homotopy identity initial integer inStream linspace log log10 max min mod ndims noEvent ones outerProduct
pre product reinit rem sample scalar semiLinear sign sin sinh size skew smooth spatialDistribution sqrt sum
symmetric tan tanh terminal terminate transpose vector zeros assert cardinality""".split())
CLASS_KINDS = frozenset(b"model block class package connector record function type operator".split())
STATEMENT_BLOCKS = frozenset(b"if for when while".split())

CODE, IN_COMMENT, IN_STRING = 0, 1, 2
_MODE_BITS, _PENDING_BIT, _DEPTH_SHIFT, _DEPTH_MASK, _LEVEL_SHIFT, _LEVEL_MASK = 0x3, 0x4, 3, 0x3F, 15, 0xFFF
_BRACKET_SHIFT = 9  # 6 bits: open brackets (a reduction's 'for' inside them is no statement)

_TOKEN = re.compile(rb"""
    (?P<ws>[ \t\r\n\f\v]+)
  | (?P<lc>//[^\r\n]*)
  | (?P<bc>/\*)
  | (?P<str>")
  | (?P<qid>'(?:\\.|[^'\\\r\n])*')
  | (?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<open>[(\[{])
  | (?P<close>[)\]}])
  | (?P<op>\.\+|\.-|\.\*|\./|\.\^|==|<>|<=|>=|:=|[-+*/^=<>:;,.])
  | (?P<other>.)
""", re.X | re.S)
_STRING_END = re.compile(rb'(?:\\.|[^"\\])*"', re.S)
_COMMENT_END = re.compile(rb".*?\*/", re.S)


def pack(mode: int, pending: bool, depth: int, level: int, brackets: int = 0) -> int:
    return (mode | (_PENDING_BIT if pending else 0) | (min(depth, _DEPTH_MASK) << _DEPTH_SHIFT)
            | (min(max(brackets, 0), _DEPTH_MASK) << _BRACKET_SHIFT)
            | (min(max(level, 0), _LEVEL_MASK) << _LEVEL_SHIFT))


def unpack(state: int) -> tuple[int, bool, int, int, int]:
    """(mode, annotation pending, annotation depth, fold level, open brackets)."""
    return (state & _MODE_BITS, bool(state & _PENDING_BIT), (state >> _DEPTH_SHIFT) & _DEPTH_MASK,
            (state >> _LEVEL_SHIFT) & _LEVEL_MASK, (state >> _BRACKET_SHIFT) & _DEPTH_MASK)


def fold_level(state: int) -> int:
    return (state >> _LEVEL_SHIFT) & _LEVEL_MASK


def style_line(line: bytes, state: int = 0) -> tuple[bytes, int]:
    """One style byte per byte of ``line`` and the state the line ends in (see the module doc)."""
    return _Line(line, state).run()


class _Line:
    """One line being styled: the lexer's state while it walks the tokens."""

    __slots__ = ("brackets", "depth", "first", "level", "line", "mode", "named", "out", "pending", "want_name")

    def __init__(self, line: bytes, state: int) -> None:
        self.mode, self.pending, self.depth, self.level, self.brackets = unpack(state)
        self.line = line
        self.out = bytearray(len(line))
        self.first = True  # the next token is the first of a statement (for if/for/when/while)
        self.want_name = False  # a class keyword was just seen: its name follows
        self.named = False  # a class keyword and its name were just seen: '=' next makes it short

    def run(self) -> tuple[bytes, int]:
        line, n = self.line, len(self.line)
        pos = self._carry_over()
        match = _TOKEN.match
        while pos < n and self.mode == CODE:
            m = match(line, pos)
            pos = self._token(m.lastgroup, m.start(), m.end(), m.group())
        if self.named:  # 'model X' at the end of its line ('"description"' or the body follows)
            self.level += 1
        return bytes(self.out), pack(self.mode, self.pending, self.depth, self.level, self.brackets)

    def _carry_over(self) -> int:
        """Finish a block comment or a string the previous line left open; where code starts."""
        if self.mode == CODE:
            return 0
        comment = self.mode == IN_COMMENT
        m = (_COMMENT_END if comment else _STRING_END).match(self.line)
        end = m.end() if m else len(self.line)
        _fill(self.out, 0, end, COMMENT if comment else (ANNOTATION if self.depth else STRING))
        if m:
            self.mode = CODE
            self.level -= comment
        return end

    def _token(self, kind: str, s: int, e: int, text: bytes) -> int:
        """Style one token; the offset after it."""
        if kind == "ws" or kind == "lc":
            if kind == "lc" or self.depth:
                _fill(self.out, s, e, COMMENT if kind == "lc" else ANNOTATION)
            return e
        if kind == "bc":
            return self._block_comment(s, e)
        if self.named:  # 'model X' then anything but '=' opens a fold
            self.named = False
            self.level += text != b"="
        style = OPERATOR
        if kind == "str":
            sm = _STRING_END.match(self.line, e)
            e = sm.end() if sm else len(self.line)
            style = STRING
            if sm is None:
                self.mode = IN_STRING
        elif kind == "num":
            style = NUMBER
        elif kind == "other":  # not Modelica (a stray byte of a non-ASCII character)
            style = DEFAULT
        elif kind in ("id", "qid"):
            style = self._word(text)
        elif kind == "open":
            self._open()
        elif kind == "close" and self._close():
            _fill(self.out, s, e, ANNOTATION)  # the annotation's closing bracket
            self.first = False
            return e
        _fill(self.out, s, e, ANNOTATION if self.depth or (self.pending and text == b"annotation") else style)
        self.first = text == b";"
        if self.first:
            self.pending = self.want_name = False
        return e

    def _block_comment(self, s: int, e: int) -> int:
        cm = _COMMENT_END.match(self.line, e)
        end = cm.end() if cm else len(self.line)
        _fill(self.out, s, end, COMMENT)
        if cm is None:
            self.mode, self.level = IN_COMMENT, self.level + 1
        return end

    def _word(self, text: bytes) -> int:
        style = _word_style(text)
        if self.want_name:
            self.want_name = text in CLASS_KINDS or text == b"extends"  # 'operator record X', 'model extends X'
            self.named = style == IDENTIFIER or style == TYPE
        elif self.depth:
            pass
        elif text == b"annotation":
            self.pending = True
        elif text == b"end":
            self.level -= 1
        elif text in CLASS_KINDS:
            self.want_name = True
        elif text in STATEMENT_BLOCKS and self.first and not self.brackets:
            self.level += 1
        return style

    def _open(self) -> None:
        self.level += 1
        self.brackets += 1
        if self.pending:
            self.pending, self.depth = False, 1
        elif self.depth:
            self.depth += 1

    def _close(self) -> bool:
        """A closing bracket; True when it closes (part of) an annotation."""
        self.level -= 1
        self.brackets -= 1
        if self.depth:
            self.depth -= 1
            return True
        return False


def _word_style(word: bytes) -> int:
    if word in KEYWORDS:
        return KEYWORD
    if word in TYPES:
        return TYPE
    if word in BUILTINS:
        return BUILTIN
    return IDENTIFIER


def _fill(out: bytearray, s: int, e: int, style: int) -> None:
    out[s:e] = bytes([style]) * (e - s)


def style_text(text: str) -> list[tuple[bytes, int]]:
    """Every line of ``text`` styled in turn: ``(styles, end_state)`` per line (for tests and tools)."""
    out = []
    state = 0
    for line in text.encode("utf-8").splitlines(keepends=True):
        styles, state = style_line(line, state)
        out.append((styles, state))
    return out
