"""Daily notes ingested into the real AgentMemory: facts stored once (re-ingest is a no-op), ledgers, batches."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from daily_note_samples import EN_NOTE, ZH_NOTE
from memoryd.tiers.ingest.dailynotes import ingest, note_files
from memoryd.tiers.ingest.ledgers import OLD_LEDGER, ledger_path, peek_ledgers
from memoryd.tiers.base.errors import UsageError

# --- ingest into the real AgentMemory --------------------------------------------------------------

@pytest.fixture
def mem(config):
    from memhelp import AgentMemory

    m = AgentMemory(config, "default", clock=lambda: 1771416000.0)  # 2026-02-18
    m.init()
    return m


def write_note(config, date: str, text: str) -> Path:
    path = config.workspace / "memory" / f"{date}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_ingest_stores_facts_and_reingest_is_a_noop(config, mem) -> None:
    write_note(config, "2026-02-18", EN_NOTE)
    report = ingest(mem, config.workspace, "2026-02-18")
    assert report["stored"] == 7 and report["skipped"] == 0 and report["files"] == 1
    assert report["by_kind"] == {"fact": 3, "world": 1, "experience": 1, "opinion": 1, "observation": 1}
    warm_before = (mem.dir / "warm-memory.json").read_bytes()
    ledger_file = ledger_path(mem.dir, "2026-02-18")
    ledger_inode = ledger_file.stat().st_ino
    again = ingest(mem, config.workspace, "2026-02-18")
    assert ledger_file.stat().st_ino == ledger_inode  # a no-op writes nothing
    assert again["stored"] == 0 and again["skipped"] == 7
    assert (mem.dir / "warm-memory.json").read_bytes() == warm_before
    entries = {e["metadata"].get("source"): e for e in mem.read_state()["warm"]["entries"]}
    o = entries["memory/2026-02-18.md#L15"]
    assert o["category"] == "bank/opinion"
    assert o["metadata"]["confidence"] == 0.95 and o["metadata"]["entities"] == ["Peter"]
    assert o["metadata"]["date"] == "2026-02-18" and o["metadata"]["kind"] == "opinion"
    assert entries["memory/2026-02-18.md#L4"]["metadata"]["time"] == "10:30"
    ledger = json.loads(ledger_file.read_text())
    assert len(ledger["keys"]) == 7 and set(ledger["keys"].values()) == {"2026-02-18"}
    assert ledger_file.stat().st_mode & 0o777 == 0o600 and ledger_file.parent.stat().st_mode & 0o777 == 0o700


def test_appended_lines_only_are_stored(config, mem) -> None:
    path = write_note(config, "2026-02-18", EN_NOTE)
    ingest(mem, config.workspace, "2026-02-18")
    path.write_text(EN_NOTE + "- W @Anna: Joined the team as designer.\n", encoding="utf-8")
    report = ingest(mem, config.workspace, "2026-02-18")
    assert (report["stored"], report["skipped"]) == (1, 7)


def test_ingest_all_and_secrets_are_redacted(config, mem) -> None:
    write_note(config, "2026-02-18", EN_NOTE)
    write_note(config, "2026-02-19", ZH_NOTE + "\n## 9:00 PM - creds\nserver password=hunter2xyz\n")
    (config.workspace / "memory" / "notes.md").write_text("not a daily note")
    (config.workspace / "memory" / "2026-13-45.md").write_text("not a date")
    report = ingest(mem, config.workspace, all_=True)
    assert report["dates"] == ["2026-02-18", "2026-02-19"] and report["files"] == 2
    warm = (mem.dir / "warm-memory.json").read_text(encoding="utf-8")
    assert "hunter2xyz" not in warm and "[REDACTED:password]" in warm
    assert "hunter2xyz" not in ledger_path(mem.dir, "2026-02-19").read_text()
    assert ingest(mem, config.workspace, all_=True)["stored"] == 0


def test_round_one_ledger_is_split_by_date_and_still_honoured(config, mem) -> None:
    write_note(config, "2026-02-18", EN_NOTE)
    ingest(mem, config.workspace, "2026-02-18")
    keys = json.loads(ledger_path(mem.dir, "2026-02-18").read_text())["keys"]
    ledger_path(mem.dir, "2026-02-18").unlink()
    (mem.dir / OLD_LEDGER).write_text(json.dumps({"keys": keys}))  # as round 1 left it
    again = ingest(mem, config.workspace, all_=True)
    assert again["stored"] == 0 and again["skipped"] == 7
    assert not (mem.dir / OLD_LEDGER).exists() and ledger_path(mem.dir, "2026-02-18").exists()


def test_round_two_ledgers_per_date_are_honoured_and_folded_into_the_month(config, mem) -> None:
    write_note(config, "2026-02-18", EN_NOTE)
    ingest(mem, config.workspace, "2026-02-18")
    month = ledger_path(mem.dir, "2026-02-18")
    assert month.name == "2026-02.json"
    keys = json.loads(month.read_text())["keys"]
    month.unlink()  # as round 2 left it: a file per date
    (mem.dir / "ingested" / "2026-02-18.json").write_text(json.dumps({"keys": keys}))
    (mem.dir / "ingested" / "2026-02-10.json").write_text(json.dumps({"keys": {"k0": "2026-02-10"}}))
    (mem.dir / "ingested" / "2026-03-01.json").write_text(json.dumps({"keys": {"k1": "2026-03-01"}}))
    assert peek_ledgers(mem.dir, ["2026-02-18"]) == keys  # the helper's lock-free read sees them too
    again = ingest(mem, config.workspace, "2026-02-18")
    assert again["stored"] == 0 and again["skipped"] == 7 and not month.exists()  # a no-op writes nothing
    write_note(config, "2026-02-19", "- Decided to ship the ledger change.\n")
    assert ingest(mem, config.workspace, "2026-02-19")["stored"] == 1
    folded = json.loads(month.read_text())["keys"]
    assert folded.items() >= keys.items() and folded["k0"] == "2026-02-10" and len(folded) == len(keys) + 2
    left = sorted(p.name for p in (mem.dir / "ingested").iterdir())
    assert left == ["2026-02.json", "2026-03-01.json"]  # another month's file waits for its month
    assert ingest(mem, config.workspace, all_=True)["stored"] == 0


def test_missing_note(config, mem) -> None:
    with pytest.raises(UsageError):
        ingest(mem, config.workspace, "2026-01-01")
    report = ingest(mem, config.workspace)  # today (from the clock): nothing there is not an error
    assert report["stored"] == 0 and "no daily note for 2026-02-18" in report["warnings"][0]


def test_ingest_all_without_notes_leaves_no_agent_behind(config) -> None:
    from memhelp import AgentMemory

    fresh = AgentMemory(config, "fresh", clock=lambda: 1771416000.0)
    report = ingest(fresh, config.workspace, all_=True)
    assert report["files"] == report["stored"] == 0 and report["dates"] == []
    assert not fresh.dir.exists()


def test_note_files_orders_by_date(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    for d in ("2026-03-01", "2025-12-31", "2026-01-15"):
        (tmp_path / "memory" / f"{d}.md").write_text("x")
    assert [d for d, _ in note_files(tmp_path, all_=True)] == ["2025-12-31", "2026-01-15", "2026-03-01"]
    assert note_files(tmp_path / "nope", all_=True) == []


# --- the ingest-daily command -------------------------------------------------------------------

def test_cli_ingest_daily(config) -> None:
    from click.testing import CliRunner

    from memoryd.cli.main import cli

    write_note(config, "2026-02-18", EN_NOTE + "- O(c=2) @Peter: likes tea\n")
    write_note(config, "2026-02-19", ZH_NOTE)
    res = CliRunner().invoke(cli, ["ingest-daily", "--date", "2026-02-18", "--json"])
    assert res.exit_code == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["stored"] == 8 and report["dates"] == ["2026-02-18"]
    assert "bad confidence" in res.stderr
    res = CliRunner().invoke(cli, ["ingest-daily", "--all"])
    assert res.exit_code == 0 and "4 stored, 8 already known" in res.stdout
    res = CliRunner().invoke(cli, ["ingest-daily", "--all", "--agent-id", "other", "--json"])
    assert res.exit_code == 2 and not config.agent_dir("other").exists()  # one workspace, one agent
    res = CliRunner().invoke(cli, ["route", "workspace", "--agent-id", "other"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["ingest-daily", "--all", "--json"])  # the route, from now on
    assert json.loads(res.stdout)["stored"] == 12 and json.loads(res.stdout)["agent_id"] == "other"
    for args in (["ingest-daily", "--date", "2026-02-30"], ["ingest-daily", "--date", "2026-02-18", "--all"],
                 ["ingest-daily", "--date", "2020-01-01"], ["ingest-daily", "--all", "--agent-id", "../x"]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and res.stdout == "", args


def counting_memory(config):
    """The real memory (with its local index), counting the batches ingest hands to store_many."""
    from memoryd.tiers.cold.source import LazyIndex
    from memoryd.tiers.memory.agent import AgentMemory

    class Counting(AgentMemory):
        batches: list[list[tuple]] = []

        def store_many(self, items: list[tuple], prepared: list | None = None, then: tuple | None = None
                       ) -> list[dict]:
            self.batches.append(items)
            return super().store_many(items, prepared, then)

    Counting.batches = []
    return Counting(config, "default", archive=LazyIndex(config), clock=lambda: 1771416000.0)


def test_ingest_uses_one_batch_per_group_of_notes(config) -> None:
    write_note(config, "2026-02-18", EN_NOTE)
    write_note(config, "2026-02-19", ZH_NOTE)
    m = counting_memory(config)
    report = ingest(m, config.workspace, all_=True)
    assert [len(b) for b in m.batches] == [11] and report["stored"] == 11  # both notes, one write
    text, category, importance, meta = m.batches[0][6]
    assert (text, category) == ("The week was mostly about deployment.", "bank/observation")
    assert 0 < importance <= 1 and meta["importance_reasons"][-1] == "retain+0.1"
    assert len(m.read_state()["warm"]["entries"]) == 11  # stored for real, not just handed over
    assert ingest(m, config.workspace, all_=True)["stored"] == 0 and len(m.batches) == 1
    write_note(config, "2026-02-20", EN_NOTE.replace("deployment", "testing"))
    assert ingest(m, config.workspace, "2026-02-20")["stored"] >= 1 and len(m.batches) == 2


FLUSH_NOTE = """# 2026-11-23

