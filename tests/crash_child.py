"""Crash-test child: stores and consolidates in a loop, printing each id only once store() returned.

  crash_child.py zygote HOME   import memoryd once, then for each "go N ARCHIVE" line on stdin fork a
                               worker, print "pid P", reap it, print "done P STATUS" (cheap kills)
  crash_child.py run HOME N A  one worker in this process (the real start-up path)
  crash_child.py stores HOME P K  store K facts prefixed P (concurrency test), acking each, then exit

A worker prints "ready" when set up, then "ack <id>" lines (one os.write each) forever, until killed.
"""
from __future__ import annotations

import os
import random
import sys
import time

AGENT = "crash"
DAY = 86400.0
WORDS = ["duck", "北京", "烤鸭", "server", "deploy", "tea", "alice", "会议", "docs", "bug", "python"]
CATEGORIES = ["notes", "projects/evoclaw", "people/alice", "food/北京", "ops/deploy/prod", "misc"]


def say(line: str) -> None:
    os.write(1, (line + "\n").encode("utf-8"))  # one write: atomic on a pipe, no user-space buffer


def worker(home: str, n: int, use_archive: bool) -> None:
    from memoryd.tiers import hot as H
    from memhelp import AgentMemory
    from memoryd.tiers.config import load_config
    from memoryd.tiers.consolidate import consolidate

    rng = random.Random(n)
    config = load_config({"MEMORYD_HOME": home})
    archive = None
    if use_archive:
        from memoryd.sync.index import open_index as open_archive

        archive = open_archive(config)
    # time moves forward across workers (3 days each) so retention and pruning kick in
    offset = [n * 3 * DAY]
    mem = AgentMemory(config, AGENT, archive=archive, clock=lambda: time.time() + offset[0])
    say("ready")
    i = 0
    while True:
        i += 1
        roll = rng.random()
        if roll < 0.75:
            text = f"fact {n}-{i} " + " ".join(rng.choices(WORDS, k=rng.randint(1, 6))) + " x" * rng.randint(0, 400)
            entry = mem.store(text, rng.choice(CATEGORIES), round(rng.uniform(0.05, 1.0), 3))
            say(f"ack {entry['id']}")
        elif roll < 0.9:
            offset[0] += rng.choice([0.0, 0.5, 1.0]) * DAY
            consolidate(mem, rng.choice(["quick", "quick", "daily", "monthly", "full"]))
        else:
            mem.change(lambda s, now: H.add_event(s["hot"], f"event {n}-{i} " + "e" * rng.randint(0, 150), now),
                       "event")


def zygote(home: str) -> None:
    # Import everything a worker needs once, so forked workers start in a few milliseconds.
    import memoryd.sync.index  # noqa: F401
    import memoryd.tiers.agent  # noqa: F401
    import memoryd.tiers.consolidate  # noqa: F401
    import memoryd.tiers.distill  # noqa: F401
    import memoryd.tiers.importance  # noqa: F401
    import memoryd.tiers.redact  # noqa: F401

    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] != "go":
            break
        n, use_archive = int(parts[1]), parts[2] == "1"
        pid = os.fork()
        if pid == 0:
            try:
                worker(home, n, use_archive)
            finally:
                os._exit(3)  # a worker only ends by being killed; anything else is a failure
        say(f"pid {pid}")
        _, status = os.waitpid(pid, 0)
        say(f"done {pid} {status}")


def stores(home: str, prefix: str, count: int) -> None:
    from memhelp import AgentMemory
    from memoryd.tiers.config import load_config

    mem = AgentMemory(load_config({"MEMORYD_HOME": home}), AGENT)
    for i in range(count):
        say(f"ack {mem.store(f'{prefix} parallel fact {i}', 'notes/' + prefix, 0.5)['id']}")


def main() -> None:
    if sys.argv[1] == "zygote":
        zygote(sys.argv[2])
    elif sys.argv[1] == "stores":
        stores(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")


if __name__ == "__main__":
    main()
