"""Rhai language services for the editor and ``check``: diagnostics, the host API, definitions.

Diagnostics are what the scenario runtime would say before running: our parser and compiler
(positioned syntax errors) plus calls to functions that exist nowhere (not in the script, not in
the host API or the standard library at that arity, not in the prelude), as warnings at the call.
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass
from pathlib import Path

from luncosim_core.api.commands import CommandResult
from luncosim_core.api.host import Pose, SimTime
from luncosim_core.diagnostics import Diagnostic
from luncosim_core.scripting.rhai.errors import RhaiError
from luncosim_core.scripting.rhai.parser import parse


class SceneFreeHost:
    """A :class:`~luncosim_core.api.host.Host` with no scene: what the checker compiles against."""

    def time(self) -> SimTime:
        return SimTime(0, 0.0, 1 / 60)

    def prim_paths(self) -> tuple[str, ...]:
        return ()

    def prim_type(self, path: str) -> str:
        return ""

    def display_name(self, path: str) -> str:
        return ""

    def catalog_id(self, path: str) -> str:
        return ""

    def prim_param(self, path: str, key: str):
        return None

    def program_kind(self, path: str) -> str:
        return ""

    def port_names(self, path: str) -> tuple[str, ...]:
        return ()

    def has_port(self, path: str, name: str) -> bool:
        return False

    def read_port(self, path: str, name: str):
        return None

    def pose(self, path: str) -> Pose | None:
        return None

    def execute(self, command) -> CommandResult:
        return CommandResult.error(Diagnostic("error", "no-scene", "checking only", source="rhai"))

    def query(self, query) -> CommandResult:
        return CommandResult.error(Diagnostic("error", "no-scene", "checking only", source="rhai"))

    def next_sequence(self) -> int:
        return 0

    def publish(self, event) -> None:
        return None


#: Rhai's keywords (highlighting, completion)
KEYWORDS = ("fn", "let", "const", "if", "else", "while", "loop", "for", "in", "do", "until", "break", "continue",
            "return", "throw", "try", "catch", "import", "export", "as", "private", "this", "switch", "true",
            "false", "global", "Fn", "call", "curry", "is_shared")


def scene_words(stage, port_keys=()) -> list[str]:
    """What a string argument of ``find``/``get``/``set`` may name: the prim paths of ``stage``, the
    port names its prims declare (``inputs:``/``outputs:``) and those the running simulation
    publishes (``port_keys``: ``/Prim.port``)."""
    words: set[str] = set()
    if stage is not None:
        for prim in stage.Traverse():
            words.add(str(prim.GetPath()))
            for attr in prim.GetAuthoredAttributes():
                name = attr.GetName()
                if name.startswith(("inputs:", "outputs:")):
                    words.add(name.split(":", 1)[1])
    words.update(k.rsplit(".", 1)[-1] for k in port_keys)
    return sorted(w for w in words if w and " " not in w)


@dataclass(frozen=True)
class HostFunction:
    name: str
    signature: str  # e.g. "get(entity, port)"
    kind: str  # host | prelude | builtin


@functools.lru_cache(maxsize=4)
def _runtime(lunco_root: str | None, twin_root: str | None):
    from luncosim_core.scripting.runtime import ScenarioRuntime
    from luncosim_core.twin.roots import AssetRoots

    roots = AssetRoots(Path(twin_root) if twin_root else None, Path(lunco_root)) if lunco_root else None
    return ScenarioRuntime(SceneFreeHost(), roots=roots)


def _roots_key(roots) -> tuple[str | None, str | None]:
    if roots is None:
        return None, None
    return str(roots.lunco_root), str(roots.twin_root) if roots.twin_root else None


@functools.lru_cache(maxsize=4)
def _host_functions(key: tuple) -> tuple[HostFunction, ...]:
    from luncosim_core.scripting.host import commands, entities, events, geometry, ports
    from luncosim_core.scripting.host.guard import Guard

    rt = _runtime(*key)
    out: dict[str, HostFunction] = {}
    guard = Guard(rt)
    for concern in (entities, ports, geometry, events, commands):
        for name, fn in concern.functions(rt, guard).items():
            try:
                params = ", ".join(p.name for p in inspect.signature(fn).parameters.values())
            except (TypeError, ValueError):
                params = "..."
            out[name] = HostFunction(name, f"{name}({params})", "host")
    for (name, arity), _fns in rt.engine.rt.global_fns.items():
        args = ", ".join(f"a{i + 1}" for i in range(arity))
        out.setdefault(name, HostFunction(name, f"{name}({args})", "prelude"))
    for name in rt.engine.rt.natives:
        out.setdefault(name, HostFunction(name, f"{name}(...)", "builtin"))
    return tuple(sorted(out.values(), key=lambda f: f.name))


def host_functions(roots=None) -> tuple[HostFunction, ...]:
    """Every function a scenario may call: the host API (with parameter names), the prelude's
    helpers and the standard library."""
    return _host_functions(_roots_key(roots))


def _known(rt, name: str, arity: int) -> bool:
    r = rt.engine.rt
    if name in r.variadic or arity in r.natives.get(name, {}):
        return True
    return (name, arity) in r.global_fns


def _walk(node, calls: list, names: set[str]) -> None:
    """One pass over the tree: plain ``name(args)`` calls (no namespace), and every variable,
    loop variable and closure parameter (a call through one may be a function pointer)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list | tuple):
            stack.extend(n)
            continue
        fields = getattr(n, "__dict__", None)
        if fields is None:
            continue
        k = getattr(n, "k", None)
        if k == "call" and not fields.get("ns"):
            calls.append(n)
        elif k in ("let", "for") and isinstance(fields.get("name"), str):
            names.add(fields["name"])
        elif k == "closure":
            names.update(fields.get("params") or [])
        for value in fields.values():
            if isinstance(value, list | tuple) or hasattr(value, "__dict__"):
                stack.append(value)