## Pre-compaction flush
- Owner prefers Signal for urgent messages.
- Decision: Grafana for the ops dashboard.

## Tasks
- Renew the domain acme-tools.io by 2026-12-01.

## Notes
- Quarterly review with Priya on 2026-12-10 at 14:00.
- Lesson: never run database migrations on a Friday afternoon.
- The ops team moved to the third floor.
"""


def test_a_note_goes_in_as_a_person_wrote_it(config) -> None:
    """Issue 15: every fact of a flush note became a hot critical lesson, its heading glued on, category daily/…"""
    from click.testing import CliRunner

    from memoryd.cli.main import cli
    from memoryd.tiers.memory.agent import AgentMemory

    write_note(config, "2026-11-23", FLUSH_NOTE)
    res = CliRunner().invoke(cli, ["ingest-daily", "--date", "2026-11-23", "--agent-id", "ops", "--json"])
    assert res.exit_code == 0, res.stderr
    state = AgentMemory(config, "ops").read_state()
    warm = {e["text"]: e for e in state["warm"]["entries"]}
    assert len(warm) == 6 and all(e["metadata"]["date"] == "2026-11-23" for e in warm.values())
    assert not any(t.startswith(("Pre-compaction", "Tasks", "Notes")) for t in warm)  # headings are context
    assert warm["Decision: Grafana for the ops dashboard."]["category"] == "decisions"
    assert warm["Renew the domain acme-tools.io by 2026-12-01."]["category"] == "tasks"
    assert not any(e["category"].startswith("daily/") for e in warm.values())
    hot = state["hot"]
    lesson = "Lesson: never run database migrations on a Friday afternoon."
    assert [x["text"] for x in hot["critical_lessons"]] == [lesson]  # the only explicit lesson
    assert [t["text"] for t in hot["active_context"]["tasks"]] == ["Renew the domain acme-tools.io by 2026-12-01."]
    events = [e["text"] for e in hot["active_context"]["events"]]
    assert events == ["Quarterly review with Priya on 2026-12-10 at 14:00."]
    assert any("Signal" in v for v in hot["owner_profile"].values())
    kept = hot["critical_lessons"] + hot["active_context"]["projects"]
    assert not any("third floor" in str(x) or "Grafana" in str(x) for x in kept)


def _busy_note(day: int) -> str:
    """Dated tasks and events past hot's limits, a lesson, and a task with a secret (hot redacts it)."""
    words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split()
    lines = [f"# 2026-03-{day:02d}", "", "## Tasks"]
    lines += [f"- Remind me to send the {words[(day * 6 + i) % 16]} {words[(day + i * 5) % 16]} report by "
              f"2026-04-{i + 1:02d}." for i in range(6)]
    lines += [f"- {words[(day * 3 + i) % 16].title()} {words[(day * 7 + i * 3) % 16]} meeting with Priya on "
              f"2026-04-{i + 10:02d} at 14:00." for i in range(6)]
    lines += [f"- Remind me to rotate token=s3cr3tTOKEN{day}x tomorrow.", f"- Lesson: never deploy on Friday {day}."]
    lines += ["", "## Notes"] + [f"- Benchmarked the {words[i % 16]} service on day {day}, run {i}: p95 {day * i} ms "
                                 f"after the {words[(i * 7) % 16]} cache change." for i in range(40)]  # warm overflows
    return "\n".join(lines) + "\n"


