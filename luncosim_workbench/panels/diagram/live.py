"""Live values on the diagram while a simulation runs the class shown.

The panel finds the program prim running the open file (its ``info:sourceAsset``); when the
model it runs is the class shown, :class:`LiveLayer` asks the simulation for that model's
variables with the ``ModelVariables`` query — at most 5 times a second, only while the panel is
visible, only when the simulation has advanced (or what is shown changed), and only for what is
shown: the hovered component's variables, each wire's potential variable, the class's own
connectors, watched variables (all of them while the Variables table is open). Answers arrive
on the UI thread (a queued signal from the future's callback) and are drawn as:

- a card beside the hovered component (or connector) listing its variables with values and units;
- a label on each wire: the potential (non-flow) variable of one of its ends (``v = 2.31 V``), a
  signal wire its signal's value;
- a slider under each of the class's own inputs, ranged by the input's min/max (else a span
  around its value when it first showed), writing the program prim's input port with SetPorts —
  throttled while dragging, one command on release; never a document edit. An input that is not a
  writable port (a wire drives it, or the prim does not declare it) gets a disabled slider saying why;
- the Variables table (every variable, grouped by component) with a plot link per variable.

Plotting a variable that is a port of the prim adds that port to Plots (``ctx.plot_ports``); any
other variable is *watched*: its sampled values (from the same query) go to Plots as
:class:`luncosim_workbench.events.WatchSamples` on ``ctx.events`` (what the Plots panel draws).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPen, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsProxyWidget,
    QGraphicsRectItem,
    QGraphicsTextItem,
    QSlider,
    QTreeWidget,
    QTreeWidgetItem,
)

from luncosim_core.api.commands import ModelVariables, SetPorts
from luncosim_core.modelica.syntax.resolve import Connector
from luncosim_workbench.events import WatchSamples

POLL_MS = 200  # 5 Hz
DRAG_MS = 150  # at most one SetPorts this often while a slider is dragged
CARD_LINES = 30
STEPS = 1000  # a slider's resolution


# ---------------------------------------------------------------------------- pure helpers
def model_matches(model: str, cls: str | None) -> bool:
    """Whether the compiled ``model`` (``Workbench.Rover.DriveController``) is the class shown
    (``DriveController``, its name within the file)."""
    return bool(cls) and (model == cls or model.endswith("." + cls))


def component_of(name: str) -> str:
    """The component a variable belongs to (``a[2].p.v`` -> ``a``; "" for the class's own)."""
    head, dot, _ = name.partition(".")
    return head.split("[")[0] if dot else ""


def potential_variable(ref: str, connector: Connector | None) -> str | None:
    """The variable whose value labels a wire end ``ref``: a physical connector's first
    non-flow, non-stream variable (``resistor.p`` -> ``resistor.p.v``), a signal itself."""
    if connector is None:
        return None
    if not connector.physical:
        return ref
    for name, prefix, _base in connector.variables:
        if not prefix:
            return f"{ref}.{name}"
    return None


def fmt(value: float | None, unit: str = "") -> str:
    if value is None or not math.isfinite(value):
        return "—"
    text = f"{value:.4g}"
    return f"{text} {unit}" if unit and unit != "1" else text


def slider_span(entry: dict) -> tuple[float, float]:
    """An input's slider range: its min and max, else a span around its current value."""
    lo, hi = entry.get("min"), entry.get("max")
    v = entry.get("value")
    v = float(v) if v is not None else 0.0
    span = max(abs(v), 1.0)
    lo = float(lo) if lo is not None else (min(v - span, float(hi) - 2 * span) if hi is not None else v - span)
    hi = float(hi) if hi is not None else max(v + span, lo + 2 * span)
    return (lo, hi) if hi > lo else (lo, lo + 1.0)


def slider_problem(entry: dict, prim: str, name: str) -> str:
    """Why an input's slider cannot write it ("" when it can)."""
    port = entry.get("port")
    if port is None:
        return f"{name} is not a port of {prim}: declare inputs:{name} on the prim to drive it"
    if not port.get("writable"):
        return f"{prim}.{port['name']} is driven by {port.get('authority') or 'something else'}, not written here"
    return ""


# ---------------------------------------------------------------------------- scene items
class LiveCard(QGraphicsRectItem):
    """The hover card: a component's variables with values and units, one size at any zoom."""

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)
        self.setZValue(20)
        self.setBrush(QColor(255, 255, 225, 240))
        self.setPen(QPen(QColor(150, 150, 120), 0))
        self.text = QGraphicsTextItem(self)
        self.text.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.text.setPos(4, 2)

    def show_lines(self, title: str, rows: list[tuple[str, str, bool]]) -> None:
        cells = "".join(f"<tr><td style='color:{'#777' if dim else '#000'}'>{n}</td>"
                        f"<td align='right'>&nbsp;{v}</td></tr>" for n, v, dim in rows)
        self.text.setHtml(f"<b>{title}</b><table cellspacing='0' cellpadding='0'>{cells}</table>")
        r = self.text.boundingRect()
        self.setRect(0, 0, r.width() + 8, r.height() + 4)

    def plain(self) -> str:
        return self.text.toPlainText()


