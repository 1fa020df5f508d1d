"""Crash-test child: stores and consolidates in a loop, printing each id only once store() returned.

  crash_child.py zygote HOME   import memoryd once, then for each "go N ARCHIVE" line on stdin fork a
                               worker, print "pid P", reap it, print "done P STATUS" (cheap kills)
  crash_child.py run HOME N A  one worker in this process (the real start-up path)
  crash_child.py stores HOME P K  store K facts prefixed P (concurrency test), acking each, then exit
  crash_child.py cli-zygote    import the whole CLI once; "go JSON" forks a worker running one memoryd
                               command ({"argv", "env", "out", "err"}), prints "pid P" then "done P STATUS"
                               (STATUS: exit code, or minus the signal); "bg JSON" forks one (a daemon)
                               without waiting; "reap P" waits for it ("reaped P STATUS"): the fault
                               suite's cheap kills of real commands

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
    from memoryd.tiers.memory import hot as H
    from memhelp import AgentMemory
    from memoryd.tiers.base.config import load_config
    from memoryd.tiers.memory.consolidate import consolidate

    rng = random.Random(n)
    # keyword retrieval: what is checked is files and acknowledged ids, not vectors (hybrid would load the model
    # in every forked worker and embed each archived row, most of the storm's time)
    config = load_config({"MEMORYD_HOME": home, "MEMORYD_RETRIEVAL_MODE": "keyword"})
    archive = None
    if use_archive:
        from memoryd.tiers.cold.source import open_index as open_archive

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
    import memoryd.tiers.cold.index  # noqa: F401
    import memoryd.tiers.memory.agent  # noqa: F401
    import memoryd.tiers.memory.consolidate  # noqa: F401
    import memoryd.tiers.distillation.distill  # noqa: F401
    import memoryd.tiers.distillation.importance  # noqa: F401
    import memoryd.tiers.distillation.redact  # noqa: F401

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
    from memoryd.tiers.base.config import load_config

    mem = AgentMemory(load_config({"MEMORYD_HOME": home}), AGENT)
    for i in range(count):
        say(f"ack {mem.store(f'{prefix} parallel fact {i}', 'notes/' + prefix, 0.5)['id']}")


def cli_worker(req: dict) -> None:
    """In a forked child: run `memoryd ARGV` with the request's environment and output files; never returns."""
    code = 70
    try:
        os.environ.clear()
        os.environ.update(req["env"])
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, req["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            new = os.open(path, flags, 0o600)
            os.dup2(new, fd)
            os.close(new)
        from memoryd.cli.main import main as cli_main

        sys.argv = ["memoryd", *req["argv"]]
        try:
            cli_main()
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - a traceback is what the suite counts
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def cli_zygote() -> None:
    import importlib
    import json

    import memoryd.cli.main as cli_main

    for module in sorted(set(cli_main.COMMANDS.values())):  # every command, and what they load lazily
        importlib.import_module(f"memoryd.cli.{module}")
    for module in ("memoryd.daemon.runner", "memoryd.daemon.api", "memoryd.daemon.client", "memoryd.sync.critical",
                   "memoryd.sync.cloudlog_exchange", "memoryd.sync.restore", "memoryd.sync.remote.db", "memoryd.sync.remote.libsql",
                   "memoryd.sync.status", "memoryd.sync.outbox", "memoryd.tiers.memory.consolidate",
                   "memoryd.tiers.ingest.dailynotes", "memoryd.tiers.distillation.distill", "memoryd.tiers.distillation.importance",
                   "memoryd.tiers.distillation.redact", "memoryd.tiers.memory.status", "memoryd.tiers.retrieval.search", "libsql_client"):
        importlib.import_module(module)
    unreaped = None  # the last worker stays a zombie until the next request: its pid cannot be reused
    for line in sys.stdin:  # while the driver may still send it a SIGKILL
        if unreaped is not None:
            os.waitpid(unreaped, 0)
            unreaped = None
        cmd, _, arg = line.strip().partition(" ")
        if cmd in ("go", "bg"):
            req = json.loads(arg)
            pid = os.fork()
            if pid == 0:
                cli_worker(req)
            say(f"pid {pid}")
            if cmd == "go":
                say(f"done {pid} {_exit_code(os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT))}")
                unreaped = pid
        elif cmd == "reap":
            _, status = os.waitpid(int(arg), 0)
            say(f"reaped {arg} {os.waitstatus_to_exitcode(status)}")
        else:
            break


def _exit_code(info: os.waitid_result) -> int:
    """Like subprocess: the exit status, or minus the signal that ended the process."""
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


def main() -> None:
    if sys.argv[1] == "cli-zygote":
        cli_zygote()
    elif sys.argv[1] == "zygote":
        zygote(sys.argv[2])
    elif sys.argv[1] == "stores":
        stores(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")


if __name__ == "__main__":
    main()
