"""Input generators: grammar-aware USDA and twin.toml, and byte mutations of real files."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
WEIRD_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)


def _escaped(text: str, control: str) -> str:
    """``text`` as the inside of a double-quoted string: backslashes, quotes and control
    characters escaped (``control`` formats a control character's code point), so a generated
    file is valid text and reaches the checks behind the parser (junk is the mutators' job)."""
    out = []
    for ch in text:
        if ch in ('\\', '"'):
            out.append('\\' + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(control.format(ord(ch)))
        else:
            out.append(ch)
    return "".join(out)


def toml_string(text: str) -> str:
    """A TOML basic string (control characters as ``\\uXXXX``, which TOML requires)."""
    return '"' + _escaped(text, "\\u{:04X}") + '"'


def usda_string(text: str) -> str:
    """A USDA string (control characters as ``\\xHH``)."""
    return '"' + _escaped(text, "\\x{:02x}") + '"'


PRIM_TYPES = st.sampled_from(["Xform", "Scope", "Cube", "Sphere", "Cylinder", "Capsule", "Mesh", "PhysicsScene",
                              "PhysicsRevoluteJoint", "PhysicsFixedJoint", "Material", "", "NotAType"])
SCHEMAS = st.sampled_from(["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI", "LunCoProgramAPI",
                           "PhysicsDriveAPI:angular", "MaterialBindingAPI", "Bogus"])
NUMBER = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32).map(lambda f: repr(float(f))
                   .replace("nan", "nan").replace("inf", "inf")), st.integers(-10**12, 10**12).map(str))
ASSET = st.one_of(st.sampled_from(["./x.usda", "../../etc/passwd", "lunco://vessels/rovers/yard_rover.usda",
                                   "twin://scenes/a.usda", "/dev/zero", "file:///etc/hosts", "lunco://../../x",
                                   "", "missing.usda", "s.usda"]),
                  WEIRD_TEXT.map(lambda s: "".join(c for c in s if c != "@" and unicodedata.category(c) != "Cc")))
REF_ASSET = ASSET.filter(bool)  # a reference's asset path must not be empty (USD: a syntax error)


@st.composite
def attribute(draw) -> str:
    kind = draw(st.sampled_from(["float", "double", "double3", "float3", "int", "bool", "token", "string",
                                 "asset", "rel", "quatf", "matrix4d", "uniform token[]"]))
    name = draw(st.sampled_from(["physics:mass", "physics:density", "xformOp:translate", "xformOp:scale",
                                 "xformOp:orient", "inputs:throttle", "outputs:speed", "physics:body0",
                                 "physics:localPos0", "physics:axis", "size", "radius", "xformOpOrder",
                                 "info:sourceAsset", "info:sourceCode", "physics:lowerLimit"]) | IDENT)
    if kind == "rel":
        target = "/" + "/".join(draw(st.lists(IDENT, min_size=1, max_size=3)))
        return f"rel {name} = <{target}>"
    if kind in ("double3", "float3"):
        value = "(" + ", ".join(draw(NUMBER) for _ in range(3)) + ")"
    elif kind == "quatf":
        value = "(" + ", ".join(draw(NUMBER) for _ in range(4)) + ")"
    elif kind == "matrix4d":
        value = "( " + ", ".join("(" + ", ".join(draw(NUMBER) for _ in range(4)) + ")" for _ in range(4)) + " )"
    elif kind in ("token", "string"):
        value = usda_string(draw(WEIRD_TEXT))
    elif kind == "asset":
        value = "@" + draw(ASSET) + "@"
    elif kind == "bool":
        value = draw(st.sampled_from(["true", "false", "1", "0"]))
    elif kind == "int":
        value = draw(st.integers(-2**31, 2**31 - 1).map(str) | NUMBER)  # a float now and then: a type error
    elif kind == "uniform token[]":
        value = '["xformOp:translate", "xformOp:orient", "xformOp:scale"]'
    else:
        value = draw(NUMBER)
    conn = draw(st.booleans())
    text = f"{kind} {name} = {value}"
    if conn and name.startswith("inputs:"):
        text += f"\n{kind} {name}.connect = </{draw(IDENT)}.outputs:{draw(IDENT)}>"
    return text


@st.composite
def prim(draw, depth: int = 0) -> str:
    spec = draw(st.sampled_from(["def", "over", "class"]))
    ptype = draw(PRIM_TYPES)
    name = draw(IDENT)
    meta = []
    if draw(st.booleans()):
        meta.append(f'prepend apiSchemas = [{", ".join(chr(34) + s + chr(34) for s in draw(st.lists(SCHEMAS, min_size=1, max_size=3)))}]')
    if draw(st.integers(0, 4)) == 0:
        meta.append(f"prepend references = @{draw(REF_ASSET)}@")
    header = f'{spec} {ptype + " " if ptype else ""}"{name}"' + (" (\n" + "\n".join(meta) + "\n)" if meta else "")
    body, names = [], set()
    for _ in range(draw(st.integers(0, 5))):
        text = draw(attribute())
        name = text.split(" = ", 1)[0].split()[-1]
        if name not in names:  # one type per attribute name (a redeclared type is a syntax error)
            names.add(name)
            body.append(text)
    if depth < 3:
        body += [draw(prim(depth + 1)) for _ in range(draw(st.integers(0, 3)))]
    return header + "\n{\n" + "\n".join(body) + "\n}"


@st.composite
def usda_document(draw) -> str:
    meta = []
    if draw(st.booleans()):
        meta.append(f'defaultPrim = "{draw(IDENT)}"')
    if draw(st.booleans()):
        meta.append(f'upAxis = "{draw(st.sampled_from(["Y", "Z", "X", "W"]))}"')
    if draw(st.booleans()):
        meta.append(f"metersPerUnit = {draw(NUMBER)}")
    if draw(st.integers(0, 3)) == 0:
        meta.append(f"subLayers = [@{draw(ASSET)}@]")
    head = "#usda 1.0\n" + ("(\n" + "\n".join(meta) + "\n)\n" if meta else "")
    return head + "\n".join(draw(st.lists(prim(), max_size=4)))


def seed_files(suffixes: tuple[str, ...]) -> list[bytes]:
    """Real files of ours to mutate."""
    files = sorted(p for p in (REPO / "assets").rglob("*") if p.suffix in suffixes and p.is_file())
    return [p.read_bytes() for p in files[:40]]


@st.composite
def mutated(draw, corpus: list[bytes]) -> bytes:
    """A real file with a few byte flips, insertions, deletions or duplicated spans."""
    data = bytearray(draw(st.sampled_from(corpus)))
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "insert", "delete", "dup", "truncate"]))
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[i:i + draw(st.integers(1, 16))]
        elif op == "dup":
            j = min(len(data), i + draw(st.integers(1, 64)))
            data[j:j] = data[i:j]
        else:
            del data[i:]
    return bytes(data)


_NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
_STRING_RE = re.compile(r'"[^"\\\n]*"')
ODD_NUMBERS = st.sampled_from(["0", "-0", "1e-30", "-5", "1e9", "1e30", "1e308", "-1e308", "nan", "inf", "-inf",
                               "3", "0.5", "123456789012", "-1"])


@st.composite
def mutated_text(draw, corpus: list[bytes], quote=None) -> bytes:
    """A real text file with a few line and token edits: a number swapped for an odd one (0, NaN,
    1e30, ...), a string for odd text, a line deleted, duplicated or moved. Most results still
    parse, so they reach the checks behind the parser; one in four also gets byte mutations.
    ``quote`` makes a string literal of the format (default: :func:`usda_string`)."""
    quote = quote or usda_string
    lines = draw(st.sampled_from(corpus)).decode("utf-8", "replace").split("\n")
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["number"] * 6 + ["string", "delete", "dup", "move"]))
        if op in ("number", "string"):
            pattern = _NUMBER_RE if op == "number" else _STRING_RE
            where = [i for i, line in enumerate(lines) if i and pattern.search(line)]  # line 1: the header
            if not where:
                continue
            i = draw(st.sampled_from(where))
            found = list(pattern.finditer(lines[i]))
            m = found[draw(st.integers(0, len(found) - 1))]
            new = draw(ODD_NUMBERS | NUMBER) if op == "number" else quote(draw(WEIRD_TEXT))
            lines[i] = lines[i][:m.start()] + new + lines[i][m.end():]
            continue
        if len(lines) < 2:
            continue
        i = draw(st.integers(1, len(lines) - 1))
        if op == "delete" and len(lines) > 2:
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "move":
            lines.insert(draw(st.integers(1, len(lines) - 1)), lines.pop(i))
    data = "\n".join(lines).encode("utf-8")
    if draw(st.sampled_from(range(4))) == 3:
        data = draw(mutated([data]))
    return data


