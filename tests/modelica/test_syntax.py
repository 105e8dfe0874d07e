"""The Modelica concrete-syntax layer: every file of our library and LunCoSim's parses with exact
spans, and every edit op changes only its own span and undoes to the original bytes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from luncosim_core.modelica.syntax.geometry import moved, placement_of
from luncosim_core.modelica.syntax.ops import (
    AddComponent,
    AddConnection,
    AddGraphic,
    OpError,
    RemoveComponent,
    RemoveConnection,
    RemoveGraphic,
    RenameComponent,
    SetGraphic,
    SetLinePoints,
    SetParameter,
    SetPlacement,
    apply_op,
)
from luncosim_core.modelica.syntax.parser import ParseError, parse, parse_value
from luncosim_core.modelica.syntax.resolve import library_for

from .conftest import LIBRARY

OUR_FILES = sorted(LIBRARY.rglob("*.mo"))


def _external_files(root: Path) -> list[Path]:
    return sorted((root / "models").rglob("*.mo"))


def _check_spans(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    sd = parse(text)
    n = 0
    for c in sd.all_classes():
        assert text[c.start:c.end].rstrip().endswith(c.name) or c.short, (path, c.qualified)
        for comp in c.components:
            assert text[comp.name_start:comp.name_end] == comp.name
            assert text[comp.clause_end - 1] == ";"
            if comp.annotation is not None:
                assert text[comp.annotation.start] == "(" and text[comp.annotation.end - 1] == ")"
            n += 1
        for k in c.connects:
            assert text[k.start:k.end].startswith("connect") and text[k.end - 1] == ";"
            assert "".join(text[slice(*k.a_span)].split()) == k.a
            n += 1
    return n


def test_every_file_of_our_library_parses_with_exact_spans():
    assert len(OUR_FILES) > 20
    assert sum(_check_spans(p) for p in OUR_FILES) > 50


def test_every_file_of_lunco_library_parses_with_exact_spans(external_assets):
    files = _external_files(external_assets)
    assert len(files) > 50
    assert sum(_check_spans(p) for p in files) > 500


def _random_ops(rng: random.Random, sd, cls) -> list:
    """A few ops that fit ``cls`` (they may still be refused; refusal must change nothing)."""
    name = cls.qualified
    comps = [c for c in cls.components]
    ops = []
    if comps:
        c = rng.choice(comps)
        ops.append(SetParameter(name, c.name, "zz_new", "1.5"))
        if c.mod is not None and c.mod.args and c.mod.args[0].name:
            ops.append(SetParameter(name, c.name, c.mod.args[0].name, None))
            ops.append(SetParameter(name, c.name, c.mod.args[0].name, "2*(3 + 1)"))
        ops.append(SetPlacement(name, c.name, rotation=rng.choice([0, 90, -90, 180])))
        ops.append(moved(name, c, rng.uniform(-20, 20), rng.uniform(-20, 20)))
        ops.append(SetPlacement(name, c.name, flip_h=rng.random() < 0.5, flip_v=rng.random() < 0.5))
        ops.append(RenameComponent(name, c.name, c.name + "_r"))
        ops.append(AddComponent(name, c.type_name, "zz_added", {"k": "1"}, ((-10, -10), (10, 10)), rotation=90))
        ops.append(RemoveComponent(name, rng.choice(comps).name))
    if cls.connects:
        k = rng.choice(cls.connects)
        ops.append(SetLinePoints(name, k.a, k.b, ((0, 0), (rng.randint(-50, 50), 5.5), (10, 10))))
        ops.append(RemoveConnection(name, k.a, k.b))
        ops.append(AddConnection(name, k.b, k.a + "x", check=False))
    ops.append(AddGraphic(name, "Rectangle(extent = {{-40, -20}, {40, 20}}, lineColor = {0, 0, 255})"))
    graphics = cls.annotation.path("Icon", "graphics") if cls.annotation is not None else None
    count = len(graphics.value.items) if graphics is not None and graphics.value is not None else 0
    if count:
        k = rng.randrange(count)
        ops.append(SetGraphic(name, k, "origin", f"{{{rng.randint(-9, 9)}, 3}}"))
        ops.append(SetGraphic(name, k, "rotation", None))
        ops.append(RemoveGraphic(name, rng.randrange(count)))
    rng.shuffle(ops)
    return ops


# ops that keep a valid model valid (layout, graphics, a rename that follows its references): the
# others are drawn to be refused or to leave a model that is not balanced (a parameter that does not
# exist, a connection to a connector that does not, a removed component still used by an equation)
KEEPS_VALID = (SetPlacement, SetLinePoints, AddGraphic, SetGraphic, RemoveGraphic, RenameComponent)


def _exercise(path: Path, seed: int, results: list | None = None) -> int:
    """Random op sequences over every class of ``path``: each result re-parses, untouched text is
    kept, and undoing every op (its inverse op, newest first) gives back the original bytes.
    ``results``: also collect, per class, the text after its ops that keep a model valid."""
    original = path.read_text(encoding="utf-8")
    rng = random.Random(seed)
    applied = 0
    for cls in parse(original).all_classes():
        if cls.short or not (cls.components or cls.connects):
            continue
        text = original
        sd = parse(text)
        undo = []
        ops = _random_ops(rng, sd, cls)
        if results is not None:
            ops = [op for op in ops if isinstance(op, KEEPS_VALID)]
        for op in ops:
            try:
                edit = apply_op(text, op, sd)
            except OpError:
                continue
            target = sd.find(cls.qualified)
            for s in edit.splices:  # an op never touches text outside its class
                assert target.start <= s.start and s.end <= target.end + 1, (op, s)
            sd = parse(edit.text)
            undo.append(edit.inverse_op)
            text = edit.text
            applied += 1
        if results is not None and undo:
            results.append((path, cls.qualified, text))
        for inv in reversed(undo):
            text = apply_op(text, inv).text
        assert text == original, (path, cls.qualified)
    return applied


def test_random_op_sequences_on_our_library_undo_to_identical_bytes():
    assert sum(_exercise(p, k) for k, p in enumerate(OUR_FILES)) > 100


def test_random_op_sequences_on_our_library_compile_with_rumoca():
    """The issue's "results compile with rumoca": for a sample of our models (those that compile
    as they are, one random edited result each, not every step), the text after a random sequence
    of the ops that keep a model valid still compiles."""
    from luncosim_core.modelica import compile_model

    results: list = []
    for k, p in enumerate(OUR_FILES):
        _exercise(p, 1000 + k, results)
    rng = random.Random(7)
    runnable = {p for p in {r[0] for r in results} if compile_model(p).ok}
    assert len(runnable) >= 6  # RCCircuit, RCLadder, DriveController, Battery, Thermostat, ...
    sample = [rng.choice([r for r in results if r[0] == p]) for p in sorted(runnable)]
    for path, cls, text in sample:
        assert text != path.read_text(encoding="utf-8"), (path, cls)  # edited
        cm = compile_model(path, source_text=text)
        assert cm.ok, (path, cls, cm.diagnostics)


def test_random_op_sequences_on_lunco_library_undo_to_identical_bytes(external_assets):
    assert sum(_exercise(p, k) for k, p in enumerate(_external_files(external_assets))) > 300


RC = LIBRARY / "Workbench" / "Electrical" / "RCCircuit.mo"


@pytest.fixture(scope="module")
def rc():
    text = RC.read_text(encoding="utf-8")
    return text, library_for(RC)


def _only_changed_lines(old: str, new: str) -> list[tuple[str, str]]:
    a, b = old.splitlines(), new.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b, strict=True) if x != y]


def test_set_placement_changes_only_the_given_fields(rc):
    text, lib = rc
    edit = apply_op(text, SetPlacement(None, "source", extent=((-80, -10), (-60, 10))), lib=lib)
    [(old, new)] = _only_changed_lines(text, edit.text)
    assert "rotation = -90" in new and "{{-80, -10}, {-60, 10}}" in new
    assert new.replace("{{-80, -10}, {-60, 10}}", "{{-70, -10}, {-50, 10}}") == old
    edit = apply_op(text, SetPlacement(None, "resistor", rotation=90, origin=(1, 2)), lib=lib)
    [(_, new)] = _only_changed_lines(text, edit.text)
    assert "transformation(extent = {{-20, 30}, {0, 50}}, origin = {1, 2}, rotation = 90)" in new


def test_set_placement_keeps_origin_and_icon_transformation():
    text = ("model M\n  // keep me\n  Real x annotation(Placement(transformation(origin = {10, 20}, extent = {{-10, -10}, {10, 10}},"
            " rotation = 180), iconTransformation(extent = {{-5, -5}, {5, 5}})), Dialog(group = \"g\"));\nend M;\n")
    comp = parse(text).find("M").component("x")
    edit = apply_op(text, moved("M", comp, 5, -5))
    assert "origin = {15, 15}, extent = {{-10, -10}, {10, 10}}, rotation = 180), iconTransformation(extent" in edit.text
    assert 'Dialog(group = "g")' in edit.text and "// keep me" in edit.text
    flipped = apply_op(text, SetPlacement("M", "x", flip_h=True)).text
    assert placement_of(parse(flipped).find("M").component("x")).flip_h
    assert "extent = {{10, -10}, {-10, 10}}" in flipped


def test_placement_is_created_where_missing():
    text = 'model M\n  Real x "doc";\n  Real y annotation(Dialog(tab = "t"));\nend M;\n'
    t1 = apply_op(text, SetPlacement("M", "x", extent=((0, 0), (20, 20)))).text
    assert 'Real x "doc" annotation(Placement(transformation(extent = {{0, 0}, {20, 20}})));' in t1
    t2 = apply_op(t1, SetPlacement("M", "y", rotation=90)).text
    assert 'annotation(Placement(transformation(rotation = 90)), Dialog(tab = "t"))' in t2


def test_set_parameter_adds_replaces_and_removes_a_modifier(rc):
    text, lib = rc
    e1 = apply_op(text, SetParameter(None, "ground", "k", "3"), lib=lib)
    assert "Ground ground(k = 3) annotation" in e1.text
    e2 = apply_op(text, SetParameter(None, "resistor", "R", "2 * R"), lib=lib)
    assert "Resistor resistor(R = 2 * R)" in e2.text
    e3 = apply_op(text, SetParameter(None, "resistor", "R", None), lib=lib)
    assert "Resistor resistor annotation" in e3.text
    assert apply_op(e3.text, e3.inverse_op).text == text
    with pytest.raises(OpError, match=r"resistor\.R: '2 \*' is not a Modelica expression"):
        apply_op(text, SetParameter(None, "resistor", "R", "2 *"), lib=lib)
    with pytest.raises(OpError, match="has no component 'nope'"):
        apply_op(text, SetParameter(None, "nope", "R", "1"), lib=lib)


def test_rename_updates_connects_and_equations(rc):
    text, lib = rc
    edit = apply_op(text, RenameComponent(None, "resistor", "R1"), lib=lib)
    assert "Resistor R1(R = R)" in edit.text  # the modifier name R and the parameter R are not the component
    assert "connect(source.p, R1.p);" in edit.text and "current = R1.i;" in edit.text
    assert "resistor" not in edit.text.split("equation")[1]
    with pytest.raises(OpError, match="already has an element named 'ground'"):
        apply_op(text, RenameComponent(None, "resistor", "ground"), lib=lib)
    with pytest.raises(OpError, match="not a Modelica identifier"):
        apply_op(text, RenameComponent(None, "resistor", "end"), lib=lib)


def test_remove_component_removes_its_connects_and_add_restores(rc):
    text, lib = rc
    edit = apply_op(text, RemoveComponent(None, "ground"), lib=lib)
    assert "ground" not in edit.text and "connect(capacitor.n, source.n);" in edit.text
    assert len(edit.text.splitlines()) == len(text.splitlines()) - 2
    assert apply_op(edit.text, edit.inverse_op).text == text


def test_add_component_resolves_its_type_from_the_class(rc):
    text, lib = rc
    edit = apply_op(text, AddComponent(None, "Capacitor", "C2", {"C": "0.5"}, ((60, -10), (80, 10))), lib=lib)
    assert "  Capacitor C2(C = 0.5) annotation(Placement(transformation(extent = {{60, -10}, {80, 10}})));\n" in edit.text
    assert apply_op(edit.text, edit.inverse_op).text == text
    with pytest.raises(OpError, match="cannot find class Capacitr from RCCircuit"):
        apply_op(text, AddComponent(None, "Capacitr", "C2"), lib=lib)


def test_connections_add_route_and_remove(rc):
    text, lib = rc
    e1 = apply_op(text, AddConnection(None, "ground.p", "capacitor.n", ((0, -40), (40, -40))), lib=lib)
    assert "  connect(ground.p, capacitor.n) annotation(Line(points = {{0, -40}, {40, -40}}));\n" in e1.text
    e2 = apply_op(e1.text, SetLinePoints(None, "capacitor.n", "ground.p", ((0, -40), (0, -50), (40, -50))), lib=lib)
    assert "connect(ground.p, capacitor.n) annotation(Line(points = {{0, -40}, {0, -50}, {40, -50}}));" in e2.text
    e3 = apply_op(text, SetLinePoints(None, "source.p", "resistor.p", ((-60, 10), (-20, 40))), lib=lib)
    assert "connect(source.p, resistor.p) annotation(Line(points = {{-60, 10}, {-20, 40}}));" in e3.text
    e4 = apply_op(text, RemoveConnection(None, "resistor.p", "source.p"), lib=lib)
    assert "connect(source.p, resistor.p)" not in e4.text
    for e, before in ((e1, text), (e2, e1.text), (e3, text), (e4, text)):
        assert apply_op(e.text, e.inverse_op).text == before


@pytest.mark.parametrize(("a", "b", "reason"), [
    ("ground.p", "v_cap", "ground.p is a Pin connector (flow i, v) but v_cap is an output Real signal"),
    ("resistor.p", "resistor.p", "cannot be connected to itself"),
    ("resistor.R", "ground.p", "resistor.R is not a connector"),
    ("resistor.q", "ground.p", "Resistor has no connector 'q'"),
    ("nothing.p", "ground.p", "has no component or connector 'nothing'"),
    ("source.p", "resistor.p", "is already in RCCircuit"),
])
def test_incompatible_connections_are_refused_with_the_reason(rc, a, b, reason):
    text, lib = rc
    with pytest.raises(OpError) as err:
        apply_op(text, AddConnection(None, a, b), lib=lib)
    assert reason in str(err.value)


def test_signal_connections_check_causality_type_and_size(tmp_path):
    path = tmp_path / "Sig.mo"
    path.write_text("""package Sig
  connector RealOut = output Real;
  connector IntIn = input Integer;
  connector HeatPort
    Real T;
    flow Real Q_flow;
  end HeatPort;
  block Src
    RealOut y;
    RealOut ys[3];
  end Src;
  block Sink
    input Real u;
    IntIn k;
    HeatPort port;
  end Sink;
  model Top
    input Real cmd;
    output Real out;
    Src a;
    Src b;
    Sink s;
  equation
  end Top;