def check_rhai(text: str, file: str, roots=None, script=None) -> list[Diagnostic]:
    """Positioned diagnostics of a scenario or module source (see the module doc). ``script``:
    the text already parsed (:func:`parse_rhai`), so it is parsed once; it is compiled here (the
    compile rewrites its functions' bodies)."""
    rt = _runtime(*_roots_key(roots))
    try:
        if script is None:
            script = parse_rhai(text, file)
    except RhaiError as err:
        return [err.to_diagnostic()]
    policy = "policy" in Path(file).parts  # lint policies run against the lint host, not the scenario API
    out = [] if policy else _hook_problems(script, file) + _plan_problems(script, file) + _call_problems(rt, script, file)
    try:
        _compile_parsed(rt.engine, script, file)
    except RhaiError as err:
        return [err.to_diagnostic()]
    except RecursionError:
        return [Diagnostic("error", "rhai.syntax", "Expression exceeds maximum complexity", layer=file, line=1,
                           column=1, source="rhai")]
    return out


def parse_rhai(text: str, file: str):
    """Our parser's tree of ``text`` (raises a positioned :class:`RhaiError`)."""
    try:
        return parse(text, file, _runtime(None, None).engine.limits.max_expr_depth)
    except RecursionError:
        from luncosim_core.scripting.rhai.errors import RhaiSyntaxError

        raise RhaiSyntaxError("Expression exceeds maximum complexity", file, 1, 1) from None


def _compile_parsed(engine, script, file: str) -> None:
    """What ``compile_scenario`` does after parsing (top-level constants folded into the functions,
    ``params`` among them, then the compile), on a tree parsed once."""
    from luncosim_core.scripting.compile import _rewrite_fn
    from luncosim_core.scripting.rhai.compiler import Compiler

    consts = {st.name for st in script.stmts if st.k == "let" and getattr(st, "const", False)} | {"params"}
    for fn in script.fns:
        _rewrite_fn(fn, consts)
    Compiler(engine.rt, script, file).compile()


