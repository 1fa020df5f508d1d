"""The maintain pass's derivation (tiers/knowledge/maintain.derive: one current truth over every memory) at 1k, 10k
and 50k memories, beside its floor in the same run: the change cues alone read over the same texts (every memory
read once, nothing matched). `python -m bench.bench_maintain [--sizes 1000,10000,50000]`.

The texts are generated (a stress test, not a score): daily-note lines sharing one word ("Note 12: talked with
Chen about the tax …; plan number 5179 is due in 9 days"), the shape that would square the pool without an index,
mixed with facts and changes that name what they replace ("moved the garage code from 4417 to 5120").
"""
from __future__ import annotations

import argparse
import random
import time

from memoryd.tiers.knowledge import change
from memoryd.tiers.knowledge.maintain import derive

PEOPLE = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana"]
TOPICS = ["garden", "budget", "release", "holiday", "dentist", "invoice", "roadmap", "piano", "marathon", "tax"]
FACTS = ["The garage code is {n}", "We changed the garage code from {n} to {m}", "{p} is head of platform",
         "{p} is based in {t}, no longer in {u}", "Office address: {d} Elm Street", "the web app runs on Node {d}",
         "switched the web app from Node {d} to Node {e}"]


def texts(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 4:
            text = (f"Note {i}: talked with {rng.choice(PEOPLE)} about the {rng.choice(TOPICS)} and the "
                    f"{rng.choice(TOPICS)}; plan number {rng.randint(1000, 9999)} is due in {rng.randint(2, 40)} days.")
        else:
            text = rng.choice(FACTS).format(n=rng.randint(1000, 9999), m=rng.randint(1000, 9999), d=rng.randint(1, 30),
                                            e=rng.randint(1, 30), p=rng.choice(PEOPLE), t=rng.choice(TOPICS).title(),
                                            u=rng.choice(TOPICS).title())
        out.append({"id": f"m{i:07d}", "text": text, "created_at": 1_700_000_000 + i * 60,
                    "metadata": {"date": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"}})
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000,10000,50000")
    sizes = [int(s) for s in p.parse_args().sizes.split(",")]
    print(f"{'memories':>9} {'derive s':>9} {'µs each':>8} {'cues only s':>12} {'changes':>8}")
    for n in sizes:
        pool = texts(n)
        t0 = time.perf_counter()
        for m in pool:
            change.cues(m["text"])
        floor = time.perf_counter() - t0
        t0 = time.perf_counter()
        wanted, _ = derive(pool)
        took = time.perf_counter() - t0
        print(f"{n:>9} {took:>9.2f} {took / n * 1e6:>8.0f} {floor:>12.2f} {len(wanted):>8}")


if __name__ == "__main__":
    main()
