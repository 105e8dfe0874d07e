"""What a batch runs: :class:`BatchTask` values, from scene globs or a ``SWEEP.toml``.

A sweep file names a scene, its parameters, the outputs to record and an optional verdict
scenario (the format is documented in ``docs/batch.md``). Grid parameters (``values``) expand to
their cartesian product; range parameters (``range``) are sampled ``samples`` times from a seeded
generator, so the same file always gives the same tasks.
"""

from __future__ import annotations

import glob
import itertools
import json
import math
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

STATS = ("final", "min", "max", "mean")
DEFAULT_TICKS = 600
DISTRIBUTIONS = ("uniform", "log-uniform")


class SweepError(ValueError):
    """A sweep file or a scene glob that cannot be turned into tasks (the message says where)."""


@dataclass(frozen=True)
class Parameter:
    """One swept quantity: a port written at tick 0 or a USD attribute overridden on the runtime
    layer (``/Prim.attr``)."""

    kind: str  # port | attribute
    target: str  # /Prim.name (port) or /Prim.attr:name (attribute)
    values: tuple[Any, ...] = ()  # grid values
    range: tuple[float, float] | None = None  # Monte Carlo bounds
    distribution: str = "uniform"

    @property
    def name(self) -> str:
        return self.target


@dataclass(frozen=True)
class Output:
    """A port recorded during the run: ``final``, ``min``, ``max`` and/or ``mean``."""

    port: str  # /Prim.name
    stats: tuple[str, ...] = ("final",)

    def columns(self) -> list[str]:
        return [f"{self.port}:{s}" for s in self.stats]


@dataclass
class BatchTask:
    """One run. Plain data (JSON-able) so it can cross to any worker process or machine."""

    task_id: str
    scene: str
    kind: str = "test"  # test (a scene test's verdict) | sweep (a run with parameters applied)
    params: dict[str, Any] = field(default_factory=dict)  # target -> value
    param_kinds: dict[str, str] = field(default_factory=dict)  # target -> port | attribute
    outputs: list[dict[str, Any]] = field(default_factory=list)  # Output as dicts
    ticks: int = DEFAULT_TICKS  # run length (sweep) or tick budget (scene test)
    tick_hz: float = 60.0
    substeps: int = 4
    verdict_code: str = ""  # an optional Rhai verdict scenario's source
    verdict_file: str = ""  # where it came from (for messages)
    verdict_channel: str | None = None
    lunco_root: str | None = None
    attempt: int = 1

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> BatchTask:
        return BatchTask(**json.loads(text))

    def output_specs(self) -> list[Output]:
        return [Output(o["port"], tuple(o["stats"])) for o in self.outputs]


# ------------------------------------------------------------------------------- scene globs
def expand_scene_globs(patterns: list[str]) -> list[Path]:
    """Files matching each glob (absolute or relative, ``**`` allowed), sorted, without repeats."""
    found: dict[str, Path] = {}
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True))
        if not matches and Path(pattern).exists():
            matches = [pattern]
        if not matches:
            raise SweepError(f"--scenes {pattern!r} matches no file")
        for m in matches:
            p = Path(m).resolve()
            if p.is_dir() and not (p / "twin.toml").is_file():
                continue
            found.setdefault(str(p), p)
    if not found:
        raise SweepError("the scene globs match no scene file or twin folder")
    return list(found.values())


def scene_test_tasks(scenes: list[Path], *, ticks: int, lunco_root: str | None) -> list[BatchTask]:
    """One scene-test task per scene."""
    return [BatchTask(task_id=f"t{i:05d}", scene=str(s), kind="test", ticks=ticks, lunco_root=lunco_root)
            for i, s in enumerate(scenes)]


# ------------------------------------------------------------------------------- sweep files
def _where(path: Path, key: str) -> str:
    return f"{path}: {key}"