def _call_problems(rt, script, file: str) -> list[Diagnostic]:
    """Plain calls to functions that exist nowhere at that arity, as warnings at the call."""
    out = []
    own = {(f.name, len(f.params)) for f in script.fns}
    calls: list = []
    variables: set[str] = {p for fn in script.fns for p in fn.params}
    _walk([script.stmts, [fn.body for fn in script.fns]], calls, variables)
    for c in sorted(calls, key=lambda c: (c.line, c.col)):
        arity = len(c.args)
        if (c.name, arity) in own or c.name in variables or _known(rt, c.name, arity):
            continue
        known_arities = sorted(k for k in rt.engine.rt.natives.get(c.name, {}))
        known_arities += sorted(n for (name, n) in own if name == c.name)
        why = (f"'{c.name}' takes {' or '.join(map(str, known_arities))} argument(s), not {arity}" if known_arities
               else f"no function '{c.name}' with {arity} argument(s) (not in the script, the host API or the prelude)")
        out.append(Diagnostic("warning", "rhai.unknown-function", why, layer=file, line=c.line, column=c.col,
                              source="rhai"))
    return out


#: the hooks the scenario runtime calls, with their parameters (docs/scripting.md)
HOOKS = {"on_start": ("me",), "on_tick": ("me",), "on_stop": ("me",), "on_event": ("me", "evt"),
         "simulation_dependencies": ("me", "ctx")}


def _hook_problems(script, file: str) -> list[Diagnostic]:
    """A hook defined with the wrong number of parameters is never called: say so at its name."""
    out = []
    for fn in script.fns:
        want = HOOKS.get(fn.name)
        if want is not None and len(fn.params) != len(want) and not any(
                g.name == fn.name and len(g.params) == len(want) for g in script.fns):
            out.append(Diagnostic("warning", "rhai.hook-signature",
                                  f"the runtime calls {fn.name}({', '.join(want)}); this {fn.name} takes "
                                  f"{len(fn.params)} parameter(s), so it is never called",
                                  layer=file, line=fn.line, column=fn.col, source="rhai"))
    return out


def _returned_maps(fn) -> list:
    """The map literals a function returns: its body's last expression, and ``return #{...}``."""
    out = []
    stmts = getattr(fn.body, "stmts", None) or []
    if stmts and stmts[-1].k == "expr" and getattr(stmts[-1], "e", None) is not None and stmts[-1].e.k == "map":
        out.append(stmts[-1].e)
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, list | tuple):
            stack.extend(n)
            continue
        fields = getattr(n, "__dict__", None)
        if fields is None:
            continue
        if getattr(n, "k", None) == "return" and getattr(fields.get("e"), "k", None) == "map":
            out.append(fields["e"])
        elif getattr(n, "k", None) != "closure":
            stack.extend(v for v in fields.values() if isinstance(v, list | tuple) or hasattr(v, "__dict__"))
    return out


