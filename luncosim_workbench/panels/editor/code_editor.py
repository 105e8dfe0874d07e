"""``CodeEditor``: a Scintilla view bound to one :class:`~luncosim_core.text.TextDocument`.

Every change typed in the view becomes a splice on the document (journaled as the user's); every
change the document makes (undo, redo, an API or diagram edit) is applied to the view. Scintilla's
own undo is off: the document's journal is the one history. Positions: Scintilla counts UTF-8
bytes, the document counts code points; the view converts through its line character index.
"""

from __future__ import annotations

from lexilla import Language, create_lexer
from lexilla.pyside6_scintilla import set_lexer
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QWidget
from pyside6_scintilla import ScintillaEdit

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.language import modelica_lexer as ml
from luncosim_core.language.rhai import KEYWORDS as RHAI_KEYWORD_LIST
from luncosim_core.text import Splice, TextDocument
from luncosim_workbench.panels.editor.container_lexer import ContainerLexer
from luncosim_workbench.panels.editor.snippet_fields import (
    FIELD_INDICATOR,
    INDIC_ROUNDBOX,
    SnippetFields,
)

SC_MOD_INSERTTEXT = 0x1
SC_MOD_DELETETEXT = 0x2
SC_MOD_BEFOREINSERT = 0x400
SC_MOD_BEFOREDELETE = 0x800
SC_LINECHARACTERINDEX_UTF32 = 1
INDIC_SQUIGGLEPIXMAP = 13
ERROR_INDICATOR, WARNING_INDICATOR = 8, 9
ERROR_MARKER, WARNING_MARKER = 1, 2
SC_MARK_CIRCLE = 0
SC_MARGIN_SYMBOL, SC_MARGIN_NUMBER = 0, 1
SC_ORDER_PERFORMSORT = 1

RHAI_KEYWORDS = " ".join(RHAI_KEYWORD_LIST)
#: colours (0xBBGGRR) per theme: default fore/back, comment, keyword, number, string, caret line, margin
THEMES = {
    "light": dict(fore=0x202020, back=0xFFFFFF, comment=0x3C8A3C, keyword=0x9E2A00, number=0x0060B0,
                  string=0x1515A3, caret=0xF3EFEA, margin=0xF0F0F0, margin_fore=0x808080, type=0x8A6A00,
                  operator=0x505050, annotation=0x909090, builtin=0x7A1E79),
    "dark": dict(fore=0xDCDCDC, back=0x2A2624, comment=0x6A9955, keyword=0xD69C56, number=0xA8CEB5,
                 string=0x7891CE, caret=0x3A3431, margin=0x2F2B29, margin_fore=0x8A8A8A, type=0xB0C94E,
                 operator=0xB4B4B4, annotation=0x7A7A7A, builtin=0xDDA0DD),
}
# lexilla's rust styles, our Modelica lexer's: comment kinds, number, keyword(s), string kinds ...
_RUST_STYLES = {"comment": (1, 2, 3, 4), "number": (5,), "keyword": (6, 7, 8), "string": (13, 14, 21, 22)}
_MODELICA_STYLES = {"comment": (ml.COMMENT,), "number": (ml.NUMBER,), "keyword": (ml.KEYWORD,), "string": (ml.STRING,),
                    "type": (ml.TYPE,), "operator": (ml.OPERATOR,), "annotation": (ml.ANNOTATION,),
                    "builtin": (ml.BUILTIN,)}
FOLD_MARGIN = 2
SC_MASK_FOLDERS = 0xFE000000
SC_FOLDLEVELHEADERFLAG = 0x2000
SC_AUTOMATICFOLD_SHOW, SC_AUTOMATICFOLD_CLICK, SC_AUTOMATICFOLD_CHANGE = 1, 2, 4
# SC_MARKNUM_FOLDEREND .. SC_MARKNUM_FOLDEROPEN (25..31) -> boxed tree symbols
FOLD_MARKERS = {25: 13, 26: 15, 27: 11, 28: 10, 29: 9, 30: 12, 31: 14}

# keys the editor takes before the window's shortcuts see them (Ctrl+S saves this file, not the scene)
EDITOR_KEYS = {
    QKeySequence("Ctrl+S").toString(): "save", QKeySequence("Ctrl+Return").toString(): "save_run",
    QKeySequence("Ctrl+Enter").toString(): "save_run", QKeySequence("F12").toString(): "definition",
    QKeySequence("Ctrl+Z").toString(): "undo", QKeySequence("Ctrl+Shift+Z").toString(): "redo",
    QKeySequence("Ctrl+Y").toString(): "redo", QKeySequence("Ctrl+Space").toString(): "complete",
    QKeySequence("Ctrl+F").toString(): "find", QKeySequence("Shift+F12").toString(): "references",
}


