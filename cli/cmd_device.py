"""`memoryd device list | add | revoke`: the devices that hold an agent's keys."""
from __future__ import annotations

import sys
import time
from typing import Any

import click

from memoryd.cli.common import agent_option, emit, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _when(ts: int | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(ts)) if ts else "-"


def _human_list(d: dict[str, Any]) -> str:
    lines = [f"{'ID':<10} {'NAME':<24} {'ENROLLED':<17} {'LAST SEEN':<17} STATE"]
    for r in d["devices"]:
        state = f"revoked {_when(r['revoked'])}" if r["revoked"] else ("this device" if r["this_device"] else "active")
        lines.append(f"{r['id']:<10} {r['name'][:24]:<24} {_when(r['enrolled']):<17} {_when(r['last_seen']):<17} {state}")
    rec = d.get("recovery_key")
    lines.append(f"key epoch {d['epoch']}; recovery key " + (f"issued {_when(rec['issued'])}" if rec else
                                                             "none (memoryd key recovery --new)"))
    return "\n".join(lines)


def read_secret(value: str | None, what: str) -> str | None:
    """A secret given as '-' is read from stdin (keeps it out of the process list and shell history)."""
    if value == "-":
        return sys.stdin.readline().strip()
    return value


@cli.group()
def device() -> None:
    """List, enrol and revoke the devices that hold this agent's keys."""


@device.command("list")
@agent_option
@json_option
@handles_errors
def device_list(agent_id: str, as_json: bool) -> None:
    """Every device of the agent: name, id, enrolled, last seen, this device, revoked."""
    emit(get_api().device_list(agent_id=agent_id), as_json, _human_list)


def _human_add(d: dict[str, Any]) -> str:
    if d["action"] == "code":
        return d["code"]
    return f"enrolled this device ({d['device_id']}, {d['name']}) for agent {d['agent_id']}: key epoch {d['epoch']}"


@device.command("add")
@click.option("--code", default=None, metavar="CODE", help="On the new device: the code an enrolled device printed ('-': stdin).")
@click.option("--recovery-key", "recovery_key", default=None, metavar="KEY|-",
              help="On the new device: enrol with the agent's recovery key ('-': read it from stdin).")
@click.option("--name", default=None, help="This device's name in 'device list' (default: the host name).")
@agent_option
@json_option
@handles_errors
def device_add(code: str | None, recovery_key: str | None, name: str | None, agent_id: str, as_json: bool) -> None:
    """Enrol a device. On an enrolled device: print a one-time code (15 minutes, single use). On the new
    device: --code CODE, or --recovery-key."""
    data = get_api().device_add(agent_id=agent_id, code=read_secret(code, "code"),
                                recovery_key=read_secret(recovery_key, "recovery key"), name=name)
    if data["action"] == "code" and not as_json:
        click.echo(f"memoryd: on the new device run 'memoryd device add --code CODE' (or 'memoryd restore --code "
                   f"CODE'); the code works once, until {_when(data['expires_at'])} UTC", err=True)
    emit(data, as_json, _human_add)


@device.command("revoke")
@click.argument("device_id")
@agent_option
@json_option
@handles_errors
def device_revoke(device_id: str, agent_id: str, as_json: bool) -> None:
    """Revoke a device: a new key epoch it cannot open; its next sync fails."""
    emit(get_api().device_revoke(agent_id=agent_id, device=device_id), as_json,
         lambda d: f"revoked device {d['revoked']} ({d['name']}); new writes use key epoch {d['epoch']}")


@device.command("rename")
@click.argument("device_id")
@click.argument("name")
@agent_option
@json_option
@handles_errors
def device_rename(device_id: str, name: str, agent_id: str, as_json: bool) -> None:
    """Give a device the NAME 'device list' shows (a device is first named after its host)."""
    emit(get_api().device_rename(agent_id=agent_id, device=device_id, name=name), as_json,
         lambda d: f"device {d['device_id']} is now {d['name']!r} (was {d['was']!r})")
