"""``SourceView``: a read-only look at a source file, at a line (Scintilla with a Lexilla lexer).

Diagnostics and the Twin Browser open files here: the file at the reported line, highlighted,
with a button to open it in the system editor. (Editing sources is the job of the source
editors; this view never writes.) Rhai reads with Lexilla's Rust lexer, TOML, Python and JSON
with their own; Modelica and USD text show plain (Lexilla has no lexer for them).
"""

from __future__ import annotations

from pathlib import Path

from lexilla import Language, create_lexer
from lexilla.pyside6_scintilla import set_lexer
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QFont, QPalette
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget
from pyside6_scintilla import ScintillaEdit

#: files shown in the view (others go to the system's application)
TEXT_SUFFIXES = (".rhai", ".mo", ".toml", ".usda", ".py", ".json", ".txt", ".md", ".csv")
LEXERS = {".rhai": Language.RUST, ".toml": Language.TOML, ".py": Language.PYTHON, ".json": Language.JSON}
MAX_BYTES = 8 * 1024 * 1024
_MARGIN_NUMBERS = 1  # SC_MARGIN_NUMBER
_STYLE_DEFAULT = 32  # STYLE_DEFAULT
_COMMENT_GREEN, _KEYWORD_BLUE, _STRING_RED = 0x2E7D32, 0xB05A1F, 0x2B2BC0  # 0xBBGGRR
RHAI_KEYWORDS = ("fn let const if else while loop for in do until break continue return throw try catch "
                 "switch import export as private this true false global is_def_var is_def_fn")


def _bgr(color) -> int:
    return color.blue() << 16 | color.green() << 8 | color.red()


def can_show(path: str | Path) -> bool:
    p = Path(path)
    return p.suffix.lower() in TEXT_SUFFIXES and p.is_file() and p.stat().st_size <= MAX_BYTES


class SourceView(QDialog):
    """One file, read-only, scrolled to ``line`` (1-based; 0 = the top)."""

    def __init__(self, path: str | Path, line: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"{self.path.name} — source")
        self.resize(900, 640)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.where = QLabel(f"{self.path}" + (f" : line {line}" if line else ""))
        bar.addWidget(self.where, 1)
        external = QPushButton("Open in System Editor")
        external.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.path))))
        bar.addWidget(external)
        layout.addLayout(bar)
        self.editor = ScintillaEdit()
        layout.addWidget(self.editor, 1)
        self.language = LEXERS.get(self.path.suffix.lower())
        self._style()
        self.editor.setText(self.path.read_text(encoding="utf-8", errors="replace"))
        self.editor.setReadOnly(True)
        if self.language is not None:
            self.editor.colourise(0, -1)
        self.show_line(line)

    def _style(self) -> None:
        e = self.editor
        palette = self.palette()
        font = QFont("Monospace")
        font.setStyleHint(QFont.StyleHint.TypeWriter)
        e.styleSetFont(_STYLE_DEFAULT, font.family())
        e.styleSetSize(_STYLE_DEFAULT, 10)
        e.styleSetFore(_STYLE_DEFAULT, _bgr(palette.color(QPalette.ColorRole.Text)))
        e.styleSetBack(_STYLE_DEFAULT, _bgr(palette.color(QPalette.ColorRole.Base)))
        e.styleClearAll()
        e.setMarginTypeN(0, _MARGIN_NUMBERS)
        e.setMarginWidthN(0, 48)
        e.setCaretLineVisible(True)
        e.setCaretLineBack(_bgr(palette.color(QPalette.ColorRole.AlternateBase)))
        if self.language is None:
            return
        set_lexer(e, create_lexer(self.language))
        if self.language == Language.RUST:
            e.setKeyWords(0, RHAI_KEYWORDS)
        for style in (1, 2, 3, 4):  # comments (line, block, doc) in every lexer used here
            e.styleSetFore(style, _COMMENT_GREEN)
        e.styleSetFore(6, _KEYWORD_BLUE)
        for style in (7, 8, 13):
            e.styleSetFore(style, _STRING_RED)

    def show_line(self, line: int) -> None:
        if line > 0:
            self.editor.gotoLine(line - 1)
            self.editor.setFirstVisibleLine(max(0, line - 6))

    def current_line(self) -> int:
        """The caret's line, 1-based."""
        return self.editor.lineFromPosition(self.editor.currentPos()) + 1

    def text(self) -> str:
        return bytes(self.editor.textRange(0, self.editor.length())).decode("utf-8", errors="replace")