def _parameter(path: Path, i: int, raw: Any) -> Parameter:
    key = f"parameter[{i}]"
    if not isinstance(raw, dict):
        raise SweepError(_where(path, f"{key} must be a table"))
    unknown = set(raw) - {"port", "attribute", "values", "range", "distribution"}
    if unknown:
        raise SweepError(_where(path, f"{key}: unknown field(s) {', '.join(sorted(unknown))}"))
    if ("port" in raw) == ("attribute" in raw):
        raise SweepError(_where(path, f"{key} needs exactly one of 'port' or 'attribute'"))
    kind = "port" if "port" in raw else "attribute"
    target = raw[kind]
    if not isinstance(target, str) or not target.startswith("/") or "." not in target:
        raise SweepError(_where(path, f"{key}.{kind} must look like /Prim.name, got {target!r}"))
    if ("values" in raw) == ("range" in raw):
        raise SweepError(_where(path, f"{key} needs exactly one of 'values' (grid) or 'range' (Monte Carlo)"))
    dist = raw.get("distribution", "uniform")
    if dist not in DISTRIBUTIONS:
        raise SweepError(_where(path, f"{key}.distribution must be one of {', '.join(DISTRIBUTIONS)}"))
    if "values" in raw:
        values = raw["values"]
        if not isinstance(values, list) or not values:
            raise SweepError(_where(path, f"{key}.values must be a non-empty array"))
        for v in values:
            if kind == "port" and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
                if not isinstance(v, bool):
                    raise SweepError(_where(path, f"{key}.values: {v!r} is not a finite number"))
        return Parameter(kind, target, values=tuple(values))
    lo_hi = raw["range"]
    if (not isinstance(lo_hi, list) or len(lo_hi) != 2
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in lo_hi)
            or lo_hi[0] > lo_hi[1]):
        raise SweepError(_where(path, f"{key}.range must be [low, high] finite numbers with low <= high"))
    if dist == "log-uniform" and lo_hi[0] <= 0:
        raise SweepError(_where(path, f"{key}.range must be positive for a log-uniform distribution"))
    return Parameter(kind, target, range=(float(lo_hi[0]), float(lo_hi[1])), distribution=dist)


def _output(path: Path, i: int, raw: Any) -> Output:
    key = f"output[{i}]"
    if not isinstance(raw, dict):
        raise SweepError(_where(path, f"{key} must be a table"))
    unknown = set(raw) - {"port", "stats"}
    if unknown:
        raise SweepError(_where(path, f"{key}: unknown field(s) {', '.join(sorted(unknown))}"))
    port = raw.get("port")
    if not isinstance(port, str) or not port.startswith("/") or "." not in port:
        raise SweepError(_where(path, f"{key}.port must look like /Prim.name, got {port!r}"))
    stats = raw.get("stats", ["final"])
    if not isinstance(stats, list) or not stats or any(s not in STATS for s in stats):
        raise SweepError(_where(path, f"{key}.stats must be a non-empty array of {', '.join(STATS)}"))
    return Output(_bare_port(port), tuple(stats))


def _bare_port(target: str) -> str:
    """``/Prim.inputs:x`` -> ``/Prim.x`` (port keys carry the bare name)."""
    prim, _, name = target.rpartition(".")
    for ns in ("inputs:", "outputs:"):
        if name.startswith(ns):
            name = name[len(ns):]
    return f"{prim}.{name}"


SWEEP_KEYS = {"scene", "ticks", "tick_hz", "substeps", "seed", "samples", "verdict", "verdict_channel",
              "parameter", "output"}


def load_sweep(path: Path, *, lunco_root: str | None = None) -> list[BatchTask]:
    """Read ``SWEEP.toml`` and expand it into tasks (grid x Monte Carlo samples)."""
    path = Path(path)
    doc = _read_sweep(path)
    unknown = set(doc) - SWEEP_KEYS
    if unknown:
        raise SweepError(_where(path, f"unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(SWEEP_KEYS))})"))
    scene = doc.get("scene")
    if not isinstance(scene, str) or not scene:
        raise SweepError(_where(path, "'scene' (the scene file or twin folder to run) is required"))
    scene_path = (path.parent / scene).resolve()
    if not scene_path.exists():
        raise SweepError(_where(path, f"scene {scene!r} does not exist ({scene_path})"))
    ticks, tick_hz, substeps, seed = _run_settings(path, doc)
    params = [_parameter(path, i, p) for i, p in enumerate(_array_of_tables(path, doc, "parameter"))]
    outputs = [_output(path, i, o) for i, o in enumerate(_array_of_tables(path, doc, "output"))]
    names = [p.target for p in params]
    if len(set(names)) != len(names):
        raise SweepError(_where(path, "a parameter target is listed twice"))
    samples = _samples(path, doc, params)
    verdict_code, verdict_file, channel = _verdict(path, doc)
    combos = _combinations(params, samples or 0, seed)
    kinds = {p.target: p.kind for p in params}
    return [
        BatchTask(task_id=f"s{i:05d}", scene=str(scene_path), kind="sweep", params=combo, param_kinds=kinds,
                  outputs=[{"port": o.port, "stats": list(o.stats)} for o in outputs], ticks=ticks,
                  tick_hz=float(tick_hz), substeps=substeps, verdict_code=verdict_code, verdict_file=verdict_file,
                  verdict_channel=channel, lunco_root=lunco_root)
        for i, combo in enumerate(combos)
    ]