TOML_VALUE = st.one_of(st.integers(-2**63, 2**63 - 1), st.sampled_from(["true", "false"]), WEIRD_TEXT.map(toml_string),
                       st.just("[1, 2]"), st.just('["scenes/*.usda", "../x"]'), st.just("{a = 1}"), st.just("1979-05-27"))
TOML_BREAKERS = ["[usd", "= 3", "name = ", "[[usd]]", "\x00"]  # a syntax error, now and then (1 in 8)


@st.composite
def twin_toml(draw) -> str:
    """A manifest from the grammar: valid TOML (7 in 8) whose keys, types and values the manifest
    validator judges; the rest breaks the syntax on purpose."""
    lines = []
    table = draw(st.booleans())
    if draw(st.booleans()):
        lines.append(f"name = {draw(TOML_VALUE)}")
    top = ["version", "description", "bogus"] + ([] if table else ["usd"])  # `usd = ...` and [usd]: a duplicate
    for key in draw(st.lists(st.sampled_from(top), max_size=3, unique=True)):
        lines.append(f"{key} = {draw(TOML_VALUE)}")
    if table:
        lines.append("[usd]")
        for key in draw(st.lists(st.sampled_from(["default_scene", "scenes", "runtime_persistence",
                                                  "composition_policy", "extra"]), max_size=4, unique=True)):
            value = draw(st.one_of(TOML_VALUE, st.sampled_from(['"scenes/s.usda"', '"s.usda"', '"../s.usda"',
                                                                 '"/etc/passwd"', '"twin.toml"', '"scenes"'])))
            lines.append(f"{key} = {value}")
    if draw(st.sampled_from(range(8))) == 7:  # (integers(0, 7) would favour the 0 end)
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(TOML_BREAKERS)))
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------ Rhai source
RHAI_VARS = st.sampled_from(["a", "b", "c", "xs", "m", "s", "i"])
RHAI_ATOMS = st.one_of(
    st.integers(-1000, 1000).map(str), st.integers(-2**63 + 1, 2**63 - 1).map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["true", "false", "()", "'x'", '"text"', "`t${1 + 2}`", "[]", "#{}", "[1, 2.5, \"x\"]",
                     "#{a: 1, b: [2]}", "0..10", "1..=3", "9223372036854775807",
                     "1e308", "0.0", "|x| x + 1", "Fn(\"len\")"]),
    RHAI_VARS)
RHAI_BINOPS = st.sampled_from(["+", "-", "*", "/", "%", "**", "==", "!=", "<", ">=", "&&", "||", "&", "|", "^",
                               "<<", ">>", "in", "??"])
RHAI_CALLS = st.sampled_from(["len", "to_string", "type_of", "abs", "floor", "sqrt", "parse_int", "push", "pop",
                              "keys", "values", "contains", "sub_string", "split", "sort", "reverse", "print",
                              "to_float", "to_int", "is_empty", "undefined_fn"])


