"""Scintilla's container lexing driven from Python, for Modelica (Lexilla has no Modelica lexer).

Scintilla asks (``styleNeeded``) for styles from its ``endStyled`` position (moved back to the
line of every edit) up to what it is about to draw. :class:`ContainerLexer` styles whole lines
with :func:`luncosim_core.language.modelica_lexer.style_line`, keeps each line's end state in
Scintilla's line state and sets the fold levels. It stops at the first line past the edited
ones whose end state is unchanged, and marks everything styled before as still valid, so a
keystroke restyles one line, not the rest of the file. ``restyled`` counts the lines styled (for
tests and the benchmark).
"""

from __future__ import annotations

from PySide6.QtCore import QTimer

from luncosim_core.language.modelica_lexer import fold_level, style_line

SC_MOD_INSERTTEXT, SC_MOD_DELETETEXT = 0x1, 0x2
SC_FOLDLEVELBASE, SC_FOLDLEVELHEADERFLAG = 0x400, 0x2000
SC_FOLDACTION_EXPAND = 1
IDLE_CHUNK = 250  # lines styled per idle step (about 10 ms)


class ContainerLexer:
    """Styles one Scintilla view through ``style_line`` (see the module doc)."""

    def __init__(self, view, style_line=style_line) -> None:
        self.view = view
        self.style_line = style_line
        self.restyled = 0
        self._valid = 0  # lines 0.._valid-1 were styled (kept in step with inserted/removed lines)
        self._dirty_to = -1  # last line an edit touched since it was last styled
        view.setILexer(0)
        view.styleNeeded.connect(self._on_style_needed)
        view.modified.connect(self._on_modified)
        # what Scintilla has not asked for yet is styled while the UI is idle, a chunk at a time,
        # so scrolling far (or a fold's end) never waits for thousands of lines
        self._idle = QTimer(view)
        self._idle.setSingleShot(True)
        self._idle.setInterval(0)
        self._idle.timeout.connect(self._style_idle)

    def _on_modified(self, kind, position, length, lines_added, *_rest) -> None:
        if not kind & (SC_MOD_INSERTTEXT | SC_MOD_DELETETEXT):
            return
        view = self.view
        line = view.lineFromPosition(position)
        if line < self._valid:
            self._valid = max(line, self._valid + lines_added)
        last = view.lineFromPosition(position + length) if kind & SC_MOD_INSERTTEXT else line
        self._dirty_to = max(self._dirty_to, last)

    def _on_style_needed(self, position: int) -> None:
        view = self.view
        line = view.lineFromPosition(view.endStyled())
        self.style_lines(line, view.lineFromPosition(position))

    def style_lines(self, line: int, last: int) -> None:
        """Style from ``line`` to at least ``last`` (see the module doc)."""
        view = self.view
        count = view.lineCount()
        last = min(last, count - 1)
        while line <= last:
            line = self._style_run(line, last, count)
        if view.endStyled() < view.textLength():
            self._idle.start()

    def _style_idle(self) -> None:
        line = self.view.lineFromPosition(self.view.endStyled())
        self.style_lines(line, line + IDLE_CHUNK - 1)

    def _style_run(self, line: int, last: int, count: int) -> int:
        """Style lines ``line``.. until ``last`` or until the states converge; the next line to style
        (past ``last`` when done)."""
        view = self.view
        start = view.positionFromLine(line)
        end = view.positionFromLine(last + 1) if last + 1 < count else view.textLength()
        if end >= view.textLength():  # through the end: the empty last line too
            last = count - 1
        texts = bytes(view.textRange(start, end)).splitlines(keepends=True) if end > start else []
        if len(texts) < last + 1 - line:  # an empty last line has no text
            texts += [b""] * (last + 1 - line - len(texts))
        state = view.lineState(line - 1) if line > 0 else 0
        styled: list[bytes] = []
        converged = same = False
        style_line, line_state, set_line_state, set_fold, fold_of = (
            self.style_line, view.lineState, view.setLineState, view.setFoldLevel, view.foldLevel)
        for text in texts:
            styles, new_state = style_line(text, state)
            styled.append(styles)
            level, after = fold_level(state), fold_level(new_state)
            header = after > level
            if not header and fold_of(line) & SC_FOLDLEVELHEADERFLAG and not view.foldExpanded(line):
                view.foldLine(line, SC_FOLDACTION_EXPAND)  # a folded block lost its header: show it
            set_fold(line, SC_FOLDLEVELBASE + level + (SC_FOLDLEVELHEADERFLAG if header else 0))
            old = line_state(line)
            set_line_state(line, new_state)
            state = new_state
            line += 1
            same = new_state == old and line > self._dirty_to
            if same and line < self._valid:
                converged = True  # the lines after keep their styles
                break
        self.restyled += len(styled)
        run = b"".join(styled)
        view.startStyling(start, 0)
        if run:
            view.setStylingEx(len(run), run.decode("ascii"))  # the binding takes str for char*
        if line > self._dirty_to:
            self._dirty_to = -1
        if converged:  # skip to the first line never styled
            view.startStyling(view.positionFromLine(self._valid) if self._valid < count else view.textLength(), 0)
            return self._valid if self._valid <= last else last + 1
        # stopped at ``last``: the lines after still hold their styles only if this state is unchanged
        self._valid = max(self._valid, line) if same else line
        return line