def _plan_problems(script, file: str) -> list[Diagnostic]:
    """The shape of what ``simulation_dependencies`` returns, where it is a map literal: the five
    arrays the runtime requires (``scripting/plan.py``), no other key, query names it knows,
    ``#{owner, identity}`` inputs. The runtime refuses a plan that breaks these, so they are errors."""
    from luncosim_core.scripting.host import SCRIPT_QUERIES
    from luncosim_core.scripting.plan import PLAN_KEYS

    out: list[Diagnostic] = []

    def bad(node, msg: str) -> None:
        out.append(Diagnostic("error", "rhai.plan-shape", f"simulation_dependencies: {msg}", layer=file,
                              line=node.line, column=node.col, source="rhai"))

    for fn in script.fns:
        if fn.name != "simulation_dependencies" or len(fn.params) != 2:
            continue
        for m in _returned_maps(fn):
            pairs = dict(m.pairs)
            missing = [k for k in PLAN_KEYS if k not in pairs]
            if missing:
                bad(m, f"missing {', '.join(missing)} (all five arrays are required, even when empty)")
            extra = [k for k in pairs if k not in PLAN_KEYS]
            if extra:
                bad(m, f"unknown key(s) {', '.join(extra)} (allowed: {', '.join(PLAN_KEYS)})")
            for key, value in pairs.items():
                if key in PLAN_KEYS and value.k in ("lit", "map", "istr"):
                    bad(value, f"'{key}' must be an array")
            queries = pairs.get("query_reads")
            for item in (queries.items if queries is not None and queries.k == "array" else ()):
                if item.k == "lit" and isinstance(item.value, str) and item.value not in SCRIPT_QUERIES:
                    bad(item, f"query_reads: unknown query '{item.value}' (known: {', '.join(sorted(SCRIPT_QUERIES))})")
            inputs = pairs.get("required_inputs")
            for item in (inputs.items if inputs is not None and inputs.k == "array" else ()):
                if item.k == "map" and not {"owner", "identity"} <= {k for k, _v in item.pairs}:
                    bad(item, "required_inputs: each entry is #{owner, identity}")
                elif item.k in ("lit", "array", "istr"):
                    bad(item, "required_inputs: each entry is #{owner, identity}")
    return out


_IMPORT = re.compile(r'\bimport\s+"([^"]+)"(?:\s+as\s+(\w+))?')
_FN = re.compile(r"^\s*(?:private\s+)?fn\s+(?:\w+\.)?(\w+)\s*\(", re.M)


def rhai_functions(text: str) -> dict[str, int]:
    """Function name -> 1-based line of its definition in ``text``."""
    out: dict[str, int] = {}
    line, pos = 1, 0
    for m in _FN.finditer(text):
        line += text.count("\n", pos, m.start(1))
        pos = m.start(1)
        out.setdefault(m.group(1), line)
    return out


def rhai_imports(text: str, file: Path, roots=None) -> dict[str, Path]:
    """Import alias (or the module's stem) -> the module file it resolves to (existing files only)."""
    bases = [file.parent]
    if roots is not None:
        bases += [p for p in (roots.twin_root, roots.lunco_root) if p is not None]
    out = {}
    for m in _IMPORT.finditer(text):
        rel = m.group(1) if m.group(1).endswith(".rhai") else m.group(1) + ".rhai"
        for base in bases:
            cand = (base / rel).resolve()
            if cand.is_file():
                out[m.group(2) or Path(rel).stem] = cand
                break
    return out


MAX_MODULES = 500


def rhai_function_param_list(text: str, name: str) -> str | None:
    """The parameter list of the script's first function ``name`` as written, or None (one
    search for that name: the signature tip after ``name(`` in a file of thousands of functions)."""
    m = re.search(rf"^\s*(?:private\s+)?fn\s+(?:\w+\.)?{re.escape(name)}\s*\(([^)]*)\)", text, re.M)
    return None if m is None else ", ".join(p.strip() for p in m.group(1).split(",") if p.strip())


def rhai_modules(file: Path | None, roots=None) -> list[str]:
    """What ``import "..."`` may name: every ``.rhai`` file under the module roots (the twin's
    root, the asset library's), as the runtime resolves it (root-relative, without ``.rhai``),
    the file itself left out; at most ``MAX_MODULES``."""
    bases = [p for p in ((roots.twin_root, roots.lunco_root) if roots is not None else ()) if p is not None]
    here = Path(file).resolve() if file is not None else None
    out: list[str] = []
    for base in bases:
        base = Path(base).resolve()
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*.rhai")):
            if p.resolve() != here and len(out) < MAX_MODULES:
                out.append(p.relative_to(base).with_suffix("").as_posix())
    return sorted(set(out))