@st.composite
def rhai_expr(draw, depth: int = 0) -> str:
    if depth > 3 or draw(st.integers(0, 3)) == 0:
        return draw(RHAI_ATOMS)
    kind = draw(st.sampled_from(["bin", "un", "call", "method", "index", "if", "array", "map", "paren", "closure"]))
    sub = lambda: draw(rhai_expr(depth + 1))  # noqa: E731
    if kind == "bin":
        return f"{sub()} {draw(RHAI_BINOPS)} {sub()}"
    if kind == "un":
        return f"{draw(st.sampled_from(['-', '!', '+']))}{sub()}"
    if kind == "call":
        return f"{draw(RHAI_CALLS)}({', '.join(sub() for _ in range(draw(st.integers(0, 3))))})"
    if kind == "method":
        return f"{sub()}.{draw(RHAI_CALLS)}({', '.join(sub() for _ in range(draw(st.integers(0, 2))))})"
    if kind == "index":
        return f"{sub()}[{sub()}]"
    if kind == "if":
        return f"if {sub()} {{ {sub()} }} else {{ {sub()} }}"
    if kind == "array":
        return "[" + ", ".join(sub() for _ in range(draw(st.integers(0, 4)))) + "]"
    if kind == "map":
        return "#{" + ", ".join(f"{draw(IDENT)}: {sub()}" for _ in range(draw(st.integers(0, 3)))) + "}"
    if kind == "closure":
        return f"|{draw(RHAI_VARS)}| {sub()}"
    return f"({sub()})"


@st.composite
def rhai_stmt(draw, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["let", "const", "assign", "op_assign", "expr", "while", "loop", "for", "fn", "if",
                                 "throw", "return", "try", "switch", "emit"]))
    e = lambda: draw(rhai_expr())  # noqa: E731
    block = lambda: "{ " + " ".join(draw(rhai_stmt(depth + 1)) for _ in range(draw(st.integers(0, 2 if depth < 2 else 0)))) + " }"  # noqa: E731
    v = draw(RHAI_VARS)
    if kind == "let":
        return f"let {v} = {e()};"
    if kind == "const":
        return f"const {v.upper()} = {e()};"
    if kind == "assign":
        return f"{v} = {e()};"
    if kind == "op_assign":
        return f"{v} {draw(st.sampled_from(['+=', '-=', '*=', '/=', '%=', '<<=']))} {e()};"
    if kind == "while":
        return f"while {e()} {block()}"
    if kind == "loop":
        return f"loop {{ {draw(rhai_stmt(depth + 1)) if depth < 2 else ''} break; }}"
    if kind == "for":
        return f"for {v} in {e()} {block()}"
    if kind == "fn" and depth == 0:  # functions live at global level (elsewhere: a syntax error, rarely)
        return f"fn {draw(IDENT)}({', '.join(draw(st.lists(RHAI_VARS, max_size=3, unique=True)))}) {block()}"
    if kind == "if":
        return f"if {e()} {block()} else {block()}"
    if kind == "throw":
        return f"throw {e()};"
    if kind == "return":
        return f"return {e()};"
    if kind == "try":
        return f"try {block()} catch (err) {block()}"
    if kind == "switch":
        return f"switch {e()} {{ 1 => {e()}, 2 | 3 => {e()}, _ => {e()} }}"
    if kind == "fn":
        return f"{v}.push({e()});"
    return f"emit({e()}, {e()});"


@st.composite
def rhai_program(draw) -> str:
    """A Rhai program from the grammar, now and then with an absurdly nested expression."""
    lines = ["let a = 1; let b = 2.5; let c = \"c\"; let xs = [1, 2, 3]; let m = #{k: 1}; let s = \"s\"; let i = 0;"]
    lines += [draw(rhai_stmt()) for _ in range(draw(st.integers(1, 8)))]
    if draw(st.integers(0, 9)) == 5:
        depth = draw(st.sampled_from([100, 1000, 10_000]))
        lines.append("let deep = " + "(" * depth + "1" + ")" * depth + ";")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ Modelica source
# mostly valid: a model that compiles reaches the stepper; the invalid choices come now and then
MO_FUNCS = st.sampled_from(["sin", "cos", "exp", "sqrt", "log", "abs", "tanh", "sign", "floor", "max", "min",
                            "noEvent", "smooth"] * 3 + ["der", "pre", "unknownFn"])
MO_ATOMS = st.one_of(st.sampled_from(["time", "x", "y", "u", "p", "k", "0", "1", "2.5", "1e300", "(-1e-300)", "0.0"]), st.floats(allow_nan=False, allow_infinity=False, width=32)
                     .map(lambda f: f"({float(f)!r})" if repr(float(f)).startswith("-") else repr(float(f))))
