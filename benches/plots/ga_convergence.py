"""Draws docs/results/ga.svg (a Fig. 5-style convergence plot) from the CSVs written by
`cargo run --release -p evo-ga --example quality -- <n> <generations> 10 <out.csv> [cpu|cuda-batch]`.

usage: python3 benches/plots/ga_convergence.py OUT.svg LABEL=FILE.csv [LABEL=FILE.csv ...]
Each panel is one function at one n: log10 of the mean over seeds of (best so far - optimum), floored at 1e-12.
No third-party packages: the SVG is written by hand.
"""
import collections
import csv
import math
import sys

FUNCTIONS = ["hypersphere", "ridge", "rosenbrock", "step", "griewank", "schwefel", "rastrigin", "ackley"]
SCHWEFEL_PER_COORDINATE = -418.982887
STYLES = [("#9ecae1", 5, ""), ("#08306b", 1.6, "6,4"), ("#e6550d", 1.6, "2,3")]


def optimum(function, n):
    return SCHWEFEL_PER_COORDINATE * n if function == "schwefel" else 0.0


def curves(path):
    sums = collections.defaultdict(lambda: collections.defaultdict(list))
    for row in csv.DictReader(open(path)):
        key = (row["function"], int(row["n"]))
        sums[key][int(row["generation"])].append(float(row["best_fitness"]))
    out = {}
    for (function, n), by_generation in sums.items():
        points = []
        for generation in sorted(by_generation):
            values = by_generation[generation]
            gap = sum(values) / len(values) - optimum(function, n)
            points.append((generation, math.log10(max(gap, 1e-12))))
        out[(function, n)] = points
    return out


def main():
    out_path = sys.argv[1]
    series = []
    for arg in sys.argv[2:]:
        label, path = arg.split("=", 1)
        series.append((label, curves(path)))
    keys = sorted({k for _, c in series for k in c}, key=lambda k: (k[1], FUNCTIONS.index(k[0])))
    cols, width, height, pad = 4, 300, 200, 45
    rows = math.ceil(len(keys) / cols)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{cols * width}" height="{rows * height + 40}" '
           f'font-family="sans-serif" font-size="11">', '<rect width="100%" height="100%" fill="white"/>']
    for index, key in enumerate(keys):
        x0, y0 = (index % cols) * width, (index // cols) * height + 40
        points = [p for _, c in series if key in c for p in c[key]]
        gmax = max(p[0] for p in points) or 1
        ymin, ymax = math.floor(min(p[1] for p in points)), math.ceil(max(p[1] for p in points))
        ymax = ymax if ymax > ymin else ymin + 1
        sx = lambda g: x0 + pad + (width - pad - 10) * g / gmax
        sy = lambda y: y0 + height - 30 - (height - 55) * (y - ymin) / (ymax - ymin)
        svg.append(f'<rect x="{x0 + pad}" y="{y0 + 25}" width="{width - pad - 10}" height="{height - 55}" '
                   'fill="none" stroke="#888"/>')
        svg.append(f'<text x="{x0 + pad}" y="{y0 + 18}" font-weight="bold">{key[0]}, n = {key[1]}</text>')
        for y in range(ymin, ymax + 1, max(1, (ymax - ymin) // 6)):
            svg.append(f'<text x="{x0 + pad - 4}" y="{sy(y) + 4:.1f}" text-anchor="end">1e{y}</text>')
        svg.append(f'<text x="{x0 + width - 10}" y="{y0 + height - 15}" text-anchor="end">{gmax} gen.</text>')
        for (label, c), (color, stroke, dash) in zip(series, STYLES):
            if key not in c:
                continue
            path = " ".join(f"{sx(g):.1f},{sy(y):.1f}" for g, y in c[key])
            dashes = f' stroke-dasharray="{dash}"' if dash else ""
            svg.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="{stroke}"{dashes}/>')
    legend = "; ".join(f"{label} ({'solid, wide' if i == 0 else 'dashed'})" for i, (label, _) in enumerate(series))
    svg.append(f'<text x="10" y="20">Mean over 10 seeds of best-so-far minus optimum (log scale) vs generation. '
               f'{legend}.</text>')
    svg.append("</svg>")
    open(out_path, "w").write("\n".join(svg) + "\n")


main()
