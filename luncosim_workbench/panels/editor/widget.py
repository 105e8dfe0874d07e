"""The source editor panel: tabs of Modelica and Rhai files with live diagnostics, completion,
go to definition (F12), references (Shift+F12), an outline, Ctrl+S save and Ctrl+Enter Save & Run.

Each tab edits a :class:`~luncosim_core.text.TextDocument` (shared through ``ctx.documents``).
Diagnostics come in two passes on the :class:`~luncosim_core.text.DiagnosticsEngine`'s threads
(:mod:`luncosim_core.language.analysis`): after every debounce our own parsers (the whole check
for Rhai; the syntax layer and the interface contract for Modelica), and when typing pauses the
Modelica compiler's front end. They are drawn only when they describe the buffer's newest
revision. Save & Run writes the file atomically; the running simulation's source watch then
recompiles a Modelica program in the background (the old version keeps running until the new one
commits; a compile error keeps it and is reported inline) or reloads a scenario, and the panel
reports which happened.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.language.analysis import full_check
from luncosim_core.language.check_process import CheckProcess
from luncosim_core.language.contracts import program_contracts
from luncosim_core.language.modelica import (
    BUILTINS,
    KEYWORDS,
    class_index,
    find_class,
    library_roots,
    members,
)
from luncosim_core.language.modelica import definition as modelica_definition
from luncosim_core.language.references import references
from luncosim_core.language.rhai import (
    host_functions,
    rhai_function_param_list,
    rhai_functions,
    rhai_imports,
    rhai_modules,
    scene_words,
)
from luncosim_core.language.snippets import expand as expand_snippet
from luncosim_core.language.snippets import snippets
from luncosim_core.text import DiagnosticsEngine, Splice, TextConflict, TextDocument
from luncosim_core.text.inline_source import InlineSourceDocument
from luncosim_workbench.context import PanelContext
from luncosim_workbench.events import DiagnosticEvent
from luncosim_workbench.panels.editor import find
from luncosim_workbench.panels.editor.code_editor import RHAI_KEYWORDS, CodeEditor
from luncosim_workbench.panels.editor.side import SidePanel
from luncosim_workbench.plugins import PanelWidget

UI_SWITCH_INTERVAL_S = 0.001  # the process's thread switch interval while an editor is open
FAST_CHECK_DELAY_S = 0.1  # the debounce of the fast pass (it runs in a child: the UI does not pay for it)
FULL_CHECK_PAUSE_S = 0.5  # a pause in typing this long runs the Modelica compiler's front end
IMPLICIT_COMPLETIONS = 200  # entries at most in the list that pops up while typing (Ctrl+Space: all)
_FAST_CODES = frozenset({"modelica.syntax", "check-failed"})  # what the fast pass says itself
_IMPORT_OPEN = re.compile(r'\bimport\s*"[^"]*$')  # inside the string of an import
RELOAD_CODES = {"modelica.reloaded": "reloaded into the running simulation",
                "modelica.reload-kept": "did not compile: the running version continues"}


class _Relay(QObject):
    """Carries the checker thread's results to the UI thread (a queued signal)."""

    arrived = Signal(str, int, object, str)  # key, revision, diagnostics, phase ("fast" or "full")


