"""``PanelContext``: everything a panel may use, and nothing more.

A panel sees the shared selection (with added/removed diffs), the open documents, the newest
snapshot (``frames``), the event stream (``events``: console lines, notifications, diagnostics,
faults, workbench messages), the telemetry ring, ``send(command)`` / ``query(q)`` (futures of
the typed ``api`` vocabulary) and ``apply(op, author=...)`` (a typed op through the document's
journal). It never sees the bridge, the worker or a Simulation: a simulation in another process
serves the same facade.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from luncosim_core.api.commands import Command, Query
from luncosim_core.api.snapshot import WorkbenchSnapshot
from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.twin import OpenResult, Twin
from luncosim_core.usd.ops import Op
from luncosim_workbench.documents import DocumentSet
from luncosim_workbench.events import LogLine, ResultsPlot
from luncosim_workbench.session import Selection, Session
from luncosim_workbench.telemetry import TelemetryRing


class NoDocument(DiagnosticError):
    """``apply`` was called with no document open."""


@dataclass(frozen=True, slots=True)
class PlotPorts:
    """Ports to plot over time (``/Prim.port`` keys), published on ``events`` by
    :meth:`PanelContext.plot_ports`: the Plots panel adds a curve for each."""

    keys: tuple[str, ...]


class Workspace(Protocol):
    """What is open, read-only: the twin, the scene, its composition and lint diagnostics."""

    result: OpenResult | None
    opened: Any  # psygnal signal(OpenResult)
    diagnostics_changed: Any  # psygnal signal()
    source_diagnostics_changed: Any  # psygnal signal(): the source editors' live checks changed

    @property
    def twin(self) -> Twin | None: ...
    @property
    def scene(self) -> Path | None: ...
    @property
    def preview(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    def composition_diagnostics(self) -> list[Diagnostic]: ...
    def lint_diagnostics(self) -> list[Diagnostic]: ...
    def source_diagnostics(self) -> list[Diagnostic]: ...


class SimulationLink(Protocol):
    """The part of the simulation bridge the context forwards (kept private to the context)."""

    frame: Any
    events: Any
    telemetry: TelemetryRing

    @property
    def latest(self) -> WorkbenchSnapshot | None: ...
    def send(self, command: Command) -> Future: ...
    def query(self, q: Query) -> Future: ...


def _ignore(*_args, **_kw) -> None:
    return None


class PanelContext(QObject):
    """The narrow facade every panel is built with (see the module doc)."""

    frames = Signal(object)  # the newest WorkbenchSnapshot, at most once per display frame
    events = Signal(tuple)  # WorkbenchEvents since the previous frame, in order (luncosim_workbench.events)
    location_opened = Signal(str, int, int)  # open_location's file, line and column (a source editor places its caret)
    property_selected = Signal(str)  # "/Prim.attr" of the property the inspector shows as current ("" none)

    def __init__(self, session: Session, link: SimulationLink, *, notify: Callable[[str], None] = _ignore,
                 open_location: Callable[[str, int], None] = _ignore,
                 open_path: Callable[..., object] = _ignore, show_mission: Callable[[object], None] = _ignore,
                 focus_point: Callable[[str | None], tuple | None] = _ignore,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._session = session
        self._link = link
        self._notify = notify
        self._open_location = open_location
        self._open_path = open_path
        self._show_mission = show_mission
        self._focus_point = focus_point
        self._property = ""
        link.frame.connect(self.frames)
        link.events.connect(self.events)
        session.message.connect(self._on_message)

    def _on_message(self, text: str) -> None:
        self.events.emit((LogLine(text),))

    # ------------------------------------------------------------------ what is open
    @property
    def selection(self) -> Selection:
        """The shared prim selection: ``paths``, ``set(paths)``, ``changed(added, removed)``."""
        return self._session.selection

    @property
    def selected_property(self) -> str:
        """The property (``/Prim.attr``) current in the inspector, "" when none."""
        return self._property

    def select_property(self, path: str) -> None:
        """Make ``path`` (``/Prim.attr``, or "") the current property; ``property_selected`` tells."""
        if path != self._property:
            self._property = path
            self.property_selected.emit(path)

    @property
    def documents(self) -> DocumentSet:
        return self._session.documents

    @property
    def workspace(self) -> Workspace:
        return self._session

    # ------------------------------------------------------------------ the simulation
    @property
    def latest(self) -> WorkbenchSnapshot | None:
        """The newest snapshot (None before a scene runs)."""
        return self._link.latest

    @property
    def telemetry(self) -> TelemetryRing:
        """Every tick's port values (read it; the bridge appends)."""
        return self._link.telemetry

    def send(self, command: Command) -> Future:
        """Queue a typed command; the future resolves with its ``CommandResult`` at admission."""
        return self._link.send(command)

    def query(self, q: Query) -> Future:
        """Ask a typed query, answered between ticks."""
        return self._link.query(q)

    # ------------------------------------------------------------------ editing
    def apply(self, op: Op, *, author: str = "user", document: Any = None) -> Op:
        """Apply a typed op through the journal of ``document`` (default: the scene), recorded with
        its ``author`` (``user`` for a gesture, ``api``, ``script``); returns the inverse.
        Raises ``OpError`` (the document is unchanged) or :class:`NoDocument`."""
        doc = document if document is not None else self._session.document
        if doc is None:
            raise NoDocument(Diagnostic("error", "no-document", "no scene is open", source="workbench"))
        return doc.apply(op, author=author)

    def report_source_diagnostics(self, path: str, diagnostics: list[Diagnostic]) -> None:
        """A source editor's newest live-check findings for ``path`` (the Diagnostics panel shows
        them; an empty list clears them)."""
        self._session.set_source_diagnostics(path, diagnostics)

    # ------------------------------------------------------------------ window services
    def notify(self, text: str) -> None:
        """A transient status-bar message."""
        self._notify(text)

    def log(self, text: str) -> None:
        """A line in the console (and anyone else listening to ``events``)."""
        self._session.log(text)

    def open_location(self, path: str, line: int = 0, column: int | None = None) -> None:
        """Show a file (at a line when given); ``location_opened`` then tells the panel showing it
        the column (1-based) too."""
        self._open_location(path, line)
        if line and column:
            self.location_opened.emit(str(path), int(line), int(column))

    def open_path(self, path: str | Path, preview: str | Path | None = None) -> object:
        """Open a twin, a scene or (``preview``) a library file in the workbench."""
        return self._open_path(path, preview=preview)

    def focus_point(self, in_frame_of: str | None = None) -> tuple[float, float, float] | None:
        """Read-only: the 3D viewport's focus point (its camera's orbit centre on the ground
        plane) in stage axes and units, or in the frame of the prim ``in_frame_of`` (what the
        Create recipes' ``at=`` takes for a child of that prim). None without a viewport."""
        return self._focus_point(in_frame_of)

    def show_mission(self, drawing) -> None:
        """Draw a mission in the viewport: a ``luncosim_core.mission.drawing.MissionDrawing``
        (plain arrays: costmap, path, footprints, fluid particles, body poses); None clears it."""
        self._show_mission(drawing)

    def plot_ports(self, keys: Iterable[str]) -> None:
        """Plot ports (``/Prim.port`` keys) over time: a :class:`PlotPorts` on ``events`` (the
        Plots panel adds their curves), as a drag from the Ports panel onto Plots does."""
        self.events.emit((PlotPorts(tuple(keys)),))

    def show_results(self, plot: ResultsPlot) -> None:
        """Publish a result series (e.g. a sweep's output against its parameter) on ``events``:
        the Plots panel shows it next to its strip charts."""
        self.events.emit((plot,))
