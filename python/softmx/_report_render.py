"""Draws softmx's certificate: the library's report data (docs/REPORT.md) as one HTML page.

The numbers are the library's (include/softmx/vectors/report_data.hpp: make_report and its JSON);
this module only lays them out: a jinja2 template, and matplotlib figures written as SVG and put
inline. The page needs nothing else: no script, no style sheet, font or image from elsewhere; it
reads the same with JavaScript off, and prints (colours kept, figures not split).

It runs two ways, and needs only the standard library, matplotlib and jinja2 (Debian:
python3-matplotlib, python3-jinja2) for either:

- as a script, by `softmx report` (tools/softmx/cmd_report.cpp):
  `python3 _report_render.py --data DATA.json [--out PAGE.html]` (the page on standard output
  when --out is not given); exit status 0, 2 for unreadable data, 4 when matplotlib or jinja2
  is missing (the message says which Debian packages to install);
- as a module of the softmx package (softmx.report, and the notebook views of verify's,
  identify's and diff's results: render_html(data, fragment=True)).
"""

from __future__ import annotations

import argparse
import html as _html
import io
import json
import math
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

MISSING: List[str] = []
try:
    import jinja2
except ImportError:  # pragma: no cover - checked by main() and the callers
    jinja2 = None
    MISSING.append("python3-jinja2")
try:
    import matplotlib
    from matplotlib.figure import Figure
except ImportError:  # pragma: no cover
    matplotlib = None
    Figure = None
    MISSING.append("python3-matplotlib")

EXIT_MISSING = 4