class EditorPanel(PanelWidget):
    def __init__(self, ctx: PanelContext, parent=None) -> None:
        super().__init__(ctx, parent)
        self.tabs = QTabWidget()
        self.tabs.setTabsClosable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        ctx.documents.scene_replaced.connect(self._close_inline_sources_of_other_scenes)
        self.tabs.currentChanged.connect(lambda _i: self._show_outline())
        self.status = QLabel("Open a .mo or .rhai file (Twin Browser, Diagnostics, F12)")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self._find_bar())
        self.side = SidePanel()
        self.side.go.connect(self._go_side)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.tabs)
        split.addWidget(self.side)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([720, 220])
        layout.addWidget(split, 1)
        layout.addWidget(self.status)
        self.editors: dict[Path, CodeEditor] = {}
        self.results: dict[Path, tuple[int, list[Diagnostic]]] = {}  # newest delivered per file
        self.theme = _palette_theme()
        # answers "save", "discard" or "cancel" for a dirty tab being closed (tests replace it)
        self.ask_close = self._ask_close_dialog
        # answers "revert" or "cancel" before unsaved edits are thrown away (tests replace it)
        self.ask_revert = self._ask_revert_dialog
        # what the running simulation's last Save & Run compile said about each file (shown inline
        # with the live check's findings until the next Save & Run of that file or a reload)
        self.run_diagnostics: dict[Path, list[Diagnostic]] = {}
        self.awaiting_reload: set[str] = set()
        self._contracts: dict = {}  # Modelica file -> the scene's program prims using it (UI thread)
        self._contracts_doc = None
        self._contracts_stale = True
        self._outlines: dict[str, list] = {}  # key -> newest outline that parsed (checker thread)
        self._script_names: dict[str, tuple[str, ...]] = {}  # functions a script defines (checker thread)  # files saved with Save & Run, waiting for the simulation
        self._relay = _Relay()
        self._relay.arrived.connect(self._on_diagnostics)
        # The checker threads run our parsers in this process and share the GIL with the UI
        # thread: at CPython's default 5 ms switch interval one keystroke waits for it several
        # times over while a 10,000-line file is checked (measured: 260 ms), at 1 ms it does not
        if sys.getswitchinterval() > UI_SWITCH_INTERVAL_S:
            sys.setswitchinterval(UI_SWITCH_INTERVAL_S)
        self.checks = CheckProcess()  # the fast pass runs in a child process: no GIL or collector shared
        self.checks.warm()
        # fast: our parsers after every debounce; full: the Modelica compiler's front end on a pause
        self.engine = DiagnosticsEngine(self._check, self._relay.arrived.emit, delay_s=FAST_CHECK_DELAY_S,
                                        full_checker=self._check_full, full_delay_s=FULL_CHECK_PAUSE_S)
        self.full_results: dict[Path, tuple[int, list[Diagnostic]]] = {}  # the newest full pass per file
        self.phases: dict[Path, str] = {}  # which pass the shown diagnostics of a file come from
        self._fast_results: dict[Path, tuple[int, list[Diagnostic]]] = {}
        location = getattr(ctx, "location_opened", None)
        if location is not None:
            location.connect(self._on_location)

    # ------------------------------------------------------------------ find and replace
    def _find_bar(self) -> QWidget:
        bar = QWidget()
        row = QHBoxLayout(bar)
        row.setContentsMargins(0, 0, 0, 0)
        self.find_field = QLineEdit()
        self.find_field.setPlaceholderText("Find (Enter: next)")
        self.find_field.returnPressed.connect(lambda: self.find_next(self.find_field.text()))
        self.replace_field = QLineEdit()
        self.replace_field.setPlaceholderText("Replace with")
        one = QPushButton("Replace")
        one.clicked.connect(lambda: self.replace(self.find_field.text(), self.replace_field.text()))
        every = QPushButton("Replace all")
        every.clicked.connect(lambda: self.replace_all(self.find_field.text(), self.replace_field.text()))
        self.find_regex = QCheckBox("Regex")
        self.find_regex.setToolTip("Find a regular expression (Python syntax; the replacement may use \\1, \\g<name>)")
        for w in (self.find_field, self.find_regex, self.replace_field, one, every):
            row.addWidget(w)
        bar.hide()
        self.find_bar = bar
        return bar

    def show_find(self) -> None:
        self.find_bar.show()
        self.find_field.setFocus()
        self.find_field.selectAll()

    def find_next(self, needle: str) -> tuple[int, int] | None:
        """Select the next match of ``needle`` (text, or a regular expression when *Regex* is
        ticked) after the caret, wrapping; its offsets."""
        editor = self.current()
        if editor is None or not needle:
            return None
        start = editor.char_offset(max(editor.currentPos(), editor.anchor()))
        try:
            hit = find.find_next(editor.doc.text, needle, start, self.find_regex.isChecked())
        except find.BadPattern as exc:
            self.status.setText(str(exc))
            return None
        if hit is None:
            self.status.setText(f"'{needle}' not found")
            return None
        editor.select_chars(hit[0], hit[1])
        return hit[0], hit[1]

    def replace(self, needle: str, replacement: str) -> bool:
        """Replace the selected match (else find one first); one journal entry."""
        editor = self.current()
        if editor is None or not needle:
            return False
        a = editor.char_offset(min(editor.currentPos(), editor.anchor()))
        b = editor.char_offset(max(editor.currentPos(), editor.anchor()))
        try:
            hit = next(((s, e, m) for s, e, m in find.matches(editor.doc.text, needle, self.find_regex.isChecked(), a)
                        if s == a), None)
            if hit is None or hit[1] != b:
                return self.find_next(needle) is not None and self.replace(needle, replacement)
            text = find.replacement(hit[2], replacement)
        except find.BadPattern as exc:
            self.status.setText(str(exc))
            return False
        editor.doc.apply([Splice(a, b, text)], author="user", label="replace")
        self.find_next(needle)
        return True

    def replace_all(self, needle: str, replacement: str) -> int:
        """Replace every match in one edit (one undo brings them all back)."""
        editor = self.current()
        if editor is None or not needle:
            return 0
        try:
            splices = [Splice(a, b, find.replacement(m, replacement))
                       for a, b, m in find.matches(editor.doc.text, needle, self.find_regex.isChecked())]
        except find.BadPattern as exc:
            self.status.setText(str(exc))
            return 0
        if splices:
            editor.doc.apply(splices, author="user", label="replace all")
        self.status.setText(f"{len(splices)} replaced")
        return len(splices)

    # ------------------------------------------------------------------ files
    def _roots(self):
        twin = self.ctx.workspace.twin
        return twin.roots if twin is not None else None

    def open_file(self, path: str | Path, line: int = 0, column: int | None = None) -> CodeEditor:
        """Open (or raise) the tab of ``path``, at ``line`` when given."""
        path = Path(path).resolve()
        editor = self.editors.get(path)
        if editor is None:
            doc = self.ctx.documents.get(path)
            if not isinstance(doc, TextDocument):
                doc = TextDocument(path)
                self.ctx.documents.add(doc)
            editor = CodeEditor(doc, self.theme)
            editor.command.connect(lambda action, e=editor: self._on_command(e, action))
            editor.autoCompleteSelection.connect(lambda _pos, text, e=editor: self._on_completion(e, text))
            doc.changed.connect(lambda *_a, e=editor: self._on_edit(e))
            doc.saved.connect(lambda *_a, e=editor: self._update_title(e))
            doc.reloaded.connect(lambda e=editor: self._on_edit(e))
            self.editors[path] = editor
            self.tabs.addTab(editor, path.name)
            self.tabs.setTabToolTip(self.tabs.indexOf(editor), str(path))
            if doc.language == "modelica":
                self._refresh_contracts()
            elif doc.language == "rhai":  # gather the completion words once, now, not on the first keystroke
                QTimer.singleShot(0, lambda: host_functions(self._roots()))
            self.engine.submit(str(path), doc.text, doc.revision, now=True)
        self.tabs.setCurrentWidget(editor)
        if line:
            editor.go_to(line, column)
        return editor

    def _on_location(self, path: str, line: int, column: int) -> None:
        """A location opened elsewhere (a diagnostic) names a column: put the caret there."""
        editor = self.editors.get(Path(path).resolve())
        if editor is not None and editor is self.current():
            editor.go_to(line, column)

    def current(self) -> CodeEditor | None:
        w = self.tabs.currentWidget()
        return w if isinstance(w, CodeEditor) else None

    def _update_title(self, editor: CodeEditor) -> None:
        i = self.tabs.indexOf(editor)
        if i >= 0:
            self.tabs.setTabText(i, editor.doc.path.name + (" *" if editor.doc.dirty else ""))

    def close_tab(self, index: int) -> bool:
        editor = self.tabs.widget(index)
        if not isinstance(editor, CodeEditor):
            return False
        if editor.doc.dirty:
            answer = self.ask_close(editor.doc.path.name)
            if answer == "cancel" or (answer == "save" and not self.save(editor)):
                return False
        self._drop_tab(editor)
        return True

    def _drop_tab(self, editor: CodeEditor) -> None:
        self.tabs.removeTab(self.tabs.indexOf(editor))
        self.editors.pop(editor.doc.path, None)
        self.engine.forget(str(editor.doc.path))
        self.ctx.report_source_diagnostics(str(editor.doc.path), [])
        self.ctx.documents.remove(editor.doc)
        editor.deleteLater()

    def _close_inline_sources_of_other_scenes(self, scene) -> None:
        """Another scene opened: the tabs of the old one's inline sources close (the window asked
        about their unsaved edits before the scene was replaced)."""
        for editor in list(self.editors.values()):
            if isinstance(editor.doc, InlineSourceDocument) and editor.doc.owner is not scene:
                self._drop_tab(editor)

    def _ask_close_dialog(self, name: str) -> str:
        box = QMessageBox(self)
        box.setWindowTitle("Unsaved edits")
        box.setText(f"{name} has unsaved edits. Save them before closing?")
        box.setStandardButtons(QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                               | QMessageBox.StandardButton.Cancel)
        answer = box.exec()
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            QMessageBox.StandardButton(answer), "cancel")

    def _ask_revert_dialog(self, name: str) -> str:
        answer = QMessageBox.question(self, "Revert", f"Discard the unsaved edits of {name} and reload it from disk?",
                                      QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        return "revert" if answer == QMessageBox.StandardButton.Discard else "cancel"

    def revert(self, editor: CodeEditor | None = None) -> bool:
        """Discard unsaved edits and read the file again (asks first when there are edits)."""
        editor = editor or self.current()
        if editor is None:
            return False
        doc = editor.doc
        if doc.dirty and self.ask_revert(doc.path.name) != "revert":
            return False
        try:
            doc.reload(discard=True)
        except (OSError, DiagnosticError) as exc:
            self.status.setText(f"Cannot revert {doc.path.name}: {exc}")
            return False
        self._update_title(editor)
        self.status.setText(f"Reverted {doc.path.name} to the file on disk")
        return True

    # ------------------------------------------------------------------ diagnostics
    def _check(self, key: str, text: str) -> list[Diagnostic]:
        """On the checker thread, after every debounce: one parse gives the diagnostics, the
        outline and the script's own names for completion."""
        found = self.checks.analyze(key, text, self._roots(), self._contracts)
        if key.endswith(".rhai"):
            self._script_names[key] = found.functions
        if found.outline is not None:  # a buffer that does not parse keeps the last outline
            self._outlines[key] = found.outline
        return found.diagnostics

    def _check_full(self, key: str, text: str) -> list[Diagnostic] | None:
        """On the second checker thread, when typing pauses: the Modelica front end (None: Rhai)."""
        return full_check(key, text, self._roots(), self._contracts)

    def _on_edit(self, editor: CodeEditor) -> None:
        self._update_title(editor)
        doc = editor.doc
        if doc.language == "modelica":
            self._refresh_contracts()
        self.engine.submit(str(doc.path), doc.text, doc.revision)

    def _refresh_contracts(self) -> None:
        """The scene's program prims by the Modelica file they use (for the interface check),
        read again when the scene is another one or was edited."""
        doc = self.ctx.documents.scene
        if doc is self._contracts_doc and not self._contracts_stale:
            return
        if doc is not self._contracts_doc and doc is not None:
            doc.changed.connect(self._on_scene_changed)
            doc.reloaded.connect(self._on_scene_changed)
        self._contracts_doc, self._contracts_stale = doc, False
        try:
            self._contracts = program_contracts(doc.stage, self._roots()) if doc is not None else {}
        except Exception as exc:  # noqa: BLE001 - a scene the check cannot read must not stop editing
            self._contracts = {}
            self.status.setText(f"interface check unavailable: {exc}")

    def _on_scene_changed(self, *_args) -> None:
        """A scene edit may change what a prim declares: check the open models again."""
        if self.ctx.documents.scene is not self._contracts_doc:
            return
        self._contracts_stale = True
        for editor in self.editors.values():
            if editor.doc.language == "modelica":
                self._on_edit(editor)

    def _on_diagnostics(self, key: str, revision: int, diags: list, phase: str = "fast") -> None:
        editor = self.editors.get(Path(key))
        if editor is None or revision != editor.doc.revision:
            return  # the buffer moved on: a newer check is coming
        path = editor.doc.path
        own = [d for d in diags if not d.layer or Path(d.layer).resolve() == path]
        if phase == "fast":
            self._fast_results[path] = (revision, own)
        if phase == "full":
            self.full_results[path] = (revision, own)
            fast_rev, fast = self._fast_results.get(path, (-1, []))
            ours = [d for d in fast if d.code == "modelica.syntax"] if fast_rev == revision else []
            if ours:  # our parser's one finding, not the compiler's cascade after the same mistake
                own = ours + [d for d in own if d.code != "modelica.syntax"]
        elif editor.doc.language == "modelica" and not any(d.code == "modelica.syntax" for d in own):
            # while typing, the last full pass's findings the fast pass cannot make stay shown
            # (unresolved names, an unbalanced model) until the next pause brings fresh ones
            last = self.full_results.get(path, (0, []))[1]
            lines = editor.lineCount()
            own = own + [d for d in last if d.code not in _FAST_CODES and not d.code.startswith("modelica.interface")
                         and (d.line or 0) <= lines]
        self.results[path] = (revision, own)
        self.phases[path] = phase
        self._show(editor)
        if editor is self.current():
            self._show_outline()

    def shown_diagnostics(self, editor: CodeEditor) -> list[Diagnostic]:
        """The live check's findings and the last Save & Run compile's (each once)."""
        live = list(self.results.get(editor.doc.path, (0, []))[1])
        seen = {(d.code, d.line, d.column, d.message) for d in live}
        return live + [d for d in self.run_diagnostics.get(editor.doc.path, ())
                       if (d.code, d.line, d.column, d.message) not in seen]

    def _show(self, editor: CodeEditor) -> None:
        own = self.shown_diagnostics(editor)
        editor.show_diagnostics(own)
        self.ctx.report_source_diagnostics(str(editor.doc.path), own)
        errors = sum(d.is_error for d in own)
        if editor is self.current():
            self.status.setText(f"{editor.doc.path.name}: {errors} error(s), {len(own) - errors} warning(s)"
                                if own else f"{editor.doc.path.name}: no problems")

    # ------------------------------------------------------------------ commands
    def _on_command(self, editor: CodeEditor, action: str) -> None:
        handlers = {"save": lambda: self.save(editor), "save_run": lambda: self.save_and_run(editor),
                    "definition": lambda: self.go_to_definition(editor),
                    "complete": lambda: self.complete(editor, explicit=True),
                    "complete_auto": lambda: self.complete(editor, explicit=False),
                    "references": lambda: self.find_references(editor),
                    "signature": lambda: self.show_signature(editor),
                    "find": self.show_find}
        handlers[action]()

    def save(self, editor: CodeEditor | None = None) -> bool:
        editor = editor or self.current()
        if editor is None:
            return False
        try:
            editor.doc.save()
        except TextConflict as exc:
            msg = "; ".join(d.message for d in exc.diagnostics)
            self.status.setText(msg)
            if not (self.isVisible() and QMessageBox.question(self, "File changed on disk", msg + "\n\nOverwrite it?")
                    == QMessageBox.StandardButton.Yes):
                return False
            editor.doc.save(overwrite_external=True)
        self._update_title(editor)
        self.status.setText(f"Saved {editor.doc.path.name}")
        self.ctx.log(f"saved {editor.doc.path}")
        return True

    def save_and_run(self, editor: CodeEditor | None = None) -> bool:
        """Save, then let the running simulation pick the change up (its source watch recompiles a
        Modelica program in the background, or reloads a scenario)."""
        editor = editor or self.current()
        if editor is None or not self.save(editor):
            return False
        errors = [d for d in self.results.get(editor.doc.path, (0, []))[1] if d.is_error]
        if self.ctx.latest is None:
            self.status.setText(f"Saved {editor.doc.path.name}; no simulation is running")
            return True
        self.awaiting_reload.add(str(editor.doc.path))
        if self.run_diagnostics.pop(editor.doc.path, None):
            self._show(editor)
        kept = f" ({len(errors)} error(s) shown: the running version will continue)" if errors else ""
        if editor.doc.language == "modelica":
            self.status.setText(f"Saved {editor.doc.path.name}; recompiling in the simulation…{kept}")
        else:  # a scenario reloads at the next source check (its state restarts, docs/scripting.md)
            self.status.setText(f"Saved {editor.doc.path.name}; the scenario reloads at the simulation's next "
                                f"source check{kept}")
        return True

    def on_events(self, events: tuple) -> None:
        outcome = None
        for e in events:
            if not isinstance(e, DiagnosticEvent):
                continue
            d = e.diagnostic
            what = RELOAD_CODES.get(d.code)
            file = Path(d.layer).resolve() if d.layer and d.layer.startswith("/") else None
            if d.is_error and file is not None and str(file) in self.awaiting_reload:
                self._add_run_diagnostic(file, d)
                what = what or f"did not compile: the running version continues ({d.message})"
            if what and self.awaiting_reload and (outcome is None or d.code == "modelica.reloaded"):
                outcome = (what, d)
        if outcome is None:
            return
        what, d = outcome
        if d.code == "modelica.reloaded":
            for name in self.awaiting_reload:
                editor = self.editors.get(Path(name))
                if self.run_diagnostics.pop(Path(name), None) and editor is not None:
                    self._show(editor)
        self.awaiting_reload.clear()
        self.status.setText(f"Save & Run: {what} ({d.path})")
        self.ctx.notify(f"Save & Run: {what}")

    def _add_run_diagnostic(self, file: Path, d: Diagnostic) -> None:
        """A Save & Run compile error for ``file``: shown inline and in Diagnostics (leading to the
        file, not to the prim)."""
        kept = Diagnostic(d.severity, d.code, f"Save & Run: {d.message}", layer=str(file), line=d.line,
                          column=d.column, source=d.source or "modelica")
        found = self.run_diagnostics.setdefault(file, [])
        if all((k.code, k.line, k.column, k.message) != (kept.code, kept.line, kept.column, kept.message)
               for k in found):
            found.append(kept)
        editor = self.editors.get(file)
        if editor is not None:
            self._show(editor)

    # ------------------------------------------------------------------ completion
    def completions(self, editor: CodeEditor) -> tuple[list[str], int]:
        """Words to offer at the caret and how many characters of the word are typed."""
        prefix = editor.line_prefix()
        in_string = prefix.count('"') % 2 == 1
        if in_string:
            typed = prefix[prefix.rfind('"') + 1:]
            if editor.doc.language == "rhai" and _IMPORT_OPEN.search(prefix):
                words = rhai_modules(editor.doc.path, self._roots())
            else:
                words = self._scene_words()
            return words, len(typed.encode("utf-8"))
        typed = _typed_tail(prefix, editor.doc.language)
        if editor.doc.language == "rhai":
            words = [f.name for f in host_functions(self._roots())]
            words += self._script_names.get(str(editor.doc.path), ())
            words += RHAI_KEYWORDS.split()
        elif "." in typed:  # a component's fields, or a package's classes
            owner, _dot, typed = typed.rpartition(".")
            roots = library_roots(self._roots())
            return sorted(set(members(owner, editor.doc.text, roots, editor.doc.path))), len(typed.encode("utf-8"))
        else:
            roots = library_roots(self._roots())
            words = [c.name for c in class_index(roots)] + [c.name.rsplit(".", 1)[-1] for c in class_index(roots)]
            words += list(BUILTINS) + list(KEYWORDS)
        words += [s.label for s in snippets(editor.doc.language)]
        return sorted(set(words)), len(typed.encode("utf-8"))

    def _scene_words(self) -> list[str]:
        """Prim paths of the open scene and the port names the simulation publishes."""
        doc = self.ctx.documents.scene
        snap = self.ctx.latest
        return scene_words(doc.stage if doc is not None else None, snap.port_keys if snap is not None else ())

    def complete(self, editor: CodeEditor, *, explicit: bool = True) -> list[str]:
        prefix_text = editor.line_prefix()
        after_dot = editor.doc.language == "modelica" and prefix_text.endswith(".")
        if not explicit and not after_dot and prefix_text.count('"') % 2 == 0 and len(
                _typed_tail(prefix_text, editor.doc.language)) < 2:
            return []  # nothing to offer yet: do not gather the words on every keystroke
        if not explicit and editor.in_comment():
            return []  # prose in a comment: no list popping up under every word
        words, typed = self.completions(editor)
        if not explicit and typed < 2 and not after_dot:
            return []
        prefix = editor.line_prefix().encode("utf-8")
        stem = prefix[len(prefix) - typed:].decode("utf-8", "replace").lower() if typed else ""
        shown = [w for w in words if w.lower().startswith(stem)] if stem else words
        if not explicit and len(shown) > IMPLICIT_COMPLETIONS:
            # a list popping up while typing stays short (Scintilla draws every entry it is given:
            # thousands of a big script's functions cost a visible pause); Ctrl+Space shows all
            shown = shown[:IMPLICIT_COMPLETIONS]
        if shown:
            editor.autoCShow(typed, " ".join(shown))
        return shown

    def _on_completion(self, editor: CodeEditor, text: str) -> None:
        """A snippet chosen from the list expands (instead of its label being inserted)."""
        snippet = next((s for s in snippets(editor.doc.language) if s.label == text), None)
        if snippet is None:
            return
        editor.autoCCancel()  # Scintilla inserts nothing
        end = editor.char_offset(editor.currentPos())
        start = end - len(_typed_tail(editor.line_prefix(), editor.doc.language).rpartition(".")[2])
        line_start = editor.doc.line_starts()[editor.doc.line_col(start)[0] - 1]
        indent = editor.doc.text[line_start:start]
        indent = indent[:len(indent) - len(indent.lstrip())]
        body, fields, caret = expand_snippet(snippet, indent)
        editor.insert_snippet(start, end, body, fields, caret)

    def show_signature(self, editor: CodeEditor) -> str:
        """After ``name(``: the host function's (or the script's own function's) parameters as a tip."""
        if editor.doc.language != "rhai":
            return ""
        prefix = editor.line_prefix()[:-1]
        name = _typed_tail(prefix, "rhai")
        sig = next((f.signature for f in host_functions(self._roots()) if f.name == name), "")
        if not sig and name in self._script_names.get(str(editor.doc.path), ()):
            params = rhai_function_param_list(editor.doc.text, name)
            sig = f"{name}({params})" if params is not None else ""
        if sig:
            editor.callTipShow(editor.currentPos(), sig)
        return sig

    # ------------------------------------------------------------------ navigation
    def definition(self, editor: CodeEditor) -> tuple[Path, int] | None:
        """Where the name at the caret is defined: (file, line), or None."""
        where = self.definition_at(editor)
        return (where[0], where[1]) if where else None

    def definition_at(self, editor: CodeEditor) -> tuple[Path, int, int | None] | None:
        """Where the name at the caret is defined: (file, line, column or None)."""
        if editor.doc.language == "rhai":
            word, _ = editor.word_at(editor.currentPos(), ":")
            parts = word.split("::")
            name = parts[-1]
            if len(parts) > 1:
                module = rhai_imports(editor.doc.text, editor.doc.path, self._roots()).get(parts[-2])
                if module is not None:
                    line = rhai_functions(module.read_text(encoding="utf-8")).get(name)
                    return (module, line or 1, None)
                return None
            own = rhai_functions(editor.doc.text)
            if name in own:
                return editor.doc.path, own[name], None
            for module in rhai_imports(editor.doc.text, editor.doc.path, self._roots()).values():
                line = rhai_functions(module.read_text(encoding="utf-8")).get(name)
                if line:
                    return module, line, None
            return None
        # Modelica: the syntax layer's resolver (scopes, imports, within, the library) first
        found = modelica_definition(editor.doc.text, editor.doc.path, editor.char_offset(editor.currentPos()),
                                    self._roots())
        if found is not None:
            return found.file, found.line, found.column
        word, _ = editor.word_at(editor.currentPos(), ".")  # a buffer that does not parse: the class index
        found = find_class(word, library_roots(self._roots()), (editor.doc.path,)) if word else None
        if found is None and "." in word:
            found = find_class(word.split(".")[0], library_roots(self._roots()), (editor.doc.path,))
        return (found.file, found.line, None) if found else None

    def go_to_definition(self, editor: CodeEditor | None = None) -> bool:
        editor = editor or self.current()
        if editor is None:
            return False
        where = self.definition_at(editor)
        if where is None:
            self.status.setText("No definition found")
            return False
        self.open_file(where[0], where[1], where[2])
        return True

    def find_references(self, editor: CodeEditor | None = None) -> list:
        """Shift+F12: every reference in the twin to the name at the caret, listed in the side
        panel's References tab (activating one opens it)."""
        editor = editor or self.current()
        if editor is None:
            return []
        sources = {e.doc.path: e.doc.text for e in self.editors.values()}
        name, refs = references(editor.doc.path, editor.doc.text, editor.char_offset(editor.currentPos()),
                                self._roots(), sources)
        twin = self.ctx.workspace.twin
        self.side.show_references(name or "?", refs, twin.root if twin is not None else None)
        self.status.setText(f"{len(refs)} reference(s) to {name}" if name else "No name at the caret")
        return refs

    def _show_outline(self) -> None:
        editor = self.current()
        self.side.show_outline(self._outlines.get(str(editor.doc.path), []) if editor is not None else [])

    def _go_side(self, path, line: int, column: int) -> None:
        if path is None:
            editor = self.current()
            if editor is not None:
                editor.go_to(line, column)
        else:
            self.open_file(path, line, column)

    # ------------------------------------------------------------------ panel protocol
    def on_theme_changed(self) -> None:
        self.theme = _palette_theme()
        for editor in self.editors.values():
            editor.apply_theme(self.theme)

    def close_panel(self) -> None:
        self.engine.close()
        self.checks.close()


def _palette_theme() -> str:
    from PySide6.QtWidgets import QApplication

    return "dark" if QApplication.palette().window().color().lightness() < 128 else "light"


def _typed_tail(prefix: str, language: str) -> str:
    extra = "." if language == "modelica" else ""
    i = len(prefix)
    while i > 0 and (prefix[i - 1].isalnum() or prefix[i - 1] == "_" or prefix[i - 1] in extra):
        i -= 1
    return prefix[i:]
