"""`memoryd status`: sizes, counts, consolidation runs, sync and daemon state (fast: no database)."""
from __future__ import annotations

import time
from typing import Any

import click

from memoryd.cli.common import check_optional_agent, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _ago(ts: float | None) -> str:
    if not ts:
        return "never"
    secs = max(0, int(time.time() - float(ts)))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size:
            return f"{secs // size}{unit} ago"
    return f"{secs}s ago"


def _until(ts: float | None) -> str:
    if not ts:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(float(ts)))


def _daemon_lines(d: dict[str, Any]) -> list[str]:
    lines = []
    for name, job in sorted((d.get("jobs") or {}).items()):
        err = f"  last error: {job['last_error']}" if job.get("last_error") else ""
        lines.append(f"  job {name:<8} next {_until(job.get('next_run'))}  last {_ago(job.get('last_run'))}{err}")
    w = d.get("watcher") or {}
    if w:
        lines.append(f"  watcher {w.get('state')}  watching {len(w.get('watching') or [])} dir(s)  "
                     f"transcripts waiting {w.get('transcripts_waiting', 0)}")
    b = d.get("backfill") or {}
    if b and b.get("state") != "off":  # hybrid mode: vectors made in the background between requests
        err = f"  last error: {b['last_error']}" if b.get("last_error") else ""
        lines.append(f"  back-fill {b.get('state')}  {b.get('with_vector', 0)} of {b.get('memories', 0)} "
                     f"memories have a vector{err}")
    if d.get("last_error"):
        lines.append(f"  last error: {d['last_error']}")
    return lines


def _check_words(c: dict[str, Any]) -> str:
    """How far behind/ahead of the server the device was when it last looked."""
    if not c:
        return "in step with the server"
    behind = [f"{c['behind']} version(s)" if c.get("behind") else "",
              f"{c['pulled_rows']} archived change(s)" if c.get("pulled_rows") else ""]
    ahead = ["unpushed edits" if c.get("ahead") else "",
             f"{c['uploaded']} archived change(s)" if c.get("uploaded") else ""]
    words = ([f"behind by {' and '.join(w for w in behind if w)}"] if any(behind) else []) + (
        [f"ahead by {' and '.join(w for w in ahead if w)}"] if any(ahead) else [])
    return (", ".join(words) or "in step") + f" (this device v{c.get('local_version')}, server v{c.get('remote_version')})"


def _now_words(s: dict[str, Any]) -> str:
    """Where the device stands after that check (a push right after it leaves it in step)."""
    if s.get("pending"):
        return "waiting to push (queued)"
    if s.get("unpushed_changes"):
        return "holding edits made since"
    return f"in step at v{s.get('version')}"


def _routing_lines(r: dict[str, Any]) -> list[str]:
    """What feeds the agent (the routing table); a new OpenClaw agent with the command that moves it."""
    lines = [f"  fed by workspace {w['path']} ({w.get('how')}, via {w.get('by')})" for w in r.get("workspaces", [])]
    for o in r.get("openclaw", []):
        hint = (f"; new: to send it elsewhere, memoryd route openclaw {o['openclaw_agent']} --agent-id ID"
                if o.get("how") == "new agent" else "")
        lines.append(f"  fed by OpenClaw agent {o['openclaw_agent']} ({o.get('how')}{hint})")
    lines += [f"  merged in: agent {m['agent_id']} (split home repaired, {_ago(m.get('at'))})"
              for m in r.get("merged_in", [])]
    return lines


