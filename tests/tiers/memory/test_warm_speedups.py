"""Warm's fast paths (the size cap measured entry by entry, reinforcement through a positions map)
give exactly what the plain code they replace gave: the whole of warm dumped after every eviction,
a linear search for each id."""
from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

from hypothesis import given, settings, strategies as st

from memoryd.tiers.ingest.note_parse import parse_note

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))  # bench/ is not installed: run from the checkout
from bench.bench_ingest import synth_note  # noqa: E402


def _texts() -> list[str]:
    rng = random.Random(11)
    out: list[str] = []
    for i in range(17):
        day = dt.date(2025, 2, 1) + dt.timedelta(days=i)
        out += [f.text for f in parse_note(synth_note(day, rng, 30), day.isoformat(), classify=False)[0]]
    return out[:400]


TEXTS = _texts()


def ref_enforce_size(warm: dict, now: float, grace: float) -> tuple[list, list]:
    """The cap measured by dumping the whole of warm after every eviction."""
    from memoryd.tiers.memory import warm as W
    from memoryd.tiers.base.atomic import dumps
    from memoryd.tiers.memory.model import WARM_MAX_BYTES

    for e in warm["entries"]:
        W.rescore(e, now)
    fresh = now - grace
    warm["entries"].sort(key=lambda e: (e["created_at"] <= fresh, -e["score"], -e["created_at"], e["id"]))
    out, log = [], []
    while warm["entries"] and len(dumps(warm)) > WARM_MAX_BYTES:
        e = warm["entries"].pop()
        out.append(e)
        young = " (within its grace period: nothing older was left)" if e["created_at"] > fresh else ""
        log.append(W._eviction(e, f"warm over {WARM_MAX_BYTES} bytes, lowest score {e['score']:.3f}{young}"))
    return out, log


def ref_add_or_reinforce(warm: dict, entry: dict, now: float) -> tuple[dict, bool]:
    from memoryd.tiers.memory import warm as W

    for old in warm["entries"]:
        if old["id"] == entry["id"]:
            old["access_count"] += 1
            old["last_access"] = int(now)
            old["importance"] = max(old["importance"], entry["importance"])
            for key, value in entry.get("metadata", {}).items():
                old.setdefault("metadata", {}).setdefault(key, value)
            W.rescore(old, now)
            return old, False
    warm["entries"].append(entry)
    return entry, True


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TEXTS + ["x", "部署 ✓", "\"quoted\\\\\""]), st.integers(0, 3),
                          st.floats(0.05, 1.0), st.integers(0, 90 * 86400), st.text(max_size=30)),
                max_size=90),
       st.integers(1, 300), st.sampled_from([0.0, 3600.0, 86400.0 * 30]), st.booleans())
def test_warm_cap_and_reinforcement_are_the_same(rows: list, repeat: int, grace: float, extra_key: bool) -> None:
    import copy as copy_module

    from memoryd.tiers.memory import warm as W

    now = 1_750_000_000.0
    fast: dict = {"entries": []} | ({"note": "ü" * 7} if extra_key else {})
    slow, batched = copy_module.deepcopy(fast), copy_module.deepcopy(fast)
    where = W.positions(batched)
    for n, (text, cat, importance, age, meta) in enumerate(rows * (1 + repeat // 100)):
        entry = W.new_entry(text * (1 + repeat % 7), f"c{cat}", importance, now - age, {"m": meta} if meta else None)
        got = W.add_or_reinforce(fast, copy_module.deepcopy(entry), now)
        want = ref_add_or_reinforce(slow, copy_module.deepcopy(entry), now)
        assert got == want
        if n % 13 == 5:  # a new batch: the positions built again from warm as it stands
            where = W.positions(batched)
        assert W.add_or_reinforce(batched, copy_module.deepcopy(entry), now, where) == want
    assert fast == slow == batched
    assert W.enforce_size(fast, now, grace) == ref_enforce_size(slow, now, grace)
    assert fast == slow


def test_warm_cap_stops_where_the_whole_dump_says_at_the_byte() -> None:
    """Warm padded so that keeping `keep` entries is exactly 1 byte over, at, or under the cap."""
    import copy as copy_module

    from memoryd.tiers.memory import warm as W
    from memoryd.tiers.base.atomic import dumps
    from memoryd.tiers.memory.model import WARM_MAX_BYTES

    now = 1_750_000_000.0
    entries = [W.new_entry(f"fact {i} 部署 " + "x" * (i * 37 % 500), "c", 0.9 - i / 100, now - 60) for i in range(40)]
    for keep in (0, 1, 2, 3, 17, 39):
        for delta in (-1, 0, 1, 2):
            warm = {"entries": copy_module.deepcopy(entries), "pad": ""}
            kept = {"entries": warm["entries"][:keep], "pad": ""}
            warm["pad"] = "p" * (WARM_MAX_BYTES + delta - len(dumps(kept)))
            slow = copy_module.deepcopy(warm)
            for k in {0, 1, keep, len(entries)}:  # sizes are byte-exact: a prefix's own size fits just it
                assert W._fitting(warm, len(dumps(dict(warm, entries=warm["entries"][:k])))) == k
            got, want = W.enforce_size(warm, now), ref_enforce_size(slow, now, 0.0)
            assert got == want and warm == slow, (keep, delta)
            assert len(warm["entries"]) == (keep - (delta > 0) if keep else 0)
