"""`memoryd forget --verify ID` (the report and its exit code: 1 if anything is left) and `forget --shred`'s output."""
from __future__ import annotations

from typing import Any

import click

from memoryd.cli.common import emit


def human(report: dict[str, Any]) -> str:
    lines = [f"memory {report['id']} of agent {report['agent_id']}: "
             + ("nothing left that could recover it" if report["clean"] else "something could still recover it")]
    for place in report["places"]:
        lines.append(f"  {place['place']}: {place['status']}")
        lines += [f"    - {what}" for what in place["found"]]
        if place.get("note"):
            lines.append(f"    ({place['note']})")
    return "\n".join(lines)


def human_shred(result: dict[str, Any]) -> str:
    shred = result["shred"]
    reseal = shred.get("reseal") or {}
    lines = ["forgot " + ", ".join(f"{k}={v}" for k, v in result["removed"].items()),
             f"shredded: new key epoch {reseal.get('epoch')}, older epochs dropped "
             f"{reseal.get('dropped_epochs', [])}, this device's key pair replaced, local index scrubbed "
             f"({shred['seconds']:.1f}s); other devices drop the old keys at their next sync"]
    if shred.get("note"):
        lines.append(f"note: {shred['note']}")
    if shred.get("recovery"):
        lines += ["", "New recovery key (shown once: write it down, and destroy the old one, which could open",
                  "what was shredded):", f"  {shred['recovery']}"]
    return "\n".join(lines)


def verify_forgotten(api: Any, agent_id: str, memory_id: str | None, days: float | None, shred: bool | None,
                     as_json: bool) -> None:
    if memory_id is None or days is not None or shred is not None:
        raise click.UsageError("--verify takes one memory ID (and no --days or --shred)")
    report = api.forget_verify(agent_id=agent_id, memory_id=memory_id)
    emit(report, as_json, human)
    if not report["clean"]:
        left = [p["place"] for p in report["places"] if p["status"] != "clean"]
        click.echo(f"memoryd: memory {memory_id} is not gone everywhere: {', '.join(left)}", err=True)
        raise SystemExit(1)