def _human(data: dict[str, Any]) -> str:
    d = data.get("daemon")
    lines = [f"home: {data['home']}",
             "daemon: " + (f"running (pid {d['pid']}, up {int(d.get('uptime', 0))}s)" if d else "not running")]
    if d:
        lines += _daemon_lines(d)
    for a in data["agents"]:
        h, w, t, c = a["hot"], a["warm"], a["tree"], a["cold"]
        lines.append(f"agent {a['agent_id']}:")
        lines.append(f"  hot   {h['bytes']}/{h['max_bytes']} B  lessons={h['lessons']} projects={h['projects']} "
                     f"events={h['events']} tasks={h['tasks']}")
        lines.append(f"  warm  {w['bytes']}/{w['max_bytes']} B  entries={w['entries']}")
        lines.append(f"  tree  {t['nodes']}/{t['max_nodes']} nodes  {t['bytes']}/{t['max_bytes']} B")
        cold = "unknown" if c["count"] is None else f"{c['count']} in the local index"
        upload = f"  to upload={c['pending_upload']}" if c.get("pending_upload") else ""
        moving = f"  plaintext rows on the server: {c['plaintext_migration']}" if c.get("plaintext_migration") else ""
        lines.append(f"  cold  {cold}{upload}{moving}")
        runs = ", ".join(f"{m}: {_ago((r or {}).get('last_end'))}" + ("" if not r or r.get("ok") else " FAILED")
                         for m, r in a["consolidation"].items())
        lines.append(f"  consolidation  {runs}")
        ev = a["evictions"]
        lines.append(f"  evictions  {ev['total']}" + (f" ({', '.join(f'{k}={v}' for k, v in ev['by_kind'].items())})"
                                                     if ev["by_kind"] else ""))
        if a.get("redactions"):
            lines.append("  redactions  " + ", ".join(f"{k}={v}" for k, v in sorted(a["redactions"].items())))
        s = a.get("sync")
        if s:
            lines.append(f"  sync  version={s.get('version')} last_push={_ago(s.get('last_push'))} "
                         f"pending={s.get('pending', 0)}" + (f" last_error={s['last_error']}" if s.get("last_error") else ""))
            if s.get("last_check"):
                lines.append(f"    last check {_ago(s['last_check'])} found it {_check_words(s.get('check') or {})}; "
                             f"now {_now_words(s)}")
            for v in s.get("versions") or []:
                lines.append(f"    v{v['version']}  {_ago(v['updated_at'])}  device {v['device_id']}  {v['bytes']} B")
            if s.get("remote_error"):
                lines.append(f"    cloud: {s['remote_error']}")
        lines += _routing_lines(a.get("routing") or {})
        for o in a.get("openclaw") or []:
            if "openclaw_agent" not in o:
                lines.append(f"  openclaw  {o.get('error')}")
                continue
            from memoryd.cli.cmd_openclaw import cursor_words, skipped_words

            skipped = o.get("skipped") or {}
            pending = "?" if o.get("pending_events") is None else o["pending_events"]
            cursor = cursor_words(o.get("cursor") or {})
            lines.append(f"  openclaw {o['openclaw_agent']}: {o['sessions']} session(s), {cursor}, "
                         f"{pending} event(s) not yet taken, last ingest {_ago(o.get('last_ingest'))}, "
                         f"{sum(skipped.values())} skipped" + (f" ({skipped_words(skipped)})" if skipped else "")
                         + (f"  ERROR {o['error']}" if o.get("error") else ""))
        for hs in a.get("harnesses") or []:
            pending = sum(c.get("pending_bytes") or 0 for c in hs.get("cursors") or [])
            took = (hs.get("took") or [""])[-1]
            lines.append(f"  {hs['harness']}  {len(hs.get('cursors') or [])} file(s), {hs.get('turns', 0)} turn(s), "
                         f"{pending} byte(s) not yet read, last took {_ago(hs.get('last_at'))}"
                         + (f": {took}" if took else ""))
    return "\n".join(lines)


@cli.command()
@click.option("--agent-id", "agent_id", default=None, callback=check_optional_agent,
              help="Only this agent (default: every agent).")
@click.option("--remote", is_flag=True, help="Also list the latest encrypted versions in the cloud (one round trip).")
@json_option
@handles_errors
def status(agent_id: str | None, remote: bool, as_json: bool) -> None:
    """Per agent: tier sizes, tree, cold, consolidation runs, sync, evictions; and the daemon."""
    data = get_api().status(agent_id=agent_id, remote=remote)
    data.setdefault("daemon", None)
    emit(data, as_json, _human)