def _fix(obj):
    """The library's JSON strings carry bytes, one code point per byte (text.hpp json_string):
    back to text (UTF-8 where it is, the bytes shown as escapes where it is not)."""
    if isinstance(obj, str):
        try:
            return obj.encode("latin-1").decode("utf-8", errors="backslashreplace")
        except UnicodeEncodeError:  # already text (a dict made in Python)
            return obj
    if isinstance(obj, list):
        return [_fix(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _fix(v) for k, v in obj.items()}
    return obj


# ---- figures ----

_RC = {
    "svg.fonttype": "none",  # text stays text: the browser's own sans-serif, nothing embedded
    "svg.hashsalt": "softmx-report",
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.dpi": 150,
}

_ID = re.compile(r'\bid="([^"]+)"')


def _svg(fig, prefix: str) -> str:
    """The figure as an inline <svg> element, its ids (clip paths, images) made unique to it."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "softmx report"})
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    ids = set(_ID.findall(s))
    if ids:
        s = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', s)
        s = re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{prefix}-{m.group(1)})" if m.group(1) in ids else m.group(0), s)
        s = re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"' if m.group(1) in ids else m.group(0), s)
    s = s.replace("<svg ", f'<svg role="img" class="plot-svg" data-plot="{prefix}" ', 1)
    return s


class _Figures:
    """Numbers each figure, so that the ids of inline SVGs never meet."""

    def __init__(self):
        self.n = 0

    def make(self, draw, width: float, height: float) -> str:
        self.n += 1
        with matplotlib.rc_context(_RC):
            fig = Figure(figsize=(width, height))
            draw(fig)
            return _svg(fig, f"sxr-fig{self.n}")


def _grid_figure(g: Dict[str, Any]):
    """The cells of the input domain: grey where cases were checked (darker: more), red where
    some failed, with a red mark on the axes at every column and row holding a failure (so that
    one failing cell among thousands still shows). Columns without a single case are left out
    when most are empty (a sampled file), and where they were a thin blue line is drawn."""
    import numpy as np
    nx, ny = int(g["nx"]), int(g["ny"])
    c = np.asarray(g["checked"], dtype=float).reshape(ny, nx)
    f = np.asarray(g["failed"], dtype=float).reshape(ny, nx)
    names = g.get("x_names") or []
    cols = np.arange(nx)
    used = (c.sum(axis=0) + f.sum(axis=0)) > 0
    compressed = bool(names) and used.any() and used.sum() <= nx // 2
    if compressed:
        cols = cols[used]
        c, f = c[:, used], f[:, used]
    cmax, fmax = float(c.max(initial=0)), float(f.max(initial=0))

    def draw(fig):
        img = np.ones((ny, len(cols), 3))
        if cmax > 0:
            shade = 0.93 - 0.3 * np.log1p(c) / math.log1p(cmax)
            for k in range(3):
                img[..., k] = np.where(c > 0, shade, 1.0)
        hot = f > 0
        if fmax > 0:
            strength = 0.5 + 0.5 * np.log1p(f) / math.log1p(fmax)
            img[..., 0] = np.where(hot, 0.65 + 0.3 * strength, img[..., 0])
            img[..., 1] = np.where(hot, 0.25 * (1 - strength), img[..., 1])
            img[..., 2] = np.where(hot, 0.25 * (1 - strength), img[..., 2])
        ax = fig.add_subplot(1, 1, 1)
        ax.imshow(img, aspect="auto", interpolation="nearest", origin="upper")
        ax.set_xlim(-0.5, len(cols) - 0.5)
        ax.set_ylim(ny - 0.5, -0.5)
        if compressed:
            step = max(1, len(cols) // 8)
            picks = list(range(0, len(cols), step))
            ax.set_xticks(picks, [names[int(cols[i])] for i in picks])
            xs, ys = [], []
            for i in range(1, len(cols)):
                if cols[i] != cols[i - 1] + 1:
                    xs += [i - 0.5, i - 0.5, float("nan")]
                    ys += [-0.5, ny - 0.5, float("nan")]
            if xs:
                ax.plot(xs, ys, color="#1565c0", linewidth=0.6)
        else:
            xt = g.get("x_ticks") or []
            ax.set_xticks([t[0] for t in xt], [t[1] for t in xt])
        yt = g.get("y_ticks") or []
        ax.set_yticks([t[0] for t in yt], [t[1] for t in yt])
        if hot.any():
            fx = np.nonzero(hot.any(axis=0))[0]
            fy = np.nonzero(hot.any(axis=1))[0]
            ax.plot(fx, np.full(len(fx), -0.5), linestyle="none", marker="v", markersize=5, color="#c62828", clip_on=False)
            ax.plot(np.full(len(fy), len(cols) - 0.5), fy, linestyle="none", marker="<", markersize=5, color="#c62828",
                    clip_on=False)
        ax.set_xlabel(g.get("x_label", "") + (" (columns without cases left out)" if compressed else ""))
        ax.set_ylabel(g.get("y_label", ""))
        ax.set_title(g.get("title", ""), loc="left", pad=10)

    return draw


def _band_figure(b: Dict[str, Any], what: str):
    """The failing fraction of each bin over the table's inputs, as one filled outline, and a red
    tick under every bin with a failure (one path each, whatever the number of bins)."""
    failed = b["failed"]
    width = int(b["width"])
    first, last = int(b["first_value"]), int(b["last_value"])
    digits = len(b["first"])

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        n = len(failed)
        sizes = [min(width, last - (first + i * width) + 1) for i in range(n)]
        frac = [failed[i] / sizes[i] if sizes[i] else 0.0 for i in range(n)]
        ax.axhspan(0, 1, color="#eeeeee", zorder=0)
        edges = list(range(n + 1))
        ax.stairs(frac, edges, fill=True, color="#c62828", zorder=2)
        xs, ys = [], []
        for i in range(n):
            if failed[i]:
                xs += [i + 0.5, i + 0.5, float("nan")]
                ys += [-0.09, -0.02, float("nan")]
        if xs:
            ax.plot(xs, ys, color="#c62828", linewidth=1.0, clip_on=False)
        ax.set_xlim(0, n)
        ax.set_ylim(0, 1)
        ticks = sorted(set([0, n // 4, n // 2, 3 * n // 4, n]))
        ax.set_xticks(ticks, [format(min(last, first + t * width), f"0{digits}X") for t in ticks])
        ax.set_ylabel("fraction failing")
        ax.set_xlabel(f"input code, {n} bins of {width} inputs", labelpad=8)
        ax.set_title(what, loc="left")

    return draw


def _ulp_label(sign: int, bits: int) -> str:
    lo = 1 << (bits - 1)
    hi = (1 << bits) - 1
    s = "+" if sign > 0 else "\u2212"
    if bits <= 1:
        return f"{s}1"
    if bits <= 12:
        return f"{s}{lo}..{hi}"
    return f"{s}2^{bits - 1}.."


def _ulp_figure(hists: List[Dict[str, Any]]):
    hists = [h for h in hists if h.get("total")]

    def draw(fig):
        for k, h in enumerate(hists):
            ax = fig.add_subplot(1, len(hists), k + 1)
            bins = sorted(h["bins"], key=lambda b: b["sign"] * b["bits"])
            labels = [_ulp_label(b["sign"], b["bits"]) for b in bins]
            counts = [b["count"] for b in bins]
            colors = ["#1565c0" if b["sign"] < 0 else "#c62828" for b in bins]
            if h.get("nan"):
                labels.append("NaN")
                counts.append(h["nan"])
                colors.append("#6a1b9a")
            if h.get("zero_sign"):
                labels.append("\u00b10")
                counts.append(h["zero_sign"])
                colors.append("#6a1b9a")
            xs = list(range(len(counts)))
            ax.bar(xs, counts, color=colors)
            ax.set_xticks(xs, labels, rotation=45 if len(labels) > 6 else 0, ha="right" if len(labels) > 6 else "center")
            if counts and max(counts) > 50 * max(1, min(counts)):
                ax.set_yscale("log")
            for x, c in zip(xs, counts):
                ax.annotate(str(c), (x, c), ha="center", va="bottom", fontsize=7, xytext=(0, 1), textcoords="offset points")
            ax.set_xlabel(f"device \u2212 softmx, in ulps of {h['format']}")
            ax.set_ylabel("results")
            ax.set_title(f"{h['field']}: error in ulps", loc="left")

    return draw, len(hists)


def _bars_figure(bars: List[Dict[str, Any]], limit: int):
    shown = bars[:limit]

    def draw(fig):
        ax = fig.add_subplot(1, 1, 1)
        ys = list(range(len(shown)))
        vals = [100.0 * b["agree"] / b["total"] if b["total"] else 0.0 for b in shown]
        colors = ["#2e7d32" if b.get("best") else ("#1565c0" if b.get("exact", True) else "#90caf9") for b in shown]
        hatches = [None if b.get("exact", True) else "//" for b in shown]
        bars_ = ax.barh(ys, vals, color=colors)
        for bar, h in zip(bars_, hatches):
            if h:
                bar.set_hatch(h)
        for y, b in zip(ys, shown):
            note = f"{b['agree']}/{b['total']} ({b['percent']})" + ("" if b.get("exact", True) else " sampled")
            ax.text(1, y, note, va="center", ha="left", fontsize=7, color="white" if vals[y] > 40 else "black")
        ax.set_yticks(ys, [b["key"] for b in shown])
        ax.invert_yaxis()
        ax.set_xlim(0, 100)
        ax.set_xlabel("agreement, % of cases (inputs)")
        ax.set_title("identify: every setting softmx models, best first", loc="left")

    return draw, len(shown)


# ---- the page ----

_CSS = """
.sxr { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Arial, sans-serif; color: #1b1b1b;
  line-height: 1.4; max-width: 1100px; margin: 0 auto; padding: 0 16px 32px; font-size: 14px; }
.sxr h1 { font-size: 22px; margin: 18px 0 6px; }
.sxr h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 2px solid #ddd; padding-bottom: 3px; }
.sxr h3 { font-size: 15px; margin: 18px 0 6px; }
.sxr .banner { border-radius: 6px; padding: 14px 18px; margin: 10px 0 16px; color: #fff;
  -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.sxr .banner.pass { background: #2e7d32; }
.sxr .banner.fail { background: #c62828; }
.sxr .banner.unproven { background: #b26a00; }
.sxr .banner .word { font-size: 34px; font-weight: 700; letter-spacing: 1px; }
.sxr .banner .line { font-size: 16px; margin-top: 2px; }
.sxr .banner ul { margin: 8px 0 0; padding-left: 18px; }
.sxr .banner li { margin: 2px 0; }
.sxr .pill { display: inline-block; min-width: 74px; text-align: center; border-radius: 3px; padding: 0 6px;
  font-weight: 700; font-size: 12px; color: #fff; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.sxr .pill.pass { background: #2e7d32; } .sxr .pill.fail { background: #c62828; } .sxr .pill.unproven { background: #b26a00; }
.sxr .banner .pill { background: rgba(255,255,255,0.25); }
.sxr table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
.sxr th, .sxr td { border: 1px solid #d0d0d0; padding: 3px 8px; text-align: left; vertical-align: top; }
.sxr th { background: #f3f3f3; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.sxr td.n, .sxr th.n { text-align: right; font-variant-numeric: tabular-nums; }
.sxr td.bad { color: #b71c1c; font-weight: 700; }
.sxr tr.total td { font-weight: 700; background: #fafafa; }
.sxr code, .sxr pre, .sxr .mono { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.sxr pre { background: #f7f7f7; border: 1px solid #e2e2e2; padding: 8px; overflow-x: auto; white-space: pre-wrap;
  word-break: break-all; margin: 4px 0 12px; }
.sxr .hash { word-break: break-all; }
.sxr pre.header { column-count: 2; column-gap: 24px; word-break: normal; overflow-wrap: anywhere; }
.sxr figure { margin: 8px 0 18px; break-inside: avoid; page-break-inside: avoid; }
.sxr figure svg { max-width: 100%; height: auto; }
.sxr figcaption { font-size: 12px; color: #555; }
.sxr .muted { color: #666; }
.sxr .file { font-weight: 700; }
.sxr .failure { break-inside: avoid; page-break-inside: avoid; border-left: 3px solid #c62828; padding-left: 8px;
  margin: 10px 0; }
.sxr details > summary { cursor: pointer; color: #1565c0; }
@media print {
  .sxr { max-width: none; font-size: 11px; }
  .sxr h2 { break-after: avoid; page-break-after: avoid; }
  .sxr pre { font-size: 9.5px; }
  .sxr table { font-size: 10px; }
}
@page { margin: 14mm; }
"""

_BODY = r"""
{%- macro pill(status) -%}<span class="pill {{ status }}">{{ status|upper }}</span>{%- endmacro -%}
{%- macro counts_table(rows) -%}
<table class="counts">
<tr><th>class</th><th class="n">checked</th><th class="n">results failed</th><th class="n">flags checked</th><th class="n">flags failed</th></tr>
{%- set t = namespace(c=0, r=0, fc=0, ff=0) %}
{%- for r in rows %}{% set t.c = t.c + r.checked %}{% set t.r = t.r + r.result_failed %}{% set t.fc = t.fc + r.flags_checked %}{% set t.ff = t.ff + r.flags_failed %}
<tr><td>{{ class_names[r['class']] }}</td><td class="n">{{ r.checked }}</td><td class="n{% if r.result_failed %} bad{% endif %}">{{ r.result_failed }}</td><td class="n">{{ r.flags_checked }}</td><td class="n{% if r.flags_failed %} bad{% endif %}">{{ r.flags_failed }}</td></tr>
{%- endfor %}
<tr class="total"><td>all</td><td class="n">{{ t.c }}</td><td class="n{% if t.r %} bad{% endif %}">{{ t.r }}</td><td class="n">{{ t.fc }}</td><td class="n{% if t.ff %} bad{% endif %}">{{ t.ff }}</td></tr>
</table>
{%- endmacro -%}
{%- macro failure_list(items, limit, total) -%}
{%- if not items %}<p class="muted">No failures.</p>{% else %}
{%- set rich = items[0]['class'] %}
<table class="failures"><tr><th>where</th><th>operands</th><th>device</th><th>softmx</th><th>flags (device / softmx)</th>{% if rich %}<th>class</th><th>error</th><th>the device's result comes from</th>{% endif %}</tr>
{%- for f in items %}
<tr><td class="mono">{% if f.range %}{{ f.where }} ({{ f.count }} inputs){% elif f.line %}line {{ f.line }}{% else %}{{ f.where }}{% endif %}</td><td class="mono">{{ f.operands|truncate(60, True, '...') }}</td><td class="mono">{{ f.device|truncate(40, True, '...') }}</td><td class="mono">{{ f.expected|truncate(40, True, '...') }}</td>
<td class="mono">{{ f.device_flags if f.device_flags is not none else 'not given' }} / {{ f.expected_flags }}</td>{% if rich %}<td>{{ class_names.get(f['class'], f['class']) }}</td><td>{{ f.ulps }}</td><td>{{ f.producers }}</td>{% endif %}</tr>
{%- endfor %}
</table>
{%- for f in items %}
<div class="failure"><div class="mono"><b>{{ f.where }}</b></div>
{%- if f.device_reason %}<div>the device: {{ f.device_reason }}</div>{% endif %}
{%- if f.softmx_reason %}<div>softmx: {{ f.softmx_reason }}</div>{% endif %}
{%- if f.report %}<pre>{{ f.report }}</pre>{% endif %}</div>
{%- endfor %}
{%- if total is not none and total > items|length %}<p class="muted">The first {{ items|length }} of {{ total }} shown (--max-failures); every count above is complete.</p>{% endif %}
{%- endif %}
{%- endmacro -%}

<h1>{{ d.title }}</h1>
<header id="verdict" class="banner {{ d.status }}" role="status">
<div class="word">{{ d.status|upper }}</div>
<div class="line">{{ d.verdict }}</div>
<div class="line">exit status {{ d.exit_status }}: the status <code style="color:inherit">softmx verify</code> (identify, diff) gives for the same files</div>
<ul>
{%- for e in entries %}<li>{{ pill(e.status) }} {{ e.kind }} <span class="mono">{{ e.name }}</span>: {{ e.verdict }}</li>{% endfor %}
</ul>
</header>

{%- set sec = namespace(n=0) %}
{%- if not partial %}{% set sec.n = sec.n + 1 %}
<section id="provenance"><h2>{{ sec.n }}. Provenance</h2>
<table>
<tr><th>softmx</th><td>{{ d.softmx.version }} <span class="muted">({{ d.softmx.build }})</span></td></tr>
<tr><th>command</th><td class="mono">{{ d.command }}</td></tr>
<tr><th>date</th><td>{{ d.date }}</td></tr>
</table>
<table class="files"><tr><th>role</th><th>file</th><th>SHA-256</th><th class="n">bytes</th><th>modified</th></tr>
{%- for f in files %}<tr><td>{{ f.role }}</td><td class="mono">{{ f.path }}</td><td class="mono hash">{{ f.sha256 }}</td><td class="n">{{ f.bytes }}</td><td>{{ f.modified }}</td></tr>{% endfor %}
</table>
{%- for f in files if f.header %}
<h3>{{ f.role }} <span class="mono">{{ f.path }}</span>: {{ f.description }}</h3>
<pre class="header">{{ f.header }}</pre>
{%- endfor %}
</section>
{%- endif %}
{%- if entries|selectattr('completeness')|list %}{% set sec.n = sec.n + 1 %}
<section id="completeness"><h2>{{ sec.n }}. Completeness</h2>
<p class="muted">A pass needs every expected case present, once, in order, and proven so by evidence that does not come from the file alone (docs/VECTORS.md).</p>
{%- for e in entries if e.completeness %}
{%- set c = e.completeness %}
<h3>{{ pill(e.status) }} {{ e.kind }} <span class="mono">{{ e.name }}</span></h3>
<table>
<tr><th>status</th><td>{{ c.status }}{% if c.proven %} (proven){% endif %}</td></tr>
<tr><th>how it was established</th><td>{{ basis_text.get(c.basis, c.basis) }}{% if c.source %}: {{ c.source }}{% endif %}</td></tr>
<tr><th>cases (inputs)</th><td>{{ c.present }} present{% if c.expected is not none %}, {{ c.expected }} expected{% endif %}</td></tr>
{%- if c.inputs_sha256 %}<tr><th>inputs digest</th><td class="mono hash">{{ c.inputs_sha256 }}{% if c.expected_inputs_sha256 and c.expected_inputs_sha256 != c.inputs_sha256 %}<br>expected {{ c.expected_inputs_sha256 }}{% endif %}</td></tr>{% endif %}
{%- if c.missing or c.extra or c.duplicated or c.out_of_order %}<tr><th>differences</th><td class="bad">{{ c.missing }} missing, {{ c.extra }} extra, {{ c.duplicated }} duplicated, {{ c.out_of_order }} out of order</td></tr>{% endif %}
{%- for n in c.notes %}<tr><th>note</th><td>{{ n }}</td></tr>{% endfor %}
</table>
{%- if e.completeness_text %}<pre>{{ e.completeness_text }}</pre>{% endif %}
{%- endfor %}
</section>
{%- endif %}

{%- if not partial or entries|selectattr('classes')|list %}{% set sec.n = sec.n + 1 %}
<section id="counts"><h2>{{ sec.n }}. Checked and failed, per class of input</h2>
{%- for e in entries if e.classes %}
<h3>{{ pill(e.status) }} {{ e.kind }} <span class="mono">{{ e.name }}</span>{% if e.description %}: {{ e.description }}{% endif %}</h3>
{{ counts_table(e.classes.rows) }}
<p class="muted">Classes: {{ e.classes.basis }}.{% if e.layout == 'runs' %} Counts are of inputs (a run table covers every input of its range).{% endif %}</p>
{%- else %}<p class="muted">No per-class counts here.</p>
{%- endfor %}
</section>
{%- endif %}
{%- if not partial or plots %}{% set sec.n = sec.n + 1 %}
<section id="plots"><h2>{{ sec.n }}. Where the failures lie</h2>
{%- for p in plots %}
<figure>{{ p.svg|safe }}<figcaption>{{ p.caption }}</figcaption></figure>
{%- else %}<p class="muted">{{ no_plots }}</p>
{%- endfor %}
</section>
{%- endif %}
{%- set sec.n = sec.n + 1 %}
<section id="failures"><h2>{{ sec.n }}. The first failures, explained</h2>
{%- for e in entries %}
<h3>{{ pill(e.status) }} {{ e.kind }} <span class="mono">{{ e.name }}</span></h3>
{%- if e.kind == 'diff' %}
{%- if not e.differences %}<p class="muted">The tables agree on every input.</p>{% endif %}
{%- if e.differences %}<table><tr><th>inputs</th><th class="n">count</th><th>A</th><th>B</th></tr>
{%- for r in e.differences %}<tr><td class="mono">{{ r.first }}..{{ r.last }}</td><td class="n">{{ r.count }}</td><td class="mono">{{ r.a }}{% if r.a_flags %} {{ r.a_flags }}{% endif %}</td><td class="mono">{{ r.b }}{% if r.b_flags %} {{ r.b_flags }}{% endif %}</td></tr>{% endfor %}
</table>
{%- for r in e.differences %}<div class="failure"><div class="mono"><b>{{ r.first }}..{{ r.last }}</b> ({{ r.count }} inputs)</div><pre>input {{ r.input_text }}
A {{ r.a_text }}
B {{ r.b_text }}{% if r.a_reason %}
A: {{ r.a_reason }}{% endif %}{% if r.b_reason %}
B: {{ r.b_reason }}{% endif %}</pre></div>{% endfor %}
{%- if e.ranges > e.differences|length %}<p class="muted">The first {{ e.differences|length }} of {{ e.ranges }} ranges shown.</p>{% endif %}
{%- endif %}
{%- else %}
{%- if e.kind == 'identify' and e.best %}<p>Best setting: <b>{{ e.best.description }}</b>{% if e.best.differences %}; differs from the header: {{ e.best.differences }}{% endif %}.
{%- if e.policy_differences %} Its dialect's policies that differ here: {{ e.policy_differences|join('; ') }}.{% endif %} What it still disagrees on:</p>{% endif %}
{{ failure_list(e.failures, d.max_failures, e.failing) }}
{%- endif %}
{%- endfor %}
</section>

{%- if rankings %}
<section id="ranking"><h2>Every setting identify scored</h2>
{%- for e in rankings %}
<details{% if e.ranking|length <= 40 %} open{% endif %}><summary>{{ e.name }}: {{ e.ranking|length }} settings, best first</summary>
<table><tr><th class="n">rank</th><th>setting</th><th>dialect</th><th class="n">agree</th><th class="n">of</th><th>%</th><th>checked</th></tr>
{%- for c in e.ranking %}<tr><td class="n">{{ loop.index }}</td><td>{{ c.key }}</td><td>{{ c.dialect }}</td><td class="n">{{ c.agree }}</td><td class="n">{{ c.total }}</td><td>{{ c.percent }}</td><td>{{ 'every input' if c.exact else 'sampled' }}</td></tr>{% endfor %}
</table></details>
{%- endfor %}
</section>
{%- endif %}

{%- if reproduce %}{% set sec.n = sec.n + 1 %}
<section id="reproduce"><h2>{{ sec.n }}. How to reproduce</h2>
<p class="muted">With softmx {{ d.softmx.version }}, in the folder the command ran in:</p>
<pre>{% for r in reproduce %}{{ r.command }}
    # expect: {{ r.expect }}
{% endfor %}</pre>
</section>
{%- endif %}
{%- if partial %}<p class="muted">softmx.report(path) adds the provenance, the per-class counts and the plots.</p>{% endif %}
<footer class="muted">Made by softmx {{ d.softmx.version }} ({{ d.date }}). Every number on this page is computed by the softmx library (include/softmx/vectors/report_data.hpp); docs/REPORT.md defines them.</footer>
"""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="softmx {{ d.softmx.version }}">
<title>{{ d.status|upper }}: {{ d.title }}</title>
<style>{{ css|safe }}</style>
</head>
<body><div class="sxr">{{ body|safe }}</div></body></html>
"""

_FRAGMENT = """<div class="sxr"><style>{{ css|safe }}</style>{{ body|safe }}</div>"""

CLASS_NAMES = {"normal": "normal", "subnormal": "subnormal", "overflow": "overflow", "zero": "zero",
               "nan": "NaN", "inf": "Inf", "tie": "ties"}
BASIS_TEXT = {"regenerated": "regenerated from the header's level and seed",
              "regenerated-open": "regenerated from level and seed as far as the file goes (no cases count)",
              "header": "the header's own cases and inputs-sha256 (cannot prove)",
              "runs": "a run table: its runs cover first..last", "none": "nothing says which cases the file holds"}


def _entries(d: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every check of the report as one list, with what the template needs."""
    out = []
    for v in d.get("verified", []):
        e = dict(v)
        e["name"] = v["file"]["path"]
        ver = v.get("verify") or {}
        e["completeness"] = ver.get("completeness")
        e["failing"] = (ver.get("ranges") if v.get("layout") == "runs" else ver.get("mismatched"))
        out.append(e)
    for i in d.get("identified", []):
        e = dict(i)
        e["kind"] = "identify"
        e["name"] = i["file"]["path"]
        e["classes"] = None
        best = i.get("best") or {}
        e["failing"] = (best.get("ranges") if i.get("layout") == "runs" else
                        (best.get("total", 0) - best.get("agree", 0)) if best else None)
        out.append(e)
    for x in d.get("diffs", []):
        e = dict(x)
        e["name"] = x["a"]["file"]["path"] + " vs " + x["b"]["file"]["path"]
        e["completeness"] = None
        e["failures"] = []
        out.append(e)
    return out


def _files(d: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = []
    for v in d.get("verified", []):
        rows.append(dict(v["file"], role="verified", header=v.get("header"), description=v.get("description")))
    for i in d.get("identified", []):
        rows.append(dict(i["file"], role="identified", header=i.get("header"), description=i.get("description")))
    for x in d.get("diffs", []):
        for side in ("a", "b"):
            s = x[side]
            rows.append(dict(s["file"], role=f"diff {side.upper()}", header=s.get("header"), description=s.get("description")))
    seen, unique = set(), []
    for r in rows:  # a file verified and identified is listed once per role, its header once
        key = (r.get("path"), r.get("sha256"))
        if key in seen:
            r = dict(r, header=None)
        seen.add(key)
        unique.append(r)
    return unique


def _plots(d: Dict[str, Any], entries: List[Dict[str, Any]]) -> Tuple[List[Dict[str, str]], str]:
    if Figure is None:
        return [], "The plots need matplotlib (Debian: python3-matplotlib), which is not installed here."
    figs = _Figures()
    plots = []
    for e in entries:
        name = e["name"]
        g = e.get("grid")
        if g and g.get("nx"):
            failing = sum(g["failed"])
            plots.append({"svg": figs.make(_grid_figure(g), 8.0, 3.6 if int(g["ny"]) > 4 else 2.4),
                          "caption": f"{name}: {g.get('title', '')}. Grey: cases checked (darker: more); red: cells with "
                                     f"failures ({failing} failing in all). {g.get('note', '')}"})
        b = e.get("band")
        if b:
            what = ("inputs where A and B differ" if e["kind"] == "diff" else "failing inputs over the table's range")
            plots.append({"svg": figs.make(_band_figure(b, what), 8.0, 2.2),
                          "caption": f"{name}: {what}: {b['failed_total']} of {int(b['last_value']) - int(b['first_value']) + 1} "
                                     f"inputs, {b['first']}..{b['last']} in {b['bins']} bins of {b['width']}."})
        hs = e.get("ulp") or []
        if any(h.get("total") for h in hs):
            draw, n = _ulp_figure(hs)
            plots.append({"svg": figs.make(draw, min(8.0, 4.2 * n), 2.8),
                          "caption": f"{name}: the error of each failing result, in ulps of its format (device minus softmx; "
                                     "bins of powers of two). Results that agree, and failures in the flags only, are not "
                                     "counted."})
        bars = e.get("bars")
        if bars:
            draw, n = _bars_figure(bars, 40)
            more = f" The best {n} of {len(bars)} shown; the table below lists every setting." if len(bars) > n else ""
            plots.append({"svg": figs.make(draw, 8.0, 0.9 + 0.22 * n),
                          "caption": f"{name}: agreement of every setting softmx models (settings that differ only in the "
                                     f"dialect share a bar, the dialects in the ranking table); green: the best; hatched: "
                                     f"scored on samples only.{more}"})
    return plots, "No plots: nothing was checked here."


def render_html(data: Dict[str, Any], *, fragment: bool = False) -> str:
    """The page (or, with fragment=True, a <div> for a notebook) for the library's report data."""
    if jinja2 is None:
        raise ImportError("softmx's report needs jinja2 (Debian: python3-jinja2)")
    d = _fix(data)
    entries = _entries(d)
    plots, no_plots = _plots(d, entries)
    reproduce = []
    for e in entries:
        reproduce.extend(e.get("reproduce") or [])
    reproduce.extend(d.get("reproduce") or [])
    env = jinja2.Environment(autoescape=True, undefined=jinja2.ChainableUndefined, trim_blocks=False)
    body = env.from_string(_BODY).render(
        d=d, entries=entries, files=_files(d), plots=plots, no_plots=no_plots, reproduce=reproduce,
        rankings=[e for e in entries if e.get("ranking")], class_names=CLASS_NAMES, basis_text=BASIS_TEXT,
        partial=not d.get("date"))
    page = env.from_string(_FRAGMENT if fragment else _PAGE).render(d=d, css=_CSS, body=body)
    return page


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="_report_render.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="the report's data: softmx report --json output ('-': stdin)")
    p.add_argument("--out", default="-", help="the page to write ('-': standard output, the default)")
    a = p.parse_args(argv)
    if MISSING:
        sys.stderr.write("softmx report: drawing the page needs " + " and ".join(MISSING) +
                         " (Debian: apt-get install python3-matplotlib python3-jinja2)\n")
        return EXIT_MISSING
    try:
        if a.data == "-":
            data = json.load(sys.stdin)
        else:
            with open(a.data, encoding="ascii") as f:
                data = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"softmx report: cannot read the report data {a.data!r}: {e}\n")
        return 2
    page = render_html(data)
    if a.out == "-":
        sys.stdout.buffer.write(page.encode("utf-8"))
        sys.stdout.buffer.flush()
    else:
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