def _key_text(event) -> str:
    combo = event.keyCombination()
    return QKeySequence(combo).toString()


class CodeEditor(ScintillaEdit):
    """One document's view (see the module doc). ``command`` carries the editor's own keys."""

    command = Signal(str)  # save, save_run, definition, references, complete, signature ...

    def __init__(self, doc: TextDocument, theme: str = "light", parent=None) -> None:
        super().__init__(parent)
        self.doc = doc
        self._echo = False
        self._recording = False  # this view's own change is being journaled (Scintilla has it already)
        self._pending_delete: tuple[int, int] | None = None
        self.diagnostics: list[Diagnostic] = []
        self.snippet: SnippetFields | None = None  # the fields of the snippet being filled in
        # only text changes reach Python: a style, fold or line-state change notified to the
        # container costs a signal per line while our lexer styles thousands of them
        self.setModEventMask(SC_MOD_INSERTTEXT | SC_MOD_DELETETEXT | SC_MOD_BEFOREINSERT | SC_MOD_BEFOREDELETE)
        self.allocateLineCharacterIndex(SC_LINECHARACTERINDEX_UTF32)
        self.setCodePage(65001)
        self._setup_lexer()
        self.apply_theme(theme)
        self._echo = True
        self.setText(doc.text)
        self._echo = False
        self.setUndoCollection(False)
        self.emptyUndoBuffer()
        self.setMouseDwellTime(400)
        self.modified.connect(self._on_modified)
        self.dwellStart.connect(self._on_dwell)
        self.updateUi.connect(self._match_brace)
        self.dwellEnd.connect(lambda *_a: self.callTipCancel())
        doc.changed.connect(self._on_document_changed)
        doc.reloaded.connect(self._on_reloaded)

    # -- look ------------------------------------------------------------------------------
    def _setup_lexer(self) -> None:
        self.lexer = None
        if self.doc.language == "rhai":
            set_lexer(self, create_lexer(Language.RUST))
            self.setKeyWords(0, RHAI_KEYWORDS)
            self.setProperty("fold", "1")
            self.setProperty("fold.comment", "1")
            self._styles = _RUST_STYLES
        else:  # Lexilla has no Modelica lexer: ours, driven from Python (container lexing)
            self.lexer = ContainerLexer(self)
            self._styles = _MODELICA_STYLES
        self.setMarginTypeN(0, SC_MARGIN_NUMBER)
        self.setMarginWidthN(0, 48)
        self.setMarginTypeN(1, SC_MARGIN_SYMBOL)
        self.setMarginWidthN(1, 14)
        self.setMarginMaskN(1, (1 << ERROR_MARKER) | (1 << WARNING_MARKER))
        self.markerDefine(ERROR_MARKER, SC_MARK_CIRCLE)
        self.markerDefine(WARNING_MARKER, SC_MARK_CIRCLE)
        self.markerSetBack(ERROR_MARKER, 0x2020E0)
        self.markerSetBack(WARNING_MARKER, 0x10A0E0)
        for indic, colour in ((ERROR_INDICATOR, 0x2020E0), (WARNING_INDICATOR, 0x10A0E0)):
            self.indicSetStyle(indic, INDIC_SQUIGGLEPIXMAP)
            self.indicSetFore(indic, colour)
        self.indicSetStyle(FIELD_INDICATOR, INDIC_ROUNDBOX)
        self.indicSetFore(FIELD_INDICATOR, 0xC08040)
        self.indicSetAlpha(FIELD_INDICATOR, 40)
        self._setup_folding()
        self.setCaretLineVisible(True)
        self.setTabWidth(4)
        self.setUseTabs(False)
        self.setIndentationGuides(1)
        self.setMultipleSelection(True)
        self.setAdditionalSelectionTyping(True)
        self.autoCSetOrder(SC_ORDER_PERFORMSORT)
        self.autoCSetIgnoreCase(True)
        self.autoCSetSeparator(ord(" "))

    def _setup_folding(self) -> None:
        """A fold margin (boxed +/- tree) whose clicks fold; an edit that hides a fold line shows it."""
        self.setMarginTypeN(FOLD_MARGIN, SC_MARGIN_SYMBOL)
        self.setMarginMaskN(FOLD_MARGIN, SC_MASK_FOLDERS)
        self.setMarginWidthN(FOLD_MARGIN, 14)
        self.setMarginSensitiveN(FOLD_MARGIN, True)
        for number, symbol in FOLD_MARKERS.items():
            self.markerDefine(number, symbol)
        # CHANGE (show lines when the fold structure changes) makes Scintilla style every line
        # of a changed fold, one call per line: too slow for our Python lexer, which expands a
        # folded block itself when its header goes away
        self.setAutomaticFold(SC_AUTOMATICFOLD_SHOW | SC_AUTOMATICFOLD_CLICK
                              | (SC_AUTOMATICFOLD_CHANGE if self.lexer is None else 0))
        self.setFoldFlags(16)  # SC_FOLDFLAG_LINEAFTER_CONTRACTED: a line under a folded block

    def fold_points(self) -> list[tuple[int, int]]:
        """(first, last) 1-based lines of every foldable block (what the fold margin offers)."""
        out = []
        for line in range(self.lineCount()):
            if self.foldLevel(line) & SC_FOLDLEVELHEADERFLAG:
                out.append((line + 1, self.lastChild(line, -1) + 1))
        return out

    def apply_theme(self, theme: str) -> None:
        c = THEMES.get(theme, THEMES["light"])
        self.styleSetFont(32, "DejaVu Sans Mono")
        self.styleSetSize(32, 10)
        self.styleSetFore(32, c["fore"])
        self.styleSetBack(32, c["back"])
        self.styleClearAll()
        for kind, styles in self._styles.items():
            for style in styles:
                self.styleSetFore(style, c[kind])
        for number in FOLD_MARKERS:
            self.markerSetFore(number, c["back"])
            self.markerSetBack(number, c["margin_fore"])
        self.setFoldMarginColour(True, c["margin"])
        self.setFoldMarginHiColour(True, c["margin"])
        self.styleSetFore(33, c["margin_fore"])  # line numbers
        self.styleSetBack(33, c["margin"])
        self.setCaretLineBack(c["caret"])
        self.styleSetBack(34, c["caret"])  # STYLE_BRACELIGHT
        self.styleSetBold(34, True)
        self.styleSetFore(35, 0x2020E0)  # STYLE_BRACEBAD
        self.setCaretFore(c["fore"])
        if self.lexer is None:  # Lexilla's; ours keeps its style numbers, only their colours changed
            self.colourise(0, -1)

    # -- positions ------------------------------------------------------------------------
    def char_offset(self, pos: int) -> int:
        """The document offset (code points) of Scintilla byte position ``pos``."""
        line = self.lineFromPosition(pos)
        start = self.positionFromLine(line)
        prefix = bytes(self.textRange(start, pos)) if pos > start else b""
        return self.indexPositionFromLine(line, SC_LINECHARACTERINDEX_UTF32) + len(prefix.decode("utf-8", "replace"))

    def pos_of(self, line: int, column: int | None) -> int:
        """Byte position of a 1-based line/column (column None: the line's first non-blank)."""
        start = self.positionFromLine(max(line, 1) - 1)
        if not column:
            return self.lineIndentPosition(max(line, 1) - 1)
        end = self.lineEndPosition(max(line, 1) - 1)
        return min(self.positionRelative(start, column - 1), end) if column > 1 else start

    def cursor_line_col(self) -> tuple[int, int]:
        return self.doc.line_col(self.char_offset(self.currentPos()))

    def go_to(self, line: int, column: int | None = None) -> None:
        pos = self.pos_of(line, column)
        self.gotoPos(pos)
        self.scrollCaret()
        QWidget.setFocus(self)  # Scintilla's own setFocus(bool) only sets its focus flag

    # -- view -> document -----------------------------------------------------------------
    def _on_modified(self, kind, position, length, _lines, text, *_rest) -> None:
        if self._echo:
            return
        if kind & SC_MOD_BEFOREDELETE:
            start = self.char_offset(position)
            removed = bytes(self.textRange(position, position + length)).decode("utf-8", "replace")
            self._pending_delete = (start, start + len(removed))
        elif kind & SC_MOD_INSERTTEXT:
            start = self.char_offset(position)
            self._record(Splice(start, start, bytes(text).decode("utf-8", "replace")), "type")
        elif kind & SC_MOD_DELETETEXT and self._pending_delete is not None:
            start, end = self._pending_delete
            self._pending_delete = None
            self._record(Splice(start, end, ""), "delete")

    def _record(self, splice: Splice, label: str) -> None:
        self._recording = True
        try:
            self.doc.apply([splice], author="user", label=label, coalesce=True)
        finally:
            self._recording = False

    def _on_document_changed(self, edit, _author) -> None:
        """Apply an edit that did not come from this view (undo, redo, API, diagram canvas)."""
        if self._recording:
            return
        self._echo = True
        try:
            self._apply_edit(edit)
        finally:
            self._echo = False

    def _apply_edit(self, edit) -> None:
        # the document already holds the new text; rebuild each group's effect from the old text
        new_text = self.doc.text.encode("utf-8")
        if len(edit.groups) > 8:
            self.setText(self.doc.text)
            return
        for group in edit.groups:
            for s in sorted(group, key=lambda s: s.start, reverse=True):
                a = self._old_byte(s.start)
                b = self._old_byte(s.end)
                self.setTargetRange(a, b)
                self.replaceTarget(-1, s.text)
        if bytes(self.getText(self.textLength() + 1)).rstrip(b"\0") != new_text:
            self.setText(self.doc.text)  # never show a buffer that differs from the document

    def select_chars(self, start: int, end: int) -> None:
        """Select document offsets ``start``..``end`` (code points) and show them."""
        self.setSelection(self._old_byte(end), self._old_byte(start))
        self.scrollCaret()

    def _old_byte(self, offset: int) -> int:
        """Byte position of a code-point offset in the view's current (pre-edit) text."""
        line = 0
        lo, hi = 0, self.lineCount() - 1
        while lo <= hi:  # the last line whose first character is at or before ``offset``
            mid = (lo + hi) // 2
            if self.indexPositionFromLine(mid, SC_LINECHARACTERINDEX_UTF32) <= offset:
                line, lo = mid, mid + 1
            else:
                hi = mid - 1
        start_char = self.indexPositionFromLine(line, SC_LINECHARACTERINDEX_UTF32)
        return self.positionRelative(self.positionFromLine(line), offset - start_char)

    def _on_reloaded(self) -> None:
        self._echo = True
        try:
            self.setText(self.doc.text)
        finally:
            self._echo = False

    def _match_brace(self, *_args) -> None:
        """Highlight the bracket at (or before) the caret and its partner; a lone one in red."""
        pos = self.currentPos()
        for at in (pos, pos - 1):
            if at >= 0 and chr(self.charAt(at) & 0xFF) in "()[]{}":
                match = self.braceMatch(at, 0)
                if match >= 0:
                    self.braceHighlight(at, match)
                else:
                    self.braceBadLight(at)
                return
        self.braceHighlight(-1, -1)

    # -- keys -----------------------------------------------------------------------------
    def event(self, event) -> bool:  # noqa: D401
        if event.type() == QEvent.Type.ShortcutOverride and _key_text(event) in EDITOR_KEYS:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        action = EDITOR_KEYS.get(_key_text(event))
        fields = self.snippet
        if fields is not None and fields.active and not self.autoCActive():
            if event.key() == Qt.Key.Key_Tab and event.modifiers() == Qt.KeyboardModifier.NoModifier:
                fields.next()
                return
            if event.key() == Qt.Key.Key_Escape:
                fields.end()
        if action == "undo":
            self.doc.undo()
        elif action == "redo":
            self.doc.redo()
        elif action is not None:
            self.command.emit(action)
        else:
            super().keyPressEvent(event)
            if event.text() == "(":
                self.command.emit("signature")
            elif event.text() and (event.text().isalnum() or event.text() in "_.\"/:") and not self.autoCActive():
                self.command.emit("complete_auto")

    # -- snippets -------------------------------------------------------------------------
    def insert_snippet(self, start: int, end: int, text: str, fields: list[tuple[int, int, int]], caret: int) -> None:
        """Replace document offsets ``start``..``end`` (the typed trigger) with a snippet's text
        (one journal entry) and select its first field; Tab goes on through the fields."""
        if self.snippet is not None:
            self.snippet.end()
        self.doc.apply([Splice(start, end, text)], author="user", label="snippet")
        self.snippet = SnippetFields(self, start, fields, caret)
        self.snippet.draw()
        self.snippet.next()

    def selected_text(self) -> str:
        a = self.char_offset(min(self.currentPos(), self.anchor()))
        b = self.char_offset(max(self.currentPos(), self.anchor()))
        return self.doc.text[a:b]

    def byte_of(self, offset: int) -> int:
        """Byte position of document offset ``offset`` (code points) in the view."""
        return self._old_byte(offset)

    # -- diagnostics ----------------------------------------------------------------------
    def show_diagnostics(self, diags: list[Diagnostic]) -> None:
        """Squiggles at each diagnostic's line:column (to the end of the word), margin markers."""
        self.diagnostics = list(diags)
        n = self.textLength()
        for indic in (ERROR_INDICATOR, WARNING_INDICATOR):
            self.setIndicatorCurrent(indic)
            self.indicatorClearRange(0, n)
        self.markerDeleteAll(ERROR_MARKER)
        self.markerDeleteAll(WARNING_MARKER)
        for d in diags:
            if not d.line:
                continue
            start, end = self.span_of(d)
            error = d.severity == "error"
            self.setIndicatorCurrent(ERROR_INDICATOR if error else WARNING_INDICATOR)
            self.indicatorFillRange(start, max(end - start, 1))
            self.markerAdd(d.line - 1, ERROR_MARKER if error else WARNING_MARKER)

    def span_of(self, d: Diagnostic) -> tuple[int, int]:
        start = self.pos_of(d.line, d.column)
        end = self.wordEndPosition(start, True)
        if end <= start:
            end = min(self.positionAfter(start), self.lineEndPosition(d.line - 1)) or start + 1
        if d.column is None:
            end = self.lineEndPosition(d.line - 1)
        return start, max(end, start + 1)

    def squiggles(self) -> list[tuple[str, int, int]]:
        """(severity, line, column) of every squiggle drawn (1-based, code points): what a user sees."""
        out = []
        for indic, sev in ((ERROR_INDICATOR, "error"), (WARNING_INDICATOR, "warning")):
            pos = 0
            n = self.textLength()
            while pos < n:
                if self.indicatorValueAt(indic, pos):
                    line, col = self.doc.line_col(self.char_offset(pos))
                    out.append((sev, line, col))
                    pos = self.indicatorEnd(indic, pos)
                else:
                    nxt = self.indicatorEnd(indic, pos)
                    if nxt <= pos:
                        break
                    pos = nxt
        return sorted(out)

    def _on_dwell(self, pos: int, _x: int, _y: int) -> None:
        if pos < 0:
            return
        for d in self.diagnostics:
            if d.line:
                a, b = self.span_of(d)
                if a <= pos <= b:
                    self.callTipShow(pos, f"{d.severity}: {d.message} [{d.code}]")
                    return

    # -- words ----------------------------------------------------------------------------
    def word_at(self, pos: int, extra: str = "") -> tuple[str, int]:
        """The identifier (with ``extra`` characters, e.g. ``.`` or ``:``) around ``pos``, and its start."""
        line = self.lineFromPosition(pos)
        start_b = self.positionFromLine(line)
        text = bytes(self.textRange(start_b, self.lineEndPosition(line))).decode("utf-8", "replace")
        col = len(bytes(self.textRange(start_b, pos)).decode("utf-8", "replace"))
        ok = lambda ch: ch.isalnum() or ch == "_" or ch in extra  # noqa: E731
        a = col
        while a > 0 and ok(text[a - 1]):
            a -= 1
        b = col
        while b < len(text) and ok(text[b]):
            b += 1
        return text[a:b], self.positionRelative(start_b, a)

    def line_prefix(self) -> str:
        pos = self.currentPos()
        start = self.positionFromLine(self.lineFromPosition(pos))
        return bytes(self.textRange(start, pos)).decode("utf-8", "replace")

    def in_comment(self) -> bool:
        """The caret is inside a comment: after a ``//`` on its line (outside a string), or just
        after text the lexer styled as a comment (a block comment)."""
        prefix = self.line_prefix()
        quoted = False
        for i, ch in enumerate(prefix):
            if ch == '"' and (i == 0 or prefix[i - 1] != "\\"):
                quoted = not quoted
            elif not quoted and prefix.startswith("//", i):
                return True
        word = len(prefix) - len(prefix.rstrip("_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        before = self.currentPos() - word - 1
        return before >= 0 and self.styleAt(before) in self._styles.get("comment", ())


__all__ = ["CodeEditor", "Qt"]