def test_hot_changes_share_the_store_write_and_log_as_their_own_write(home) -> None:
    """One write for a batch's stores and its hot changes gives what two writes gave: state, the
    eviction log (hot's rows last, as "daily note"), warnings, report and redaction counts."""
    import os

    from memoryd.tiers.cold.source import LazyIndex
    from memoryd.tiers.memory.agent import AgentMemory
    from memoryd.tiers.base.config import load_config

    config = load_config(dict(os.environ, MEMORYD_RETRIEVAL_MODE="keyword"))  # no embedding of what overflows

    class SeparateWrites(AgentMemory):  # `then` not shared: hot changes in a change() of their own, after
        def store_many(self, items: list[tuple], prepared: list | None = None, then: tuple | None = None
                       ) -> list[dict]:
            stored = super().store_many(items, prepared)
            if then is not None:
                fn, reason = then
                self.change(lambda state, now: fn(state, now, stored), reason)
            return stored

    for day in range(1, 6):
        write_note(config, f"2026-03-{day:02d}", _busy_note(day))
    runs = {}
    for name, cls in (("shared", AgentMemory), ("separate", SeparateWrites)):
        m = cls(config, name, archive=LazyIndex(config), clock=lambda: 1772000000.0)
        report = ingest(m, config.workspace, all_=True, ahead=False)
        runs[name] = (report, m.read_state(), m.eviction_rows(), m.warnings, m.metrics()["counters"])
    assert runs["shared"] == runs["separate"]
    report, state, rows, warnings, counters = runs["shared"]
    hot_rows = [r for r in rows if r["tier"] == "hot"]
    assert any(r["tier"] == "warm" for r in rows) and hot_rows and all(r["reason"] == "daily note" for r in hot_rows)
    assert warnings and counters.get("redactions.secret", 0) >= 5 and "s3cr3t" not in json.dumps(state)