def _read_sweep(path: Path) -> dict:
    """The sweep file's TOML: only a regular UTF-8 file under the text cap is read (a FIFO, a
    device or a folder is refused by name, never read; junk bytes say the byte, offset and line)."""
    from luncosim_core.fsutil import UnreadableFile, read_text_limited

    try:
        text = read_text_limited(path, "sweep file")
    except UnreadableFile as exc:
        raise SweepError(str(exc)) from None
    except OSError as exc:
        raise SweepError(f"{path}: cannot read the sweep file: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: {exc}") from None
    except RecursionError:
        raise SweepError(f"{path}: arrays or tables nested too deeply to read") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _run_settings(path: Path, doc: dict) -> tuple[int, float, int, int]:
    """ticks, tick_hz, substeps, seed (each checked)."""
    ticks = doc.get("ticks", DEFAULT_TICKS)
    if not _is_int(ticks) or ticks <= 0:
        raise SweepError(_where(path, "'ticks' must be a positive integer"))
    tick_hz = doc.get("tick_hz", 60.0)
    if isinstance(tick_hz, bool) or not isinstance(tick_hz, (int, float)) or not (0 < tick_hz < 1e6):
        raise SweepError(_where(path, "'tick_hz' must be a positive number"))
    substeps = doc.get("substeps", 4)
    if not _is_int(substeps) or substeps <= 0:
        raise SweepError(_where(path, "'substeps' must be a positive integer"))
    seed = doc.get("seed", 0)
    if not _is_int(seed) or seed < 0:
        raise SweepError(_where(path, "'seed' must be a non-negative integer"))
    return ticks, tick_hz, substeps, seed


def _samples(path: Path, doc: dict, params: list[Parameter]) -> int | None:
    ranged = [p for p in params if p.range is not None]
    samples = doc.get("samples", 0 if not ranged else None)
    if ranged and (not _is_int(samples) or samples <= 0):
        raise SweepError(_where(path, "'samples' (a positive integer) is required when a parameter has a range"))
    if not ranged and samples not in (0, None):
        raise SweepError(_where(path, "'samples' is only used with range parameters"))
    return samples


def _verdict(path: Path, doc: dict) -> tuple[str, str, str | None]:
    """(verdict script text, its file, the verdict channel)."""
    verdict_code, verdict_file = "", ""
    if "verdict" in doc:
        vfile = (path.parent / str(doc["verdict"])).resolve()
        from luncosim_core.fsutil import UnreadableFile, read_text_limited

        try:
            verdict_code = read_text_limited(vfile, "verdict script")
        except (OSError, UnreadableFile) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SweepError(_where(path, f"verdict {doc['verdict']!r} cannot be read: {why}")) from None
        verdict_file = str(vfile)
    channel = doc.get("verdict_channel")
    if channel is not None and not isinstance(channel, str):
        raise SweepError(_where(path, "'verdict_channel' must be a string"))
    return verdict_code, verdict_file, channel


def _array_of_tables(path: Path, doc: dict, key: str) -> list:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise SweepError(_where(path, f"'{key}' must be an array of tables ([[{key}]])"))
    return value


def _combinations(params: list[Parameter], samples: int, seed: int) -> list[dict[str, Any]]:
    """The grid's cartesian product, each combined with ``samples`` seeded draws of the ranges."""
    grid = [p for p in params if p.range is None]
    ranged = [p for p in params if p.range is not None]
    grid_combos = [dict(zip([p.target for p in grid], values, strict=True))
                   for values in itertools.product(*(p.values for p in grid))] if grid else [{}]
    if not ranged:
        return grid_combos
    rng = np.random.Generator(np.random.PCG64(seed))
    out = []
    for base in grid_combos:
        for _ in range(samples):
            combo = dict(base)
            for p in ranged:
                lo, hi = p.range
                if p.distribution == "log-uniform":
                    combo[p.target] = float(math.exp(rng.uniform(math.log(lo), math.log(hi))))
                else:
                    combo[p.target] = float(rng.uniform(lo, hi))
            out.append(combo)
    return out
