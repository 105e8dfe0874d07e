"""Language services behind the editor, without Qt: snippets, outline, F12 through the resolver,
find references, import completion."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from luncosim_core.language.modelica import definition
from luncosim_core.language.outline import outline
from luncosim_core.language.references import references
from luncosim_core.language.rhai import rhai_function_param_list, rhai_modules
from luncosim_core.language.snippets import MODELICA, RHAI, expand
from luncosim_core.twin.roots import AssetRoots, repository_root

DEMO = repository_root() / "assets" / "twins" / "practice_yard"
USE = ("model Use\n  Workbench.Control.FirstOrder lag(T = 0.5);\n  Real z;\nequation\n  lag.u = z;\n"
       "  z = lag.y; // FirstOrder in a comment\nend Use;\n")


@pytest.fixture
def twin(tmp_path):
    root = tmp_path / "yard"
    shutil.copytree(DEMO, root)
    (root / "models").mkdir()
    (root / "models" / "Use.mo").write_text(USE)
    (root / "models" / "Other.mo").write_text("model Other\n  import Workbench.Control.FirstOrder;\n  FirstOrder f;\n"
                                               "end Other;\n")
    (root / "scenarios" / "helpers.rhai").write_text("fn double(x) {\n    x * 2\n}\nfn quad(x) { double(double(x)) }\n")
    (root / "scenarios" / "user.rhai").write_text('import "scenarios/helpers" as h;\n'
                                                  'fn on_tick(me) { let d = h::double(2); let s = "double"; }\n')
    return root


def test_a_snippet_expands_with_its_fields_indent_and_final_caret():
    model = next(s for s in MODELICA if s.trigger == "model")
    text, fields, caret = expand(model, "  ")
    assert text == 'model Name "description"\n    Real x(start = 0);\n  equation\n    \n  end Name;'
    assert [(n, text[a:b]) for n, a, b in fields] == [(1, "Name"), (2, "description"), (3, "Real x(start = 0);"),
                                                      (1, "Name")]
    assert text[:caret].endswith("equation\n    ")
    assert {s.trigger for s in MODELICA} == {"model", "connect", "der", "annotation"}
    assert {s.trigger for s in RHAI} == {"fn", "on_tick", "if", "for"}
    assert all(" " not in s.label for s in MODELICA + RHAI)  # one word in the completion list


def test_outlines_of_a_model_and_a_scenario():
    names = [(s.depth, s.kind, s.name) for s in outline("modelica", USE)]
    assert names == [(0, "model", "Use"), (1, "component", "lag"), (1, "component", "z"), (1, "equations", "equation"),
                     (2, "equation", "lag.u = z;"), (2, "equation", "z = lag.y;")]
    assert outline("modelica", "model Broken\n  Real x\nend Broken;\n") is None  # does not parse: keep the old one
    rhai = outline("rhai", "fn on_tick(me) { }\nfn on_tick() { }\nfn helper(a, b) { a }\n")
    assert [(s.kind, s.name, s.detail, s.line) for s in rhai] == [("hook", "on_tick", "me", 1),
                                                                  ("function", "on_tick", "", 2),
                                                                  ("function", "helper", "a, b", 3)]


def test_f12_resolves_classes_packages_components_and_their_fields(twin):
    path = twin / "models" / "Use.mo"
    roots = AssetRoots(twin)
    at = lambda word, k=0: USE.index(word) + k  # noqa: E731
    first = definition(USE, path, at("FirstOrder"), roots)
    assert (first.file.name, first.line, first.column) == ("FirstOrder.mo", 2, 7)
    package = definition(USE, path, at("Control"), roots)
    assert (package.file.parent.name, package.file.name) == ("Control", "package.mo")
    field = definition(USE, path, at("lag.u", 4), roots)
    assert (field.file.name, field.line, field.column) == ("FirstOrder.mo", 6, 14)
    comp = definition(USE, path, at("lag.y"), roots)
    assert (comp.file, comp.line, comp.column) == (path.resolve(), 2, 32)
    assert definition(USE, path, at("Real"), roots) is None  # a builtin type


def test_references_to_a_class_a_component_and_a_rhai_function(twin):
    roots = AssetRoots(twin)
    use = twin / "models" / "Use.mo"
    name, refs = references(use, USE, USE.index("FirstOrder"), roots)
    rel = [(r.file.name, r.line, r.column) for r in refs]
    assert name == "FirstOrder"
    assert rel == [("FirstOrder.mo", 2, 7), ("Other.mo", 2, 28), ("Other.mo", 3, 3), ("Use.mo", 2, 21)]  # no comment
    name, refs = references(use, USE, USE.index("lag.u"), roots)
    assert name == "lag" and [(r.line, r.column) for r in refs] == [(2, 32), (5, 3), (6, 7)]
    helpers = twin / "scenarios" / "helpers.rhai"
    text = helpers.read_text()
    name, refs = references(helpers, text, text.index("double"), roots)
    assert [(r.file.name, r.line, r.column) for r in refs] == [("helpers.rhai", 1, 4), ("helpers.rhai", 4, 14),
                                                                ("helpers.rhai", 4, 21), ("user.rhai", 2, 29)]
    # an open buffer's text wins over the file's
    name, refs = references(helpers, text, text.index("double"), roots,
                            {twin / "scenarios" / "user.rhai": 'import "scenarios/helpers" as h;\nh::double(1);\n'})
    assert ("user.rhai", 2, 4) in [(r.file.name, r.line, r.column) for r in refs]


def test_import_completion_lists_modules_as_the_runtime_resolves_them(twin):
    mods = rhai_modules(twin / "scenarios" / "user.rhai", AssetRoots(twin))
    assert "scenarios/helpers" in mods and "scenarios/yard_drill" in mods and "scenarios/user" not in mods
    text = "fn a(x, y) { }\nprivate fn b() {}\nfn ab(z) {}\n"
    assert (rhai_function_param_list(text, "a"), rhai_function_param_list(text, "b")) == ("x, y", "")
    assert rhai_function_param_list(text, "ab") == "z" and rhai_function_param_list(text, "c") is None
    assert rhai_modules(None, None) == []
    assert isinstance(mods[0], str) and not Path(mods[0]).suffix
