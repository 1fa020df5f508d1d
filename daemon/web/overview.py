"""The Overview page: tier sizes against their limits, memories per day, consolidation, sync and warnings."""
from __future__ import annotations

from typing import Any

from memoryd.daemon.web import plot
from memoryd.daemon.web.render import View, esc, href, meter, stamp, table

SPANS = (30, 90, 365)


def overview(view: View) -> tuple[str, str]:
    remote = view.arg("remote") == "1"
    st = view.data.status(view.agent, remote=remote)
    days = view.int_arg("days", 90, 7, 365)
    counts = view.data.per_day(view.agent, days)
    parts = [_warnings(st), _tiers(st), _per_day(view, counts, days), _runs(st), _sync(view, st.get("sync") or {}),
             _pending(st)]
    return "Overview", "".join(parts)


def warnings(st: dict[str, Any]) -> list[str]:
    """What someone keeping this memory should look at, in words."""
    out = []
    for tier in ("hot", "warm"):
        t = st[tier]
        if t["bytes"] >= 0.9 * t["max_bytes"]:
            out.append(f"{tier} is at {t['bytes'] / t['max_bytes']:.0%} of its {t['max_bytes']:,} bytes: "
                       "the lowest-scored items go first")
    tree = st["tree"]
    if tree["nodes"] >= 0.9 * tree["max_nodes"] or tree["bytes"] >= 0.9 * tree["max_bytes"]:
        out.append(f"the tree is near its limits ({tree['nodes']}/{tree['max_nodes']} nodes, "
                   f"{tree['bytes']}/{tree['max_bytes']} bytes)")
    for mode, run in (st.get("consolidation") or {}).items():
        if run and run.get("ok") is False:
            out.append(f"the last {mode} consolidation failed: {run.get('error') or 'unknown error'}")
    sync = st.get("sync") or {}
    if sync.get("last_error"):
        out.append(f"sync: {sync['last_error']}")
    if sync.get("remote_error"):
        out.append(f"cloud: {sync['remote_error']}")
    if sync.get("restoring"):
        out.append("a restore is in progress")
    if st["cold"].get("plaintext_migration"):
        out.append(f"plaintext rows on the server: {st['cold']['plaintext_migration']}")
    for o in st.get("openclaw") or []:
        if o.get("error"):
            out.append(f"openclaw: {o['error']}")
    return out


def _warnings(st: dict[str, Any]) -> str:
    found = warnings(st)
    if not found:
        return '<section aria-labelledby="warn-h"><h2 id="warn-h">Warnings</h2><p>None.</p></section>'
    items = "".join(f"<li>{esc(w)}</li>" for w in found)
    return f'<section class="warnings" aria-labelledby="warn-h"><h2 id="warn-h">Warnings</h2><ul>{items}</ul></section>'


def _tiers(st: dict[str, Any]) -> str:
    hot, warm, tree, cold = st["hot"], st["warm"], st["tree"], st["cold"]
    meters = "".join([
        meter("Hot bytes", hot["bytes"], hot["max_bytes"]),
        meter("Warm bytes", warm["bytes"], warm["max_bytes"]),
        meter("Tree nodes", tree["nodes"], tree["max_nodes"]),
        meter("Tree bytes", tree["bytes"], tree["max_bytes"]),
    ])
    cold_count = "unknown" if cold.get("count") is None else f"{cold['count']:,}"
    facts = (f"<p>Hot: {hot['lessons']} lessons, {hot['projects']} projects, {hot['events']} events, "
             f"{hot['tasks']} tasks. Warm: {warm['entries']:,} entries. Cold: {cold_count} in the local index. "
             f"Stored in all: {st.get('stores', 0):,}. Evictions logged: {st['evictions']['total']:,}.</p>")
    return f'<section aria-labelledby="tiers-h"><h2 id="tiers-h">Tiers</h2>{meters}{facts}</section>'


def _per_day(view: View, counts: dict[str, list[int]], days: int) -> str:
    spans = " ".join(f'<a href="{href(view, "/", days=n)}"' + (' aria-current="true"' if n == days else "")
                     + f">{n} days</a>" for n in SPANS)
    svg = plot.per_day(counts, days, view.now, f"Memories per day, last {days} days")
    rows = [[esc(d), f"{w:,}", f"{c:,}"] for d, (w, c) in sorted(counts.items(), reverse=True)]
    listing = table("Memories per day (days with any)", ["Day", "Warm", "Cold"], rows, "No memories in this span.")
    return (f'<section aria-labelledby="days-h"><h2 id="days-h">Memories per day</h2>'
            f'<p class="spans">Show: {spans}</p><figure>{svg}<figcaption>Warm (light) and cold (dark) '
            f'memories by their date.</figcaption></figure><details><summary>As a table</summary>{listing}</details>'
            f"</section>")


def _runs(st: dict[str, Any]) -> str:
    rows = []
    for mode, run in (st.get("consolidation") or {}).items():
        run = run or {}
        ok = "—" if not run else ("ok" if run.get("ok") else "FAILED")
        via = f" (by {run['via']})" if run.get("via") else ""
        rows.append([esc(mode), esc(stamp(run.get("last_end"))) + esc(via), esc(ok), esc(run.get("error") or "")])
    return (f'<section aria-labelledby="runs-h"><h2 id="runs-h">Consolidation runs</h2>'
            f'{table("Last run of each consolidation mode", ["Mode", "Last run", "Result", "Error"], rows)}</section>')


def _sync(view: View, s: dict[str, Any]) -> str:
    rows = [[esc(s.get("device_id") or "not synced yet"), esc(s.get("version", 0)), esc(stamp(s.get("last_push"))),
             esc(stamp(s.get("last_pull"))), esc(s.get("pending", 0)), esc("yes" if s.get("unpushed_changes") else "no")]]
    mine = table("This device", ["Device", "Version", "Last push", "Last pull", "Outbox", "Unpushed edits"], rows)
    versions = s.get("versions")
    if versions is None:
        cloud = (f'<p><a href="{href(view, "/", remote=1)}">Ask the cloud for its latest versions</a> '
                 "(one round trip to the server).</p>")
    else:
        vrows = [[esc(f"v{v.get('version')}"), esc(v.get("device_id")), esc(stamp(v.get("updated_at"))),
                  f"{int(v.get('bytes') or 0):,}"] for v in versions]
        cloud = table("Latest versions in the cloud, by device", ["Version", "Device", "Written", "Bytes"], vrows,
                      "The cloud holds no version of this agent.")
    return f'<section aria-labelledby="sync-h"><h2 id="sync-h">Sync</h2>{mine}{cloud}</section>'


def _pending(st: dict[str, Any]) -> str:
    sync, cold = st.get("sync") or {}, st["cold"]
    items = [f"Critical state waiting in the outbox: {sync.get('pending', 0)}"]
    if cold.get("pending_upload") is not None:
        items.append(f"Archived memories still to upload: {cold['pending_upload']:,}")
    for o in st.get("openclaw") or []:
        if "openclaw_agent" in o:
            items.append(f"OpenClaw agent {o['openclaw_agent']}: {o.get('pending_events', '?')} event(s) not yet taken, "
                         f"last ingest {stamp(o.get('last_ingest'))}")
    lis = "".join(f"<li>{esc(i)}</li>" for i in items)
    score_note = f"<p>Warm entries by tier: {esc(_by_tier(st['warm'].get('by_tier') or {}))}.</p>"
    return f'<section aria-labelledby="pend-h"><h2 id="pend-h">Pending work</h2><ul>{lis}</ul>{score_note}</section>'


def _by_tier(by: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(by.items())) or "none"

