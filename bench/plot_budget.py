#!/usr/bin/env python3
"""Quality against budget: reads bench_cdsa output run with
--solvers best:0.5,best:2,... and draws makespan / bound (average and p90)
against the time budget (log scale) as an SVG, one line per (n, wrapping).
Usage: bench/plot_budget.py < bench_output.txt > docs/images/pack_budget.svg
"""
import math
import re
import sys

series = {}  # (n, wrap) -> [(budget_ms, avg, p90)]
key = None
for line in sys.stdin:
    m = re.match(r"Enlisted n=(\d+) (with|without) wrapping", line)
    if m:
        key = (int(m.group(1)), m.group(2) == "with")
        continue
    m = re.match(r"\s+best:([\d.]+)\s+(.*)", line)
    if key and m:
        cols = m.group(2).split()
        series.setdefault(key, []).append((float(m.group(1)), float(cols[-2]), float(cols[-1])))

W, H, L, R, T, B = 900, 500, 80, 220, 40, 60
budgets = sorted({b for s in series.values() for b, _, _ in s})
ys = [v for s in series.values() for _, a, p in s for v in (a, p)]
if not budgets or not ys:
    sys.exit("no best:<ms> rows found")
y0, y1 = 1.0, max(ys) * 1.002
x0, x1 = math.log10(budgets[0]), math.log10(budgets[-1])


def px(b):
    return L + (math.log10(b) - x0) / ((x1 - x0) or 1) * (W - L - R)


def py(v):
    return T + (y1 - v) / ((y1 - y0) or 1) * (H - T - B)


out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{W / 2 - 120}" y="22" font-size="14">best: makespan / bound against the time budget</text>']
for b in budgets:
    out.append(f'<line x1="{px(b):.1f}" y1="{T}" x2="{px(b):.1f}" y2="{H - B}" stroke="#ddd"/>')
    out.append(f'<text x="{px(b) - 10:.1f}" y="{H - B + 18}">{b:g}</text>')
out.append(f'<text x="{(L + W - R) / 2 - 40}" y="{H - 15}">budget (ms, log)</text>')
steps = 6
for k in range(steps + 1):
    v = y0 + (y1 - y0) * k / steps
    out.append(f'<line x1="{L}" y1="{py(v):.1f}" x2="{W - R}" y2="{py(v):.1f}" stroke="#eee"/>')
    out.append(f'<text x="{L - 50}" y="{py(v) + 4:.1f}">{v:.4f}</text>')
colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
for i, (k, pts) in enumerate(sorted(series.items())):
    c = colors[i % len(colors)]
    pts.sort()
    for j, dash in ((1, ""), (2, ' stroke-dasharray="5,4"')):
        d = " ".join(f"{px(p[0]):.1f},{py(p[j]):.1f}" for p in pts)
        out.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
    for p in pts:
        out.append(f'<circle cx="{px(p[0]):.1f}" cy="{py(p[1]):.1f}" r="3" fill="{c}"/>')
    ly = T + 20 + 34 * i
    out.append(f'<line x1="{W - R + 15}" y1="{ly}" x2="{W - R + 45}" y2="{ly}" stroke="{c}" stroke-width="2"/>')
    out.append(f'<text x="{W - R + 50}" y="{ly + 4}">n={k[0]} {"wrap" if k[1] else "no wrap"}</text>')
    out.append(f'<text x="{W - R + 50}" y="{ly + 18}" fill="#666">avg solid, p90 dashed</text>')
out.append("</svg>")
print("\n".join(out))
