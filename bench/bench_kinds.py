"""Benchmark one current truth on a generated multi-session set: duplicates in top-5 lists, the current value at
rank 1, stale values above it, and memories kept per 100 turns (issue 21, items 1 and 2).

Run: .venv/bin/python bench/bench_kinds.py [--things N] [--seed S]
Each thing is said in chat ("Remember that the X is V" + the assistant's echo + filler), restated in a daily note,
and for every other thing changed later ("the X changed to W"); weeks pass, so the first values leave warm for
the local index. A duplicate is two results naming the same thing with the same value (judged by the generator's
own words, not by memoryd's rules). Prints numbers only.
"""
from __future__ import annotations

import argparse
import os
import random
import tempfile
from pathlib import Path

THINGS = ["garage code", "gym locker code", "wifi password", "office door code", "bike lock code", "alarm pin",
          "storage unit code", "mailbox code", "safe combination", "server port", "staging port", "vpn port",
          "home address", "meeting date", "budget", "dentist phone number", "backup server address",
          "printer ip", "guest wifi name", "team standup time", "project deadline", "hotel room"]
FILLER = ["Thanks!", "Sounds good", "Sure, will do.", "Good lesson. I'll avoid repeating that.", "ok", "好的", "哈哈"]
DAY = 86400.0


def value(rng: random.Random, thing: str) -> str:
    if "address" in thing:
        return f"{rng.randint(1, 99)} {rng.choice(['Elm', 'Oak', 'Main', 'Pine'])} Street"
    if "date" in thing or "deadline" in thing:
        return f"2026-0{rng.randint(1, 9)}-{rng.randint(10, 28)}"
    if "time" in thing:
        return f"{rng.randint(7, 11)}:{rng.choice(['00', '15', '30', '45'])}"
    if "name" in thing and "phone" not in thing:
        return rng.choice(["Attic", "Cellar", "Porch", "Loft"]) + f"-{rng.randint(10, 99)}"
    return str(rng.randint(1000, 9999))


def run(things: int, seed: int) -> dict[str, float]:
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.cold.source import open_index
    from memoryd.tiers.ingest.conversation import distill_segment
    from memoryd.tiers.ingest.openclaw.events import Turn
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.memory.consolidate import consolidate

    rng = random.Random(seed)
    home = Path(tempfile.mkdtemp(prefix="bench-kinds-"))
    config = load_config({"MEMORYD_HOME": str(home), "MEMORYD_RETRIEVAL_MODE": "keyword"})
    archive = open_index(config)
    t0 = 1_780_000_000.0
    clock = {"t": t0}
    mem = AgentMemory(config, "bench", archive=archive, clock=lambda: clock["t"])
    truth: dict[str, tuple[str, list[str]]] = {}
    turns_total = 0
    for i, thing in enumerate(THINGS[:things]):
        v1 = value(rng, thing)
        turns = [Turn(f"s{i}", 0, "user", f"Remember that the {thing} is {v1}.", t0 + i * 60),
                 Turn(f"s{i}", 1, "assistant", f"Got it — the {thing} is {v1}.", t0 + i * 60 + 1)]
        turns += [Turn(f"s{i}", 2 + k, "user" if k % 2 else "assistant", rng.choice(FILLER), t0 + i * 60 + 2 + k)
                  for k in range(3)]
        clock["t"] = t0 + i * 60
        distill_segment(mem, turns)
        mem.store(f"The {thing} is {v1}.", "notes", 0.6, {"source": f"memory/2026-01-01.md#L{i}", "date": "2026-01-01"})
        turns_total += len(turns)
        truth[thing] = (v1, [])
    clock["t"] = t0 + 35 * DAY
    consolidate(mem, "daily")
    for i, thing in enumerate(THINGS[:things]):
        if i % 2:
            continue
        v2 = value(rng, thing)
        while v2 == truth[thing][0]:
            v2 = value(rng, thing)
        clock["t"] = t0 + 36 * DAY + i * 60
        turns = [Turn(f"t{i}", 0, "user", f"The {thing} changed to {v2}.", clock["t"]),
                 Turn(f"t{i}", 1, "assistant", "Noted, thanks!", clock["t"] + 1)]
        distill_segment(mem, turns)
        turns_total += len(turns)
        truth[thing] = (v2, [truth[thing][0]])
    clock["t"] = t0 + 37 * DAY
    dup = current1 = stale_above = 0
    for thing, (now_value, stale) in truth.items():
        results = mem.retrieve(f"what is the {thing} now", limit=5)
        seen: set[str] = set()
        has_dup = stale_first = False
        first_current = None
        for rank, r in enumerate(results):
            said = next((v for v in [now_value, *stale] if v.lower() in r["text"].lower()), None)
            if said is None or thing.split()[-1] not in r["text"].lower():
                continue
            has_dup |= said in seen
            seen.add(said)
            if said == now_value and first_current is None:
                first_current = rank
            stale_first |= said in stale and first_current is None
        dup += has_dup
        stale_above += stale_first
        current1 += first_current == 0
    kept = sum(1 for _ in archive.iter_entries("bench")) + len(mem.read_state()["warm"]["entries"])
    archive.close()
    n = len(truth)
    return {"things": n, "turns": turns_total, "dup_top5": dup / n, "current_at_1": current1 / n,
            "stale_above_current": stale_above / n, "kept_per_100_turns": 100 * kept / turns_total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--things", type=int, default=len(THINGS))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    os.environ["MEMORYD_RETRIEVAL_MODE"] = "keyword"
    out = run(args.things, args.seed)
    print(f"one current truth: {out['things']} things, {out['turns']} turns (seed {args.seed})")
    print(f"  top-5 lists holding a duplicate      {out['dup_top5']:.2f}")
    print(f"  current value at rank 1               {out['current_at_1']:.2f}")
    print(f"  a stale value above the current one   {out['stale_above_current']:.2f}")
    print(f"  memories kept per 100 turns           {out['kept_per_100_turns']:.1f}")


if __name__ == "__main__":
    main()
