"""A tiny SVG line plot of a running mean and its 95% interval (no plotting library)."""

from __future__ import annotations

import math
from html import escape

WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 40, 40


def running_stats(values: list[float]) -> list[tuple[float, float, float]]:
    """(mean, low, high) after each value, the interval from the running variance."""
    stats = []
    total = total_sq = 0.0
    for n, v in enumerate(values, 1):
        total += v
        total_sq += v * v
        mean = total / n
        var = (total_sq - n * mean * mean) / (n - 1) if n > 1 else 0.0
        half = 1.96 * math.sqrt(max(var, 0.0) / n)
        stats.append((mean, mean - half, mean + half))
    return stats


def running_mean_svg(values: list[float], title: str) -> str:
    """The running mean as a line over its shaded interval, with a zero line."""
    stats = running_stats(values)[min(9, len(values) - 1):]  # the first few are noise
    first = len(values) - len(stats) + 1
    low = min(0.0, *(s[1] for s in stats))
    high = max(0.0, *(s[2] for s in stats))
    span = (high - low) or 1.0
    low, high = low - 0.05 * span, high + 0.05 * span

    def x(n: int) -> float:
        return LEFT + (n - first) / max(1, len(values) - first) * (WIDTH - LEFT - RIGHT)

    def y(v: float) -> float:
        return TOP + (high - v) / (high - low) * (HEIGHT - TOP - BOTTOM)

    upper = [f"{x(first + i):.1f},{y(s[2]):.1f}" for i, s in enumerate(stats)]
    lower = [f"{x(first + i):.1f},{y(s[1]):.1f}" for i, s in enumerate(stats)]
    line = [f"{x(first + i):.1f},{y(s[0]):.1f}" for i, s in enumerate(stats)]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{WIDTH / 2}" y="20" text-anchor="middle">{escape(title)}</text>',
        f'<polygon points="{" ".join(upper + lower[::-1])}" fill="#9ecae1" opacity="0.6"/>',
        f'<polyline points="{" ".join(line)}" fill="none" stroke="#08519c" stroke-width="1.5"/>',
        f'<line x1="{LEFT}" y1="{y(0):.1f}" x2="{WIDTH - RIGHT}" y2="{y(0):.1f}" '
        f'stroke="black" stroke-dasharray="4 3"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{HEIGHT - BOTTOM}" stroke="black"/>',
        f'<line x1="{LEFT}" y1="{HEIGHT - BOTTOM}" x2="{WIDTH - RIGHT}" '
        f'y2="{HEIGHT - BOTTOM}" stroke="black"/>',
    ]
    for i in range(5):
        v = low + (high - low) * i / 4
        parts.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
    for n in (first, (first + len(values)) // 2, len(values)):
        parts.append(f'<text x="{x(n):.1f}" y="{HEIGHT - BOTTOM + 16}" '
                     f'text-anchor="middle">{n}</text>')
    parts.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 6}" text-anchor="middle">'
                 f'deals (mean with 95% interval)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
