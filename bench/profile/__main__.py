"""Score the owner-profile rule on hand-written lines: `python -m bench.profile [--lines] [FILE ...]`.

Default: every *.txt here — dev.txt (written by the rule's author before the rule), dev2.txt (written by someone
who had not seen the rules; read while changing them), test.txt (the same, a second set nobody changing the rules
has read: its lines are never printed). Prints precision / recall per file; `--lines` also the lines the rule puts
in the owner profile that it should not (false) and the ones it misses, for dev files only. What the rule does is exactly what ingest does with a turn: extract its facts, and file a
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


def score(path: Path, show: bool) -> str:
    tp = fp = fn = 0
    for want, speaker, text in lines(path):
        key = profiled(speaker, text)
        tp, fp, fn = tp + bool(key and want), fp + bool(key and not want), fn + bool(want and not key)
        if show and key and not want:
            print(f"false  [{key}] {speaker}: {text}")
        elif show and want and not key:
            print(f"missed {speaker}: {text}")
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    return f"profile {path.name}: right {tp} false {fp} missed {fn} precision {p:.3f} recall {r:.3f}"


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--lines"]
    paths = [Path(a) for a in args] or sorted(Path(__file__).parent.glob("*.txt"))
    for path in paths:
        print(score(path, "--lines" in sys.argv and not path.name.startswith("test")))


if __name__ == "__main__":
    main()
