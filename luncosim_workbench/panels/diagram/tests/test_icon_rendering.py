"""Icons drawn as Modelica describes them: gradient fills (FillPattern HorizontalCylinder,
VerticalCylinder, Sphere) and Bitmaps, from a base64 ``imageSource`` or a ``fileName``
(``modelica://Pkg/...`` or relative)."""

from __future__ import annotations

import base64

from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QColor, QGradient, QImage

from luncosim_core.modelica.syntax.graphics import Primitive
from luncosim_workbench.panels.diagram.canvas import _brush, bitmap_image
from luncosim_workbench.panels.diagram.render import render_diagram

YELLOW, BLUE = (255, 255, 0), (0, 0, 255)


def _stops(brush) -> list[tuple[float, tuple[int, int, int]]]:
    return [(pos, (c.red(), c.green(), c.blue())) for pos, c in brush.gradient().stops()]


def test_gradient_fills_follow_the_fill_patterns(qapp):
    def rect(pattern):
        return Primitive("Rectangle", extent=((-50, -20), (50, 20)), line_color=BLUE, fill_color=YELLOW,
                         fill_pattern=pattern)

    h = _brush(rect("HorizontalCylinder"))
    assert h.gradient().type() == QGradient.Type.LinearGradient
    assert (h.gradient().start().y(), h.gradient().finalStop().y()) == (-20, 20)  # across the height
    assert h.gradient().start().x() == h.gradient().finalStop().x() == 0
    assert _stops(h) == [(0.0, BLUE), (0.5, YELLOW), (1.0, BLUE)]
    v = _brush(rect("VerticalCylinder"))
    assert (v.gradient().start().x(), v.gradient().finalStop().x()) == (-50, 50)  # across the width
    s = _brush(Primitive("Ellipse", extent=((-30, -30), (30, 30)), line_color=BLUE, fill_color=YELLOW,
                         fill_pattern="Sphere"))
    assert s.gradient().type() == QGradient.Type.RadialGradient and s.gradient().radius() == 30
    assert _stops(s) == [(0.0, YELLOW), (1.0, BLUE)]
    poly = _brush(Primitive("Polygon", points=((0, 0), (10, 40), (20, 0)), line_color=BLUE, fill_color=YELLOW,
                            fill_pattern="HorizontalCylinder"))
    assert (poly.gradient().start().y(), poly.gradient().finalStop().y()) == (0, 40)  # the points' box


def _png(color: tuple[int, int, int]) -> bytes:
    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(QColor(*color))
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buf, "PNG")
    return bytes(data.data())


def _count(png, color) -> int:
    img = QImage(str(png))
    return sum(1 for x in range(0, img.width(), 2) for y in range(0, img.height(), 2)
               if all(abs(a - b) < 40 for a, b in zip((img.pixelColor(x, y).red(), img.pixelColor(x, y).green(),
                                                        img.pixelColor(x, y).blue()), color, strict=True)))


def test_bitmaps_draw_their_base64_and_file_pictures(qapp, tmp_path):
    pkg = tmp_path / "Pics"
    (pkg / "Resources").mkdir(parents=True)
    (pkg / "Resources" / "green.png").write_bytes(_png((0, 200, 0)))
    (pkg / "local.png").write_bytes(_png((200, 0, 200)))
    red = base64.b64encode(_png((220, 0, 0))).decode()
    (pkg / "package.mo").write_text(
        "package Pics\n"
        f'  model B annotation(Icon(graphics = {{Bitmap(extent = {{{{-100, -100}}, {{100, 100}}}}, imageSource = "{red}")}}));\n'
        "  end B;\n"
        '  model F annotation(Icon(graphics = {Bitmap(extent = {{-100, -100}, {100, 100}}, '
        'fileName = "modelica://Pics/Resources/green.png")}));\n  end F;\n'
        '  model L annotation(Icon(graphics = {Bitmap(extent = {{-100, -100}, {100, 100}}, fileName = "local.png")}));\n'
        "  end L;\n"
        '  model Missing annotation(Icon(graphics = {Bitmap(extent = {{-100, -100}, {100, 100}}, '
        'fileName = "modelica://Pics/none.png")}));\n  end Missing;\n'
        "  model M\n"
        "    B b annotation(Placement(transformation(extent = {{-60, -10}, {-40, 10}})));\n"
        "    F f annotation(Placement(transformation(extent = {{-20, -10}, {0, 10}})));\n"
        "    L l annotation(Placement(transformation(extent = {{20, -10}, {40, 10}})));\n"
        "    Missing m annotation(Placement(transformation(extent = {{60, -10}, {80, 10}})));\n"
        "  end M;\nend Pics;\n")
    out = tmp_path / "m.png"
    assert render_diagram(pkg / "package.mo", out, cls="M", width=800, roots=()).startswith("Pics.M: 4 components")
    assert _count(out, (220, 0, 0)) > 100 and _count(out, (0, 200, 0)) > 100 and _count(out, (200, 0, 200)) > 100
    assert bitmap_image(Primitive("Bitmap", extent=((0, 0), (1, 1)), extra={"path": str(pkg / "none.png")})) is None
    assert bitmap_image(Primitive("Bitmap", extent=((0, 0), (1, 1)), extra={"imageSource": "not base64!"})) is None
