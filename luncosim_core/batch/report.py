"""A batch's results on disk: ``results.csv``, ``results.parquet`` and ``report.html``.

One row per task, columns in this order: ``scene``, ``params`` (JSON), ``verdict``, ``exit``,
``ticks``, ``final_hash``, one column per recorded output (``/Prim.port:stat``), ``wall_s``,
``worker``, then ``task_id``, ``kind``, ``attempts``, ``run_s`` and ``reason``. The HTML report is
self-contained (inline SVG and CSS, no scripts, no network): a verdict table, a verdict matrix
over two parameters when the sweep has them, and a parameter-vs-output scatter per pair.
"""

from __future__ import annotations

import csv
import html
import json
import math
from pathlib import Path
from typing import Any

from luncosim_core.fsutil import atomic_write_text

LEADING = ["scene", "params", "verdict", "exit", "ticks", "final_hash"]
TRAILING = ["wall_s", "worker", "task_id", "kind", "attempts", "run_s", "reason"]
COLOURS = {"PASS": "#2e9d4f", "FAIL": "#d1423a", "NO_VERDICT": "#8a8f98", "CRASHED": "#7b2cbf", "TIMEOUT": "#e08a1e"}


def output_columns(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        for key in row.get("outputs", {}):
            seen.setdefault(key, None)
    return list(seen)


def table(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """Column names and flat rows (params as JSON text)."""
    outs = output_columns(rows)
    columns = LEADING + outs + TRAILING
    flat = []
    for row in rows:
        values = {**{k: row.get(k) for k in LEADING + TRAILING}, **row.get("outputs", {})}
        values["params"] = json.dumps(row.get("params", {}), sort_keys=True)
        flat.append([values.get(c) for c in columns])
    return columns, flat


def write_results(rows: list[dict[str, Any]], out_dir: Path, *, title: str = "LunCoSim batch") -> dict[str, Path]:
    """Write the three files into ``out_dir`` (created); returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    columns, flat = table(rows)
    paths = {"csv": out_dir / "results.csv", "parquet": out_dir / "results.parquet", "html": out_dir / "report.html"}
    _write_csv(paths["csv"], columns, flat)
    _write_parquet(paths["parquet"], columns, flat, output_columns(rows))
    atomic_write_text(paths["html"], render_html(rows, title=title))
    return paths


def _write_csv(path: Path, columns: list[str], flat: list[list[Any]]) -> None:
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for r in flat:
        writer.writerow(["" if v is None else (repr(v) if isinstance(v, float) else v) for v in r])
    atomic_write_text(path, buf.getvalue())


def _write_parquet(path: Path, columns: list[str], flat: list[list[Any]], outs: list[str]) -> None:
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"scene": pa.string(), "params": pa.string(), "verdict": pa.string(), "exit": pa.int64(),
             "ticks": pa.int64(), "final_hash": pa.string(), "wall_s": pa.float64(), "worker": pa.string(),
             "task_id": pa.string(), "kind": pa.string(), "attempts": pa.int64(), "run_s": pa.float64(),
             "reason": pa.string()}
    arrays = []
    for i, name in enumerate(columns):
        col = [r[i] for r in flat]
        arrays.append(pa.array(col, type=pa.float64() if name in outs else types[name]))
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(pa.Table.from_arrays(arrays, names=columns), tmp)
    os.replace(tmp, path)


# ------------------------------------------------------------------------------- HTML
def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def _scatter(rows: list[dict[str, Any]], param: str, output: str) -> str:
    pts = [(_num(r["params"].get(param)), _num(r.get("outputs", {}).get(output)), r["verdict"]) for r in rows]
    pts = [(x, y, v) for x, y, v in pts if x is not None and y is not None]
    if not pts:
        return ""
    w, h, m = 360, 240, 44
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    x1 = x1 if x1 > x0 else x0 + 1.0
    y1 = y1 if y1 > y0 else y0 + 1.0

    def sx(x: float) -> float:
        return m + (x - x0) / (x1 - x0) * (w - m - 10)

    def sy(y: float) -> float:
        return h - m + 10 - (y - y0) / (y1 - y0) * (h - m - 10)

    dots = "".join(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="{COLOURS.get(v, "#333")}">'
                   f"<title>{html.escape(param)} = {x:g}\n{html.escape(output)} = {y:g}\n{v}</title></circle>"
                   for x, y, v in pts)
    axes = (f'<line x1="{m}" y1="{h - m + 10}" x2="{w - 10}" y2="{h - m + 10}" stroke="#555"/>'
            f'<line x1="{m}" y1="10" x2="{m}" y2="{h - m + 10}" stroke="#555"/>'
            f'<text x="{m}" y="{h - m + 24}" font-size="10">{x0:.4g}</text>'
            f'<text x="{w - 10}" y="{h - m + 24}" font-size="10" text-anchor="end">{x1:.4g}</text>'
            f'<text x="{m - 4}" y="{h - m + 10}" font-size="10" text-anchor="end">{y0:.4g}</text>'
            f'<text x="{m - 4}" y="16" font-size="10" text-anchor="end">{y1:.4g}</text>'
            f'<text x="{(w + m) / 2:.0f}" y="{h - 6}" font-size="11" text-anchor="middle">{html.escape(param)}</text>')
    return (f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">{axes}{dots}</svg>'
            f"<figcaption>{html.escape(output)} against {html.escape(param)}</figcaption></figure>")


def _matrix(rows: list[dict[str, Any]], params: list[str]) -> str:
    """Verdicts over the first two parameters that take several values."""
    varying = [p for p in params if len({json.dumps(r["params"].get(p)) for r in rows}) > 1]
    if len(varying) < 2:
        return ""
    a, b = varying[:2]
    xs = sorted({json.dumps(r["params"].get(a)) for r in rows})
    ys = sorted({json.dumps(r["params"].get(b)) for r in rows})
    if len(xs) * len(ys) > 400:
        return ""
    cells: dict[tuple[str, str], list[str]] = {}
    for r in rows:
        cells.setdefault((json.dumps(r["params"].get(a)), json.dumps(r["params"].get(b))), []).append(r["verdict"])
    head = "".join(f"<th>{html.escape(x)}</th>" for x in xs)
    body = ""
    for y in ys:
        tds = ""
        for x in xs:
            vs = cells.get((x, y), [])
            colour = COLOURS.get(vs[0], "#fff") if vs and len(set(vs)) == 1 else ("#f0f0f0" if not vs else "#c9a227")
            tds += f'<td style="background:{colour}" title="{html.escape(", ".join(vs))}">{html.escape("/".join(sorted(set(vs))))}</td>'
        body += f"<tr><th>{html.escape(y)}</th>{tds}</tr>"
    return (f"<h2>Verdict matrix</h2><table class=matrix><tr><th>{html.escape(b)} \\ {html.escape(a)}</th>{head}</tr>"
            f"{body}</table>")


def render_html(rows: list[dict[str, Any]], *, title: str) -> str:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    params: list[str] = []
    for r in rows:
        for k in r.get("params", {}):
            if k not in params:
                params.append(k)
    outs = output_columns(rows)
    summary = " ".join(f'<span class=badge style="background:{COLOURS.get(k, "#333")}">{k} {n}</span>'
                       for k, n in sorted(counts.items()))
    trs = ""
    for r in rows:
        vals = "".join(f"<td>{_fmt(r.get('outputs', {}).get(o))}</td>" for o in outs)
        trs += (f'<tr><td>{html.escape(r["task_id"])}</td><td>{html.escape(Path(r["scene"]).name)}</td>'
                f'<td><code>{html.escape(json.dumps(r.get("params", {}), sort_keys=True))}</code></td>'
                f'<td style="color:{COLOURS.get(r["verdict"], "#000")};font-weight:bold">{r["verdict"]}</td>'
                f'<td>{_fmt(r.get("ticks"))}</td>{vals}<td>{_fmt(r.get("wall_s"))}</td>'
                f'<td>{html.escape(str(r.get("reason") or ""))}</td></tr>')
    ohead = "".join(f"<th>{html.escape(o)}</th>" for o in outs)
    plots = "".join(_scatter(rows, p, o) for p in params for o in outs)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body{{font-family:sans-serif;margin:24px;color:#222}} table{{border-collapse:collapse;font-size:13px}}
td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left}} .badge{{color:#fff;padding:2px 8px;border-radius:8px;margin-right:6px}}
.matrix td{{color:#fff;text-align:center;min-width:48px}} figure{{display:inline-block;margin:8px}} code{{font-size:12px}}
</style></head><body>
<h1>{html.escape(title)}</h1><p>{len(rows)} tasks: {summary}</p>
{_matrix(rows, params)}
{"<h2>Parameters against outputs</h2>" + plots if plots else ""}
<h2>Tasks</h2><table><tr><th>task</th><th>scene</th><th>parameters</th><th>verdict</th><th>ticks</th>{ohead}<th>wall s</th><th>reason</th></tr>
{trs}</table></body></html>
"""


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return html.escape(str(v))