class InputSlider(QSlider):
    """A slider writing one top-level input of the model (``name``) through its port."""

    def __init__(self, name: str, span: tuple[float, float]) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.name = name
        self.lo, self.hi = span
        self.setRange(0, STEPS)
        self.setFixedWidth(120)
        self.pending = False  # a write is on its way: the simulation's older value does not move it
        self.hold_tick = -1  # values from before this tick are older than the last write

    def value_of(self, step: int | None = None) -> float:
        step = self.value() if step is None else step
        return self.lo + (self.hi - self.lo) * step / STEPS

    def show_value(self, v: float) -> None:
        step = round((v - self.lo) / (self.hi - self.lo) * STEPS)
        self.blockSignals(True)
        self.setValue(max(0, min(STEPS, step)))
        self.blockSignals(False)


# ---------------------------------------------------------------------------- the layer
class LiveLayer(QObject):
    """The panel's live side (see the module doc): polling, and what it draws."""

    _answered = Signal(object, object, object)  # prim, names asked, the query's future (queued to the UI thread)
    _sent = Signal(object, object)  # variable name, the SetPorts future
    changed = Signal()  # new values were drawn

    def __init__(self, panel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.ctx = panel.ctx
        self.closed = False
        self.prim: str | None = None
        self.model = ""  # the compiled model's full name (from an answer)
        self.catalogue: dict[str, dict] | None = None  # every variable's entry, from a full answer
        self.values: dict[str, dict] = {}
        self.time = 0.0
        self.tick = -1
        self.problem = ""  # why no values are shown (a refused query)
        self.hover = ""
        self.watched: dict[str, str] = {}  # variables sampled into Plots: name -> unit
        self.sliders: dict[str, InputSlider] = {}
        self.card: LiveCard | None = None
        self.writes: list[SetPorts] = []  # the commands the sliders sent
        self._wire_vars: list[tuple[object, str]] | None = None  # (WireItem, variable), per build
        self._future = None
        self._asked: tuple | None = None
        self._retry_at = 0.0
        self._drag: InputSlider | None = None
        self._rows: dict[str, QTreeWidgetItem] = {}
        self._sized = False
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self._throttle = QTimer(self)
        self._throttle.setSingleShot(True)
        self._throttle.setInterval(DRAG_MS)
        self._throttle.timeout.connect(self._flush_drag)
        self._answered.connect(self._on_answer)
        self._sent.connect(self._on_sent)
        self.table = QTreeWidget()
        self.table.setObjectName("diagramVariables")
        self.table.setColumnCount(4)
        self.table.setHeaderLabels(["Variable", "Value", "Unit", ""])
        self.table.setToolTip("The model's variables while the simulation runs it; click \"plot\" to plot one")
        self.table.itemClicked.connect(self._row_clicked)
        self.table.setVisible(False)

    # -- following a prim ---------------------------------------------------------------------------
    def follow(self, prim: str | None) -> None:
        """Read ``prim``'s model (the first prim running the open file), or nothing (None)."""
        if self.closed:
            return
        if prim != self.prim:
            self.prim = prim
            self.model, self.catalogue, self.values, self.problem = "", None, {}, ""
            self.watched.clear()
            self._asked, self._retry_at, self._future = None, 0.0, None
            self._fill_table()
            self.refresh()
        if prim is not None and self.panel.isVisible():
            if not self.timer.isActive():
                self.timer.start()
                self.poll()
        else:
            self.timer.stop()

    def pause(self) -> None:
        """The panel was hidden: no more queries until it shows again."""
        self.timer.stop()

    def close(self) -> None:
        """The panel is closing (its scene goes): nothing more is asked or drawn."""
        self.closed = True
        self.timer.stop()
        self._throttle.stop()
        self.prim, self._future = None, None  # an answer still on its way is dropped
        self.sliders, self.card, self._wire_vars = {}, None, None

    def resume(self) -> None:
        if self.prim is not None and not self.closed:
            self.timer.start()

    def active(self) -> bool:
        """Values are drawn: a prim runs the class shown (the Diagram view) and has answered."""
        return (self.prim is not None and self.catalogue is not None and self.panel.layer == "Diagram"
                and model_matches(self.model, self.panel.cls))

    # -- polling ------------------------------------------------------------------------------------
    def wanted(self) -> tuple[str, ...] | None:
        """The variables shown now (None: all of them, for the Variables table)."""
        if self.catalogue is None:
            return None
        if not self.active():
            return ()
        if self.table.isVisible():
            return None
        want = set(self.watched) | {var for _w, var in self._wires()}
        want |= {n for n in self.panel.nodes if n in self.catalogue}  # the class's own connectors
        if self.hover:
            prefix = self.hover + "."
            want |= {n for n in self.catalogue if n == self.hover or n.startswith(prefix)
                     or n.startswith(self.hover + "[")}
        return tuple(n for n in self.catalogue if n in want)

    def poll(self) -> None:
        """Ask for the values shown when the simulation has moved on (or what is shown changed)."""
        if self.prim is None or self._future is not None or not self.panel.isVisible():
            return
        snap = self.ctx.latest
        if snap is None or time.monotonic() < self._retry_at:
            return
        names = self.wanted()
        if names == ():
            return
        key = (snap.tick, snap.generation, names)
        if key == self._asked:
            return
        self._asked = key
        prim = self.prim
        self._future = fut = self.ctx.query(ModelVariables(prim, names))
        fut.add_done_callback(lambda f: self._answered.emit(prim, names, f))

    def _on_answer(self, prim: str, names, fut) -> None:
        if fut is not self._future:
            return
        self._future = None
        if prim != self.prim:
            return
        result = fut.result()
        if not result.ok:
            d = result.diagnostics[0] if result.diagnostics else None
            self.problem = d.message if d is not None else "no values"
            if d is not None and d.code == "model-variable-unknown":  # the model was recompiled
                self.catalogue = None
            self._retry_at = time.monotonic() + (1.0 if d is not None and d.code in (
                "model-variables-pending", "model-variable-unknown", "no-simulation") else 5.0)
            self._asked = None
            self.refresh()
            return
        value = result.value
        self.problem = ""
        self.model = value["model"]
        if names is None and (self.catalogue is None or list(self.catalogue) != list(value["variables"])):
            self.catalogue = dict(value["variables"])
            self._wire_vars = None  # the wires' variables are looked up in the new catalogue
            self._fill_table()
        self.values.update(value["variables"])
        self.time, self.tick = float(value["time"]), int(value["tick"])
        self._publish_watched(value["variables"])
        self.refresh()
        self.changed.emit()

    # -- drawing ------------------------------------------------------------------------------------
    def rebuilt(self) -> None:
        """The panel re-projected its scene (its items are new): draw again."""
        self.sliders, self.card, self._wire_vars = {}, None, None
        self._throttle.stop()
        self._drag = None
        self.refresh()

    def refresh(self) -> None:
        on = self.active()
        self._label_wires(on)
        self._fill_nodes(on)
        self._place_sliders(on)
        self._update_card(on)
        if on and self.table.isVisible():
            self._update_table()
        note = self.note()
        if note and self.panel.view.toolTip() != note:
            self.panel.view.setToolTip(note)

    def note(self) -> str:
        if self.prim is None:
            return ""
        if self.problem:
            return f"live values of {self.prim}: {self.problem}"
        if self.catalogue is not None and not model_matches(self.model, self.panel.cls):
            return f"{self.prim} runs {self.model}: open that class to see its live values"
        return f"live values of {self.prim} (t = {self.time:.3f} s)" if self.catalogue is not None else ""

    def _wires(self) -> list[tuple[object, str]]:
        """Each wire with the variable that labels it (built once per scene)."""
        if self._wire_vars is None:
            seen, out = set(), []
            for node in self.panel.nodes.values():
                for w in node.wires:
                    if id(w) in seen:
                        continue
                    seen.add(id(w))
                    var = self._wire_variable(w)
                    if var is not None:
                        out.append((w, var))
            self._wire_vars = out if self.catalogue is not None else None
            return out
        return self._wire_vars

    def _wire_variable(self, w) -> str | None:
        for ref, end in ((w.view.a, w.a), (w.view.b, w.b)):
            conn = end.port.connector if end is not None else None
            var = potential_variable(ref, conn)
            if var is not None and (self.catalogue is None or var in self.catalogue):
                return var
        return None

    def _label_wires(self, on: bool) -> None:
        for w, var in (self._wires() if self.catalogue is not None else []):
            entry = self.values.get(var)
            if not on or entry is None or w.path().isEmpty():  # (a wire to a connector that is not drawn)
                w.set_value_text(None)
                continue
            conn = next((e.port.connector for e in (w.a, w.b) if e is not None and e.port.connector), None)
            short = var.rsplit(".", 1)[-1] if conn is not None and conn.physical else ""
            value = fmt(entry["value"], entry["unit"])
            w.set_value_text(f"{short} = {value}" if short else value)

    def _fill_nodes(self, on: bool) -> None:
        """The class's own connectors not published as ports take their value from the model."""
        if not on:
            return
        for name, node in self.panel.nodes.items():
            entry = self.values.get(name)
            if node.view.own_connector is None or entry is None or entry["value"] is None:
                continue
            if name not in node.live or entry.get("port") is None:
                live = {name: float(entry["value"])}
                if live != node.live:
                    node.live = live
                    node.update_tooltip()

    # -- the hover card -----------------------------------------------------------------------------
    def hovered(self, name: str) -> None:
        if name == self.hover:
            return
        self.hover = name
        self._update_card(self.active())
        self.poll()  # the card's variables, now

    def card_rows(self, name: str) -> list[tuple[str, str, bool]]:
        """The hovered node's variables: (name relative to it, value with unit, is a parameter)."""
        rows = []
        prefix = name + "."
        for full, entry in (self.catalogue or {}).items():
            if full == name:
                rel = full
            elif full.startswith(prefix) or full.startswith(name + "["):
                rel = full[len(name):].lstrip(".")
            else:
                continue
            shown = self.values.get(full, entry)
            rows.append((rel, fmt(shown["value"], shown["unit"]), shown["kind"] == "parameter"))
            if full == name:  # the class's own connector: what it is
                port = entry.get("port")
                rows.append((entry["kind"] + (f", port {port['name']}" if port else ""), entry.get("description", ""), True))
        return rows

    def _update_card(self, on: bool) -> None:
        node = self.panel.nodes.get(self.hover) if on and self.hover else None
        rows = self.card_rows(self.hover) if node is not None else []
        if not rows:
            if self.card is not None:
                self.card.setVisible(False)
            return
        if self.card is None:
            self.card = LiveCard()
            self.panel.scene.addItem(self.card)
        extra = len(rows) - CARD_LINES
        if extra > 0:
            rows = rows[:CARD_LINES] + [(f"… {extra} more", "", True)]
        v = node.view
        title = f"{v.name} : {v.type_name.rsplit('.', 1)[-1]}" if v.own_connector is None else v.name
        self.card.show_lines(f"{title} &nbsp;<span style='color:#777'>t = {self.time:.2f} s</span>", rows)
        r = node.sceneBoundingRect()
        view = self.panel.view
        right = view.mapFromScene(r.topRight())
        if right.x() + self.card.rect().width() > view.viewport().width():  # no room on the right: on the left
            self.card.setPos(r.topLeft())
            self.card.setTransform(QTransform.fromTranslate(-self.card.rect().width(), 0))
        else:
            self.card.setPos(r.topRight())
            self.card.setTransform(QTransform())
        self.card.setVisible(True)

    # -- sliders ------------------------------------------------------------------------------------
    def _inputs(self) -> Iterable[tuple[str, object]]:
        for name, node in self.panel.nodes.items():
            c = node.view.own_connector
            if c is not None and not c.physical and c.causality == "input" and not node.view.inherited:
                yield name, node

    def _place_sliders(self, on: bool) -> None:
        if not on:
            for s in self.sliders.values():
                s.graphicsProxyWidget().setVisible(False)
            return
        for name, node in self._inputs():
            entry = self.values.get(name) or (self.catalogue or {}).get(name)
            if entry is None:
                continue
            slider = self.sliders.get(name)
            if slider is None:
                slider = self._make_slider(name, node, entry)
            slider.graphicsProxyWidget().setVisible(True)
            if (entry["value"] is not None and not slider.isSliderDown() and not slider.pending
                    and self.tick > slider.hold_tick):
                slider.show_value(float(entry["value"]))
            slider.setToolTip(slider_problem(entry, self.prim, name)
                              or f"{name} = {fmt(entry['value'], entry['unit'])}: drag to write "
                                 f"{self.prim}.{entry['port']['name']} ({fmt(slider.lo)} … {fmt(slider.hi)})")

    def _make_slider(self, name: str, node, entry: dict) -> InputSlider:
        slider = InputSlider(name, slider_span(entry))
        slider.setEnabled(not slider_problem(entry, self.prim, name))
        slider.valueChanged.connect(lambda _v, s=slider: self._slid(s))
        slider.sliderReleased.connect(lambda s=slider: self._released(s))
        proxy: QGraphicsProxyWidget = self.panel.scene.addWidget(slider)
        proxy.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        proxy.setZValue(6)
        r = node.sceneBoundingRect()
        proxy.setPos(r.center().x(), r.bottom())
        proxy.setTransform(QTransform.fromTranslate(-slider.width() / 2, 20))
        self.sliders[name] = slider
        return slider

    def _slid(self, slider: InputSlider) -> None:
        if slider.isSliderDown():  # dragging: at most one write every DRAG_MS
            self._drag = slider
            if not self._throttle.isActive():
                self._throttle.start()
            return
        self.write(slider.name, slider.value_of())  # a click on the groove, the keyboard

    def _flush_drag(self) -> None:
        slider, self._drag = self._drag, None
        if slider is not None and slider.isSliderDown():
            self.write(slider.name, slider.value_of())

    def _released(self, slider: InputSlider) -> None:
        self._throttle.stop()
        self._drag = None
        self.write(slider.name, slider.value_of())

    def write(self, name: str, value: float) -> SetPorts | None:
        """Write the model input ``name`` through the program prim's port (one SetPorts)."""
        entry = self.values.get(name) or (self.catalogue or {}).get(name)  # the newest port facts
        if entry is None or slider_problem(entry, self.prim, name):
            return None
        cmd = SetPorts(target=self.prim, writes={entry["port"]["name"]: float(value)})
        self.writes.append(cmd)
        slider = self.sliders.get(name)
        if slider is not None:
            slider.pending = True
        fut = self.ctx.send(cmd)
        fut.add_done_callback(lambda f: self._sent.emit(name, f))
        return cmd

    def _on_sent(self, name: str, fut) -> None:
        result = fut.result()
        slider = self.sliders.get(name)
        if slider is not None:
            slider.pending = False
            slider.hold_tick = result.tick if result.ok and result.tick is not None else -1
        if not result.ok:
            self.panel.say(f"Cannot set {name}: " + "; ".join(d.message for d in result.diagnostics))

    # -- plotting -----------------------------------------------------------------------------------
    def plot(self, name: str) -> str:
        """Plot variable ``name``: its port (``port``) or its sampled values (``watch``); "" if unknown."""
        entry = (self.catalogue or {}).get(name)
        if entry is None or self.prim is None:
            return ""
        port = entry.get("port")
        if port is not None:
            self.ctx.plot_ports([f"{self.prim}.{port['name']}"])
            return "port"
        self.watched[name] = entry.get("unit", "")
        self._publish_watched(self.values)
        self.poll()
        return "watch"

    def _publish_watched(self, variables: dict) -> None:
        if not self.watched or self.prim is None:
            return
        pairs, units = [], []
        for name, unit in self.watched.items():
            entry = variables.get(name)
            if entry is not None:
                key = f"{self.prim}.{name}"
                pairs.append((key, float(entry["value"]) if entry["value"] is not None else math.nan))
                units.append((key, unit))
        if pairs:
            self.ctx.events.emit((WatchSamples(self.time, tuple(pairs), tuple(units)),))

    def plot_names(self, node_name: str | None) -> list[str]:
        """The variables a node's menu offers to plot (the class's own ones for the canvas)."""
        if not self.active():
            return []
        if node_name is None:
            return [n for n in self.catalogue if not component_of(n) and "." not in n]
        return [n for n in self.catalogue
                if n == node_name or n.startswith(node_name + ".") or n.startswith(node_name + "[")]

    # -- the Variables table --------------------------------------------------------------------------
    def show_table(self, on: bool) -> None:
        self.table.setVisible(on)
        if on:
            self._fill_table()
            self._update_table()
        self._asked = None
        self.poll()

    def _fill_table(self) -> None:
        self.table.clear()
        self._rows = {}
        self._sized = False
        groups: dict[str, QTreeWidgetItem] = {}
        for name, entry in (self.catalogue or {}).items():
            comp = component_of(name)
            parent = None
            if comp:
                parent = groups.get(comp)
                if parent is None:
                    parent = groups[comp] = QTreeWidgetItem(self.table, [comp])
            label = name[len(comp) + 1:] if comp else name
            item = QTreeWidgetItem([label, "", entry.get("unit", ""), "plot"])
            item.setData(0, Qt.ItemDataRole.UserRole, name)
            item.setToolTip(0, f"{name} ({entry['kind']}){': ' + entry['description'] if entry.get('description') else ''}")
            item.setForeground(3, QColor(0, 90, 200))
            item.setToolTip(3, "Plot " + name + (" (its port)" if entry.get("port") else " (sampled from the model)"))
            if parent is None:
                self.table.addTopLevelItem(item)
            else:
                parent.addChild(item)
            self._rows[name] = item
        for c in range(3):
            self.table.resizeColumnToContents(c)

    def _update_table(self) -> None:
        for name, item in self._rows.items():
            entry = self.values.get(name)
            if entry is not None:
                item.setText(1, fmt(entry["value"]))
        if self._rows and not self._sized:  # once the first values are in: fit the value column
            self._sized = True
            self.table.resizeColumnToContents(0)
            self.table.resizeColumnToContents(1)

    def _row_clicked(self, item: QTreeWidgetItem, column: int) -> None:
        name = item.data(0, Qt.ItemDataRole.UserRole)
        if name and column == 3:
            how = self.plot(name)
            self.panel.message.setText(f"Plotting {name}" + (" (sampled 5 times a second)" if how == "watch" else ""))

    def row(self, name: str) -> QTreeWidgetItem | None:
        return self._rows.get(name)
