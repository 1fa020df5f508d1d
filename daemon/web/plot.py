"""Inline SVG plots (no script, no library): memories per day, and a warm entry's decay to eviction."""
from __future__ import annotations

import time
from typing import Sequence

from memoryd.daemon.web.render import esc

W, H, PAD = 720, 180, 28


def per_day(counts: dict[str, list[int]], days: int, now: float, title: str) -> str:
    """Stacked bars of warm and cold memories for each of the last `days` days (UTC dates)."""
    labels = [time.strftime("%Y-%m-%d", time.gmtime(now - (days - 1 - i) * 86400)) for i in range(days)]
    values = [counts.get(d, [0, 0]) for d in labels]
    top = max([w + c for w, c in values] + [1])
    step = (W - 2 * PAD) / days
    bars = []
    for i, (label, (warm, cold)) in enumerate(zip(labels, values)):
        x = PAD + i * step
        for n, below, cls in ((cold, 0, "cold"), (warm, cold, "warm")):
            if n:
                h = (H - 2 * PAD) * n / top
                y = H - PAD - (H - 2 * PAD) * (below + n) / top
                bars.append(f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{max(step - 1, 1):.1f}" '
                            f'height="{h:.1f}"><title>{esc(label)}: {n} {cls}</title></rect>')
    total = sum(w + c for w, c in values)
    axis = (f'<line class="axis" x1="{PAD}" y1="{H - PAD}" x2="{W - PAD}" y2="{H - PAD}"/>'
            f'<text x="{PAD}" y="{H - 8}">{esc(labels[0])}</text>'
            f'<text x="{W - PAD}" y="{H - 8}" text-anchor="end">{esc(labels[-1])}</text>'
            f'<text x="{PAD}" y="{PAD - 10}">{top:,} max per day</text>')
    return (f'<svg class="plot" viewBox="0 0 {W} {H}" role="img" aria-labelledby="perday-t perday-d">'
            f'<title id="perday-t">{esc(title)}</title>'
            f'<desc id="perday-d">{total:,} memories over {days} days; at most {top:,} on one day.</desc>'
            f'{axis}{"".join(bars)}</svg>')


def decay(points: Sequence[tuple[float, float]], leave_day: int | None, label: str) -> str:
    """A small line of the score from today to the day the entry is due for cold, with warm's thresholds."""
    w, h = 140, 36
    span = max(points[-1][0], 1.0)
    top = max(max(s for _, s in points), 0.35)

    def xy(d: float, s: float) -> str:
        return f"{2 + (w - 4) * d / span:.1f},{h - 2 - (h - 4) * min(s, top) / top:.1f}"

    line = " ".join(xy(d, s) for d, s in points)
    marks = "".join(f'<line class="threshold" x1="2" x2="{w - 2}" y1="{xy(0, t).split(",")[1]}" '
                    f'y2="{xy(0, t).split(",")[1]}"/>' for t in (0.3, 0.05))
    end = "beyond ten years" if leave_day is None else f"in {leave_day} days"
    return (f'<svg class="decay" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
            f'aria-label="{esc(label)}: score from {points[0][1]:.2f} today to {points[-1][1]:.2f}, due for cold {end}">'
            f'{marks}<polyline points="{line}"/></svg>')