end Sig;
""", encoding="utf-8")
    text, lib = path.read_text(), library_for(path)
    refusals = {
        ("a.y", "b.y"): "a.y and b.y both drive the signal (two outputs)",
        ("a.y", "s.k"): "a.y is an output Real signal but s.k is an input Integer signal: the types differ",
        ("a.ys", "s.u"): "a.ys[3] and s.u (scalar) differ in array size",
        ("cmd", "a.y"): "cmd and a.y both drive the signal",
        ("s.port", "a.y"): "s.port is a HeatPort connector (Q_flow flow, T)".replace("Q_flow flow", "flow Q_flow"),
    }
    for (x, y), why in refusals.items():
        with pytest.raises(OpError) as err:
            apply_op(text, AddConnection("Sig.Top", x, y), lib=lib)
        assert why in str(err.value), (x, y, str(err.value))
    ok = apply_op(text, AddConnection("Sig.Top", "a.y", "s.u"), lib=lib).text
    ok = apply_op(ok, AddConnection("Sig.Top", "cmd", "s.u"), lib=lib).text
    ok = apply_op(ok, AddConnection("Sig.Top", "a.y", "out"), lib=lib).text
    assert "  equation\n    connect(a.y, s.u);\n    connect(cmd, s.u);\n    connect(a.y, out);\n  end Top;" in ok


def test_a_class_without_equations_gets_an_equation_section():
    text = "model M\n  P a, b;\nend M;\n"
    edit = apply_op(text, AddConnection("M", "a.p", "b.p"))
    assert edit.text == "model M\n  P a, b;\nequation\n  connect(a.p, b.p);\nend M;\n"
    assert apply_op(edit.text, edit.inverse_op).text == text


def test_bad_text_is_a_diagnostic_with_line_and_column():
    with pytest.raises(ParseError, match="line 3, column 5: 'end N' closes class 'M'"):
        parse("model M\n  Real x;\nend N;\n")
    with pytest.raises(ParseError, match="line 2, column 10: an unterminated string is not Modelica"):
        parse('model M\n  Real x "oops;\nend M;\n')
    with pytest.raises(OpError, match="the file does not parse"):
        apply_op("model M\n", SetParameter("M", "x", "k", "1"))
    for good in ("1", "-2.5e3", "a.b[1] + f(x, y = 2)", "{{1, 2}, {3, 4}}", "if a then 1 else 2", "[1, 2; 3, 4]"):
        parse_value(good)
    for bad in ("", "1 +", "(1", "f(,)", "if a then 1", "1 2"):
        with pytest.raises(ParseError):
            parse_value(bad)


def test_edited_models_still_compile(rc):
    from luncosim_core.modelica import compile_model

    text, lib = rc
    for op in (RenameComponent(None, "resistor", "R1"), SetParameter(None, "R1", "R", "2 * R"),
               moved(None, parse(text).find(None).component("source"), 10, 0),
               AddComponent(None, "Resistor", "leak", {"R": "1e4"}, extent=((60, -10), (80, 10)), rotation=-90),
               AddConnection(None, "leak.p", "capacitor.p", ((70, 10), (40, 10))),
               AddConnection(None, "capacitor.n", "leak.n"),
               SetLinePoints(None, "source.p", "R1.p", ((-60, 10), (-60, 40), (-20, 40)))):
        text = apply_op(text, op, lib=lib).text
    cm = compile_model(RC, source_text=text)
    assert cm.ok, cm.diagnostics
    assert {v.name for v in cm.interface.parameters} >= {"R", "C"}


def test_edited_lunco_model_still_compiles(external_assets):
    from luncosim_core.modelica import compile_model

    path = external_assets / "models" / "RC_Circuit.mo"
    text = path.read_text(encoding="utf-8")
    sd = parse(text)
    cls = sd.find(None)
    lib = library_for(path)
    for comp in cls.components:
        if comp.placement is not None:
            text = apply_op(text, moved(None, parse(text).find(None).component(comp.name), 4, -2), lib=lib).text
    first = cls.components[-1].name
    text = apply_op(text, RenameComponent(None, first, first + "_2"), lib=lib).text
    cm = compile_model(path, source_text=text)
    assert cm.ok, cm.diagnostics
