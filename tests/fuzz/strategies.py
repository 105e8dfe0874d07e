"""Input generators: grammar-aware USDA and twin.toml, and byte mutations of real files."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]

IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
WEIRD_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=24)
PRIM_TYPES = st.sampled_from(["Xform", "Scope", "Cube", "Sphere", "Cylinder", "Capsule", "Mesh", "PhysicsScene",
                              "PhysicsRevoluteJoint", "PhysicsFixedJoint", "Material", "", "NotAType"])
SCHEMAS = st.sampled_from(["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI", "LunCoProgramAPI",
                           "PhysicsDriveAPI:angular", "MaterialBindingAPI", "Bogus"])
NUMBER = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=32).map(lambda f: repr(float(f))
                   .replace("nan", "nan").replace("inf", "inf")), st.integers(-10**12, 10**12).map(str))
ASSET = st.one_of(st.sampled_from(["./x.usda", "../../etc/passwd", "lunco://vessels/rovers/yard_rover.usda",
                                   "twin://scenes/a.usda", "/dev/zero", "file:///etc/hosts", "lunco://../../x",
                                   "", "missing.usda", "s.usda"]), WEIRD_TEXT.filter(lambda s: "@" not in s))


@st.composite
def attribute(draw) -> str:
    kind = draw(st.sampled_from(["float", "double", "double3", "float3", "int", "bool", "token", "string",
                                 "asset", "rel", "quatf", "matrix4d", "uniform token[]"]))
    name = draw(st.sampled_from(["physics:mass", "physics:density", "xformOp:translate", "xformOp:scale",
                                 "xformOp:orient", "inputs:throttle", "outputs:speed", "physics:body0",
                                 "physics:localPos0", "physics:axis", "size", "radius", "xformOpOrder",
                                 "info:sourceAsset", "info:sourceCode", "physics:lowerLimit"]) | IDENT)
    if kind == "rel":
        target = draw(st.from_regex(r"/[A-Za-z_][A-Za-z0-9_/]{0,20}", fullmatch=True))
        return f"rel {name} = <{target}>"
    if kind in ("double3", "float3"):
        value = "(" + ", ".join(draw(NUMBER) for _ in range(3)) + ")"
    elif kind == "quatf":
        value = "(" + ", ".join(draw(NUMBER) for _ in range(4)) + ")"
    elif kind == "matrix4d":
        value = "( " + ", ".join("(" + ", ".join(draw(NUMBER) for _ in range(4)) + ")" for _ in range(4)) + " )"
    elif kind in ("token", "string"):
        value = '"' + draw(WEIRD_TEXT).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    elif kind == "asset":
        value = "@" + draw(ASSET) + "@"
    elif kind == "bool":
        value = draw(st.sampled_from(["true", "false", "1", "0"]))
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
        meta.append(f'prepend apiSchemas = [{", ".join(chr(34) + s + chr(34) for s in draw(st.lists(SCHEMAS, max_size=3)))}]')
    if draw(st.integers(0, 4)) == 0:
        meta.append(f"prepend references = @{draw(ASSET)}@")
    header = f'{spec} {ptype + " " if ptype else ""}"{name}"' + (" (\n" + "\n".join(meta) + "\n)" if meta else "")
    body = [draw(attribute()) for _ in range(draw(st.integers(0, 5)))]
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


TOML_VALUE = st.one_of(st.integers(), st.booleans(), WEIRD_TEXT.map(lambda s: '"' + s.replace("\\", "\\\\").replace('"', "'").replace("\n", " ") + '"'),
                       st.just("[1, 2]"), st.just('["scenes/*.usda", "../x"]'), st.just("{a = 1}"), st.just("1979-05-27"))


@st.composite
def twin_toml(draw) -> str:
    lines = []
    if draw(st.booleans()):
        lines.append(f"name = {draw(TOML_VALUE)}")
    for key in draw(st.lists(st.sampled_from(["version", "description", "bogus", "usd"]), max_size=3, unique=True)):
        lines.append(f"{key} = {draw(TOML_VALUE)}")
    if draw(st.booleans()):
        lines.append("[usd]")
        for key in draw(st.lists(st.sampled_from(["default_scene", "scenes", "runtime_persistence",
                                                  "composition_policy", "extra"]), max_size=4, unique=True)):
            value = draw(st.one_of(TOML_VALUE, st.sampled_from(['"scenes/s.usda"', '"s.usda"', '"../s.usda"',
                                                                 '"/etc/passwd"', '"twin.toml"', '"scenes"'])))
            lines.append(f"{key} = {value}")
    if draw(st.integers(0, 3)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["[usd", "= 3", "name = ", "[[usd]]", "\x00"])))
    return "\n".join(lines) + "\n"
