#!/usr/bin/env python3
"""Draws make bench's CSV (bench --csv FILE) as an SVG: ms against mask size,
both on log scales, one line a method, NPP, the copy floor and the FP32 floor,
random masks and Gaussian blurs side by side, the GPU named in the title.
Python's standard library only.

usage: plot-bench.py BENCH.csv OUT.svg
"""
import csv
import math
import sys
from xml.sax.saxutils import escape

STYLE = {   # series: colour, dash, width
    "NPP": ("#000000", "", 2.5),
    "basic": ("#bbbbbb", "", 1.2),
    "constant": ("#999999", "", 1.2),
    "tiled": ("#e6a000", "", 1.5),
    "caching": ("#a06000", "", 1.5),
    "register": ("#0072b2", "", 2.5),
    "separable": ("#009e73", "", 2.5),
    "fft": ("#cc3311", "", 2.5),
    "copy floor": ("#555555", "6,4", 1.5),
    "FP32 floor": ("#aa3377", "2,3", 1.5),
}
PANELS = [("random", "random masks"), ("gaussian", "Gaussian blurs")]
W, H = 460, 380          # a panel
LEFT, TOP, BOTTOM = 62, 56, 48


def read(path):
    """The GPU line (the first comment) and the rows (table, k, series, ms)."""
    gpu, lines = "", []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                gpu = gpu or line[1:].strip().removeprefix("GPU: ")
            else:
                lines.append(line)
    rows = [(r["table"], int(r["k"]), r["series"], float(r["ms"]))
            for r in csv.DictReader(lines)]
    return gpu, rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    gpu, rows = read(sys.argv[1])
    values = [ms for t, _, _, ms in rows if t in dict(PANELS)]
    lo = 10 ** math.floor(math.log10(min(values)))
    hi = 10 ** math.ceil(math.log10(max(values)))
    legend_w = 130
    total_w = len(PANELS) * W + legend_w
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{total_w}" height="{H}" fill="white"/>',
           f'<text x="{total_w / 2}" y="20" text-anchor="middle" font-size="15">'
           f'{escape(gpu.split(";")[0])}: 4096x4096 RGBA float, ms a convolution</text>']
    for p, (table, title) in enumerate(PANELS):
        x0, x1 = p * W + LEFT, (p + 1) * W - 12
        y0, y1 = TOP, H - BOTTOM
        ks = sorted({k for t, k, _, _ in rows if t == table})

        def X(k):
            return x0 + (x1 - x0) * math.log(k / ks[0]) / math.log(ks[-1] / ks[0])

        def Y(ms):
            return y1 - (y1 - y0) * (math.log10(ms) - math.log10(lo)) / \
                (math.log10(hi) - math.log10(lo))

        out.append(f'<text x="{(x0 + x1) / 2}" y="{y0 - 10}" text-anchor="middle">'
                   f'{title}</text>')
        out.append(f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                   f'fill="none" stroke="#888"/>')
        decade = lo
        while decade <= hi * 1.0001:
            for m in (1, 2, 5):
                v = decade * m
                if lo <= v <= hi:
                    out.append(f'<line x1="{x0}" x2="{x1}" y1="{Y(v):.1f}" y2="{Y(v):.1f}" '
                               f'stroke="#e4e4e4"/>')
                    out.append(f'<text x="{x0 - 5}" y="{Y(v) + 4:.1f}" text-anchor="end">'
                               f'{v:g}</text>')
            decade *= 10
        for k in ks:
            out.append(f'<text x="{X(k):.1f}" y="{y1 + 16}" text-anchor="middle">{k}</text>')
        out.append(f'<text x="{(x0 + x1) / 2}" y="{y1 + 34}" text-anchor="middle">'
                   f'mask width and height (log scale)</text>')
        if p == 0:
            out.append(f'<text x="14" y="{(y0 + y1) / 2}" text-anchor="middle" '
                       f'transform="rotate(-90 14 {(y0 + y1) / 2})">ms (log scale)</text>')
        for series, (colour, dash, width) in STYLE.items():
            pts = sorted((k, ms) for t, k, s, ms in rows if t == table and s == series)
            if not pts:
                continue
            path = " ".join(f"{X(k):.1f},{Y(ms):.1f}" for k, ms in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                       f'stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "")
                       + '/>')
            for k, ms in pts:
                if not dash:
                    out.append(f'<circle cx="{X(k):.1f}" cy="{Y(ms):.1f}" r="2.5" '
                               f'fill="{colour}"/>')
    lx = len(PANELS) * W + 8
    for i, (series, (colour, dash, width)) in enumerate(STYLE.items()):
        y = TOP + 10 + 20 * i
        out.append(f'<line x1="{lx}" x2="{lx + 26}" y1="{y}" y2="{y}" stroke="{colour}" '
                   f'stroke-width="{width}"' + (f' stroke-dasharray="{dash}"' if dash else "")
                   + '/>')
        out.append(f'<text x="{lx + 32}" y="{y + 4}">{escape(series)}</text>')
    out.append("</svg>")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