#: start values: numbers and parameters (a start naming a variable or time is an error, 1 in 12)
MO_START = st.one_of(st.sampled_from(["0", "1", "2.5", "p", "k", "(-1)", "1e300"] * 3 + ["time", "x", "y"]),
                     st.floats(-1e6, 1e6, width=32).map(lambda f: f"({float(f)!r})"))


@st.composite
def mo_expr(draw, depth: int = 0) -> str:
    if depth > 3 or draw(st.integers(0, 2)) == 0:
        return draw(MO_ATOMS)
    kind = draw(st.sampled_from(["bin", "neg", "call", "if", "paren", "pow"]))
    sub = lambda: draw(mo_expr(depth + 1))  # noqa: E731
    if kind == "bin":
        return f"{sub()} {draw(st.sampled_from(['+', '-', '*', '/', '+', '*']))} {sub()}"
    if kind == "neg":
        return f"(-{sub()})"
    if kind == "call":
        name = draw(MO_FUNCS)
        n = 2 if name in ("max", "min", "smooth") else 1
        return f"{name}({', '.join(sub() for _ in range(n))})"
    if kind == "if":
        test = f"{sub()} {draw(st.sampled_from(['<', '>=', '>', '<='] * 3 + ['==', '<>']))} {sub()}"
        if draw(st.integers(0, 3)) == 2:
            test = f"({test}) {draw(st.sampled_from(['and', 'or']))} {sub()} > 0"
        return f"(if {test} then {sub()} else {sub()})"
    if kind == "pow":
        return f"({sub()})^({sub()})"
    return f"({sub()})"


@st.composite
def modelica_model(draw) -> str:
    """A small Modelica model from the grammar: parameters, states, inputs/outputs, equations
    (sometimes a when-clause, an unbalanced system or deeply nested brackets)."""
    decls = [f"parameter Real p = {draw(st.sampled_from(['1', '0', '-3.5', '1e-9', '2*k', '1e308'] * 2 + ['k/0']))};", "parameter Real k = 2;",
             f"Real x(start = {draw(MO_START)}{', fixed = true' if draw(st.booleans()) else ''});",
             "input Real u = 1;" if draw(st.booleans()) else "Real u = 1;", "output Real y;"]
    if draw(st.booleans()):
        decls.append("discrete Real d(start = 0);")
    eqs = [f"der(x) = {draw(mo_expr())};", f"y = {draw(mo_expr())};"]
    if draw(st.integers(0, 5)) == 3:
        eqs.append(f"{draw(st.sampled_from(['x', 'y', 'u', 'z']))} = {draw(mo_expr())};")  # unbalanced / unknown
    if any("discrete" in d for d in decls):
        eqs.append(f"when {draw(mo_expr())} > 0 then d = pre(d) + 1; end when;")
    if draw(st.integers(0, 9)) == 5:
        depth = draw(st.sampled_from([50, 500, 3000, 10_000]))  # 10,000 overflows rumoca: a contained crash
        eqs[-1] = eqs[-1].rstrip(";") + " + " + "(" * depth + "1" + ")" * depth + ";"
    name = draw(st.sampled_from(["Fuzz", "M", "Fuzz_2"] * 10 + ["model"]))
    body = "\n  ".join(decls) + "\nequation\n  " + "\n  ".join(eqs)
    if draw(st.integers(0, 11)) == 6:
        body = body.replace("equation", draw(st.sampled_from(["algorithm", "", "equation equation"])))
    return f"model {name}\n  {body}\nend {name};\n"


def modelica_seeds() -> list[bytes]:
    """Our library's models made standalone (``within`` dropped, the class renamed so it does not
    clash with the bundled library it still uses): real files to mutate."""
    import re

    out = []
    for p in sorted((REPO / "assets" / "models" / "Workbench").rglob("*.mo")):
        text = re.sub(r"^\s*within\b[^;]*;", "", p.read_text(encoding="utf-8"), flags=re.M)
        m = re.search(r"^\s*(model|block)\s+(\w+)", text, flags=re.M)
        if m:
            out.append(re.sub(rf"\b{m.group(2)}\b", m.group(2) + "Seed", text).encode("utf-8"))
    return out
