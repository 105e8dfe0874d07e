"""The Rhai console: a REPL against the running simulation's host API.

Each line typed is sent through the facade: read only as an ``EvalRhai`` query (answered between
ticks; a command the code issues is refused and the refusal shown), or, with *Allow writes*
ticked, as a ``RunRhai`` command (admitted at the next tick, so a paused simulation keeps it
queued; its writes are traced to ``console:<session>``). Variables and functions persist for the
session until the simulation is replaced. Up/Down walk the history; Tab or Ctrl+Space completes
host API names (with their signatures), the session's own names and keywords, and, inside a
string, the scene's prim paths and port names.
"""

from __future__ import annotations

import itertools
import re
from concurrent.futures import Future

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QKeySequence,
    QStandardItem,
    QStandardItemModel,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QCompleter,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from luncosim_core.api.commands import CommandResult, EvalRhai, RunRhai
from luncosim_core.language.rhai import KEYWORDS, host_functions, scene_words
from luncosim_workbench.context import PanelContext
from luncosim_workbench.plugins import PanelWidget

_LET = re.compile(r"\b(?:let|const)\s+([A-Za-z_]\w*)")
_FN = re.compile(r"\bfn\s+([A-Za-z_]\w*)\s*\(([^)]*)\)")
COLOURS = {"input": "#6a6a6a", "value": None, "printed": "#3c7a3c", "error": "#d03030", "refused": "#c07000",
           "warning": "#c07000", "note": "#808080"}
_sessions = itertools.count(1)
WORD_ROLE = Qt.ItemDataRole.UserRole + 1  # the word a completion inserts (the label shows its signature)


class _Relay(QObject):
    """Carries a future's result to the UI thread (a queued signal)."""

    arrived = Signal(int, object, object)  # entry number, the result (CommandResult), the code


class ConsoleInput(QLineEdit):
    """The input line: Enter submits, Up/Down walk the history, Tab/Ctrl+Space complete."""

    submitted = Signal(str)
    complete_requested = Signal()
    edited = Signal()  # a key changed the text while the completion list is open

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._at = 0
        self._draft = ""
        self.completer_popup_visible = lambda: False

    def event(self, event) -> bool:  # noqa: D401 - Tab must reach keyPressEvent, not move the focus
        if event.type() == event.Type.KeyPress and event.key() == Qt.Key.Key_Tab:
            self.keyPressEvent(event)
            return True
        if event.type() == event.Type.ShortcutOverride and QKeySequence(event.keyCombination()) == QKeySequence(
                "Ctrl+Space"):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        key = event.key()
        if self.completer_popup_visible() and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab,
                                                      Qt.Key.Key_Escape, Qt.Key.Key_Up, Qt.Key.Key_Down):
            event.ignore()  # the completer's popup takes these
            return
        ctrl = event.modifiers() & Qt.KeyboardModifier.ControlModifier
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            code = self.text()
            if code.strip():
                self.remember(code)
                self.clear()
                self.submitted.emit(code)
            return
        if key == Qt.Key.Key_Up:
            self.walk(-1)
            return
        if key == Qt.Key.Key_Down:
            self.walk(1)
            return
        if key == Qt.Key.Key_Tab or (key == Qt.Key.Key_Space and ctrl):
            self.complete_requested.emit()
            return
        super().keyPressEvent(event)
        if self.completer_popup_visible():
            self.edited.emit()

    def remember(self, code: str) -> None:
        if not self.history or self.history[-1] != code:
            self.history.append(code)
        self._at = len(self.history)
        self._draft = ""

    def walk(self, step: int) -> None:
        """Up (-1) / Down (+1) through the history; below the newest entry is the draft."""
        if not self.history:
            return
        if self._at == len(self.history):
            self._draft = self.text()
        self._at = min(max(self._at + step, 0), len(self.history))
        self.setText(self.history[self._at] if self._at < len(self.history) else self._draft)


class RhaiConsolePanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.session = f"console-{next(_sessions)}"
        self.transcript = QPlainTextEdit()
        self.transcript.setReadOnly(True)
        self.transcript.setMaximumBlockCount(5000)
        self.transcript.setFont(_mono())
        self.input = ConsoleInput()
        self.input.setFont(_mono())
        self.input.setPlaceholderText('Rhai, e.g. get(find("RoverA"), "throttle")  (Tab: complete, Up/Down: history)')
        self.input.submitted.connect(self.submit)
        self.input.complete_requested.connect(self.complete)
        self.input.edited.connect(lambda: self.complete(insert_single=False))
        self.writes = QCheckBox("Allow writes")
        self.writes.setToolTip("Let the code change the simulation (set, cmd: SetPorts, SpawnEntity ...); "
                               "off: only reads, a command is refused")
        clear = QPushButton("Clear")
        clear.clicked.connect(self.transcript.clear)
        self.hint = QLabel("")
        self.hint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row = QHBoxLayout()
        row.addWidget(QLabel("»"))
        row.addWidget(self.input, 1)
        row.addWidget(self.writes)
        row.addWidget(clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.transcript, 1)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        self._model = QStandardItemModel(self)
        self.completer = QCompleter(self._model, self)
        self.completer.setWidget(self.input)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionRole(WORD_ROLE)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated[str].connect(self._insert_completion)
        self.completer.highlighted[str].connect(self._show_signature)
        self.input.completer_popup_visible = lambda: self.completer.popup().isVisible()
        self._signatures: dict[str, str] = {}
        self._typed = 0  # characters of the word being completed
        self._entries = itertools.count(1)
        self.pending: dict[int, Future] = {}
        self._relay = _Relay()
        self._relay.arrived.connect(self._show_result)

    # ------------------------------------------------------------------ evaluation
    def submit(self, code: str) -> int:
        """Send ``code`` (read only unless writes are allowed); the entry's number."""
        n = next(self._entries)
        writes = self.writes.isChecked()
        self._append(f"[{n}] » {code}" + ("   (writes)" if writes else ""), "input")
        fut = self.ctx.send(RunRhai(code, self.session)) if writes else self.ctx.query(EvalRhai(code, self.session))
        self.pending[n] = fut
        snap = self.ctx.latest
        if writes and snap is not None and snap.status != "running" and not fut.done():
            self.hint.setText(f"[{n}] queued: commands are admitted at the next tick (the simulation is "
                              f"{snap.status})")
        fut.add_done_callback(lambda f, n=n, code=code: self._relay.arrived.emit(n, f, code))
        return n

    def _show_result(self, n: int, fut: Future, _code: str) -> None:
        self.pending.pop(n, None)
        try:
            res: CommandResult = fut.result(0)
        except Exception as exc:  # noqa: BLE001 - the link died: say so, never crash the panel
            self._append(f"[{n}] error: {type(exc).__name__}: {exc}", "error")
            return
        if not res.ok:
            self._append(f"[{n}] error: " + "; ".join(d.message for d in res.diagnostics), "error")
            self.hint.setText("")
            return
        out = res.value or {}
        for line in out.get("printed", ()):
            self._append(line, "printed")
        for msg in out.get("refused", ()):
            self._append(f"[{n}] refused: {msg}", "refused")
        for msg in out.get("warnings", ()):
            self._append(f"[{n}] warning: {msg}", "warning")
        if out.get("ok"):
            shown = out.get("display", "")
            kind = out.get("type", "")
            if kind != "()":
                self._append(f"[{n}] = {shown}   : {kind}", "value")
            at = f" at tick {res.tick}" if res.tick is not None else ""
            self.hint.setText(f"[{n}] ran{at}" if res.tick is not None else "")
        else:
            err = out.get("error", {})
            where = f" (line {err['line']}, column {err['column']})" if err.get("line") else ""
            self._append(f"[{n}] {err.get('kind', 'runtime')} error{where}: {err.get('message', '')}", "error")

    def transcript_lines(self) -> list[str]:
        return self.transcript.toPlainText().splitlines()

    def _append(self, text: str, kind: str) -> None:
        cursor = self.transcript.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        fmt = QTextCharFormat()
        colour = COLOURS.get(kind)
        if colour:
            fmt.setForeground(QColor(colour))
        else:
            fmt.setForeground(self.transcript.palette().text())
        if self.transcript.document().isEmpty():
            cursor.insertText(text, fmt)
        else:
            cursor.insertBlock()
            cursor.insertText(text, fmt)
        self.transcript.setTextCursor(cursor)
        self.transcript.ensureCursorVisible()

    # ------------------------------------------------------------------ completion
    def candidates(self) -> tuple[list[tuple[str, str]], str]:
        """(word, label) pairs to offer at the cursor, and the part of the word already typed."""
        prefix = self.input.text()[:self.input.cursorPosition()]
        if prefix.count('"') % 2 == 1:
            typed = prefix[prefix.rfind('"') + 1:]
            doc = self.ctx.documents.scene
            snap = self.ctx.latest
            words = scene_words(doc.stage if doc is not None else None, snap.port_keys if snap is not None else ())
            return [(w, w) for w in words], typed
        i = len(prefix)
        while i > 0 and (prefix[i - 1].isalnum() or prefix[i - 1] == "_"):
            i -= 1
        typed = prefix[i:]
        out: dict[str, str] = {}
        twin = self.ctx.workspace.twin
        for f in host_functions(twin.roots if twin is not None else None):
            out[f.name] = f"{f.signature}   {f.kind}"
        for code in self.input.history:
            for m in _FN.finditer(code):
                out[m.group(1)] = f"{m.group(1)}({m.group(2).strip()})   session"
            for m in _LET.finditer(code):
                out.setdefault(m.group(1), f"{m.group(1)}   session variable")
        for k in KEYWORDS:
            out.setdefault(k, f"{k}   keyword")
        return sorted(out.items(), key=lambda kv: kv[0].lower()), typed

    def complete(self, *, insert_single: bool = True) -> list[str]:
        """Open the completion list at the cursor; the words it offers (matching what is typed).
        A single match is inserted at once (``insert_single``)."""
        items, typed = self.candidates()
        self._model.clear()
        self._signatures = {}
        for word, label in items:
            item = QStandardItem(label)
            item.setData(word, WORD_ROLE)
            self._model.appendRow(item)
            self._signatures[word] = label
        self._typed = len(typed)
        self.completer.setCompletionPrefix(typed)
        shown = [self.completer.completionModel().index(r, 0).data(WORD_ROLE)
                 for r in range(self.completer.completionModel().rowCount())]
        if not shown:
            self.completer.popup().hide()
        if len(shown) == 1 and insert_single:
            self._insert_completion(shown[0])
            return shown
        if shown:
            rect = self.input.cursorRect()
            rect.setWidth(self.completer.popup().sizeHintForColumn(0) + 24)
            self.completer.complete(rect)
            self.completer.popup().setCurrentIndex(self.completer.completionModel().index(0, 0))
        return shown

    def _insert_completion(self, word: str) -> None:
        text, pos = self.input.text(), self.input.cursorPosition()
        start = pos - self._typed
        self.input.setText(text[:start] + word + text[pos:])
        self.input.setCursorPosition(start + len(word))
        self._typed = len(word)
        self._show_signature(word)

    def _show_signature(self, word: str) -> None:
        label = self._signatures.get(word, "")
        if label:
            self.hint.setText(label)

    def on_theme_changed(self) -> None:
        self.transcript.setFont(_mono())


def _mono():
    from PySide6.QtGui import QFont, QFontDatabase

    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    return font if font.family() else QFont("DejaVu Sans Mono")
