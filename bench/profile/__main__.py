"""Score the owner-profile rule on hand-written lines: `python -m bench.profile [FILE]` (default: dev.txt).

Prints the lines the rule puts in the owner profile that it should not (false), the ones it misses, and
precision / recall. What the rule does is exactly what ingest does with a turn: extract its facts, and file a
preference under a profile key when the owner says it in their own clause (tiers/ingest/hot_updates.py)."""
from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

from memoryd.tiers.distillation.fact_rules import extract
from memoryd.tiers.ingest.hot_updates import owner_says


def lines(path: Path) -> list[tuple[bool, str, str]]:
    out = []
    for raw in path.read_text("utf-8").splitlines():
        if raw.startswith(("+", "-")):
            label, speaker, text = (p.strip() for p in raw.split("|", 2))
            out.append((label == "+", speaker, text))
    return out


def profiled(speaker: str, text: str) -> str | None:
    """The profile key ingest would set for this turn, or None."""
    for fact in extract(text, dt.date(2026, 11, 20), limit=3):
        if fact.profile_key and speaker == "user" and owner_says(fact.text):
            return fact.profile_key
    return None


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("dev.txt")
    tp = fp = fn = 0
    for want, speaker, text in lines(path):
        key = profiled(speaker, text)
        if key and want:
            tp += 1
        elif key:
            fp += 1
            print(f"false  [{key}] {speaker}: {text}")
        elif want:
            fn += 1
            print(f"missed {speaker}: {text}")
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    print(f"profile: right {tp} false {fp} missed {fn} precision {p:.3f} recall {r:.3f}")


if __name__ == "__main__":
    main()
