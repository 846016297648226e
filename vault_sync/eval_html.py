"""``vault-sync eval --html FILE``: one self-contained page a person would rather read.

The page holds the run's summary, every table of the text output, a bar chart per metric of
the headline group across configurations (inline SVG: no script, no network, no file beside
it), and the misses: the headline questions whose default top 10 holds no gold page, with
what was found instead. Everything taken from the data is HTML-escaped.
"""

from __future__ import annotations

from html import escape

from vault_sync.eval_metrics import metric_names
from vault_sync.eval_report import cell, summary_lines
from vault_sync.eval_run import DEFAULT, RunResult

#: Most misses listed (a page of a few hundred rows stays readable).
MAX_MISSES = 200
#: Bar chart geometry, in SVG user units (pixels at 100 % zoom).
_BAR_W, _BAR_GAP, _CHART_H, _LABEL_H = 28, 10, 120, 64
#: One colour per configuration, in table order (colour-blind-safe Okabe-Ito palette).
_COLOURS = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442")

_STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
.miss td { text-align: left; vertical-align: top; }
code { font-size: 12px; }
"""


def _table(result: RunResult, group: str, rows: dict[str, dict[str, float]]) -> list[str]:
    names = metric_names(result.benchmark.ks)
    n = int(next(iter(rows.values()))["n"])
    out = [f"<h3>{escape(group)} ({n} questions)</h3>", "<table><tr><th>config</th>"]
    out += [f"<th>{escape(m)}</th>" for m in names] + ["</tr>"]
    for config, values in rows.items():
        cells = "".join(f"<td>{cell(m, values[m])}</td>" for m in names)
        out.append(f"<tr><td>{escape(config)}</td>{cells}</tr>")
    return [*out, "</table>"]


def _chart(metric: str, rows: dict[str, dict[str, float]]) -> str:
    """One metric across configurations as an SVG bar chart (values in [0, 1])."""
    width = len(rows) * (_BAR_W + _BAR_GAP) + _BAR_GAP
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{_CHART_H + _LABEL_H + 20}" role="img" aria-label="{escape(metric)}">',
        f'<text x="0" y="14" font-weight="bold">{escape(metric)}</text>',
    ]
    for i, (config, values) in enumerate(rows.items()):
        value = values[metric]
        x = _BAR_GAP + i * (_BAR_W + _BAR_GAP)
        h = round(value * _CHART_H, 1)
        y = 20 + _CHART_H - h
        colour = _COLOURS[i % len(_COLOURS)]
        parts += [
            f'<rect x="{x}" y="{y}" width="{_BAR_W}" height="{h}" fill="{colour}">'
            f"<title>{escape(config)}: {cell(metric, value)}</title></rect>",
            f'<text x="{x + _BAR_W / 2}" y="{y - 2}" font-size="10" text-anchor="middle">'
            f"{cell(metric, value)}</text>",
            f'<text transform="translate({x + _BAR_W / 2},{_CHART_H + 26}) rotate(60)" '
            f'font-size="11">{escape(config)}</text>',
        ]
    return "".join([*parts, "</svg>"])


def _misses(result: RunResult) -> list[str]:
    headline = result.benchmark.headline
    missed = [
        q
        for q, _ in result.scores.get(DEFAULT, [])
        if headline in q.groups and not q.gold & set(result.rankings.get(q.id, []))
    ]
    out = [
        f"<h2>Misses: {len(missed)} {escape(headline)} questions, no gold page in the top 10</h2>"
    ]
    if not missed:
        return out
    if len(missed) > MAX_MISSES:
        out.append(f"<p>The first {MAX_MISSES} are listed.</p>")
    out.append('<table class="miss"><tr><th>question</th><th>gold</th><th>top 5 found</th></tr>')
    for q in missed[:MAX_MISSES]:
        gold = "<br>".join(f"<code>{escape(g)}</code>" for g in sorted(q.gold))
        found = "<br>".join(f"<code>{escape(p)}</code>" for p in result.rankings.get(q.id, [])[:5])
        text = f"<code>{escape(q.id)}</code> {escape(q.text)}"
        out.append(f"<tr><td>{text}</td><td>{gold}</td><td>{found or '(nothing)'}</td></tr>")
    return [*out, "</table>"]


def render_html(result: RunResult) -> str:
    """The run as one HTML document (UTF-8 text, no external resources).

    Args:
        result: from :func:`vault_sync.eval_run.run_benchmark`.

    Returns:
        The document: summary, tables by group, charts of the headline group, misses.
    """
    bench = result.benchmark
    title = f"vault-sync eval {bench.name}, split {result.split}"
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
        *(f"<p>{escape(line)}</p>" for line in summary_lines(result)),
    ]
    groups = result.table()
    headline = groups.get(bench.headline) or next(iter(groups.values()), {})
    if headline:
        out.append(f'<h2>{escape(bench.headline)}</h2><div class="charts">')
        out += [_chart(m, headline) for m in metric_names(bench.ks)]
        out.append("</div>")
    out.append("<h2>Tables</h2>")
    for group, rows in groups.items():
        out += _table(result, group, rows)
    out += _misses(result)
    return "\n".join([*out, "</body></html>", ""])
