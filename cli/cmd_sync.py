"""`memoryd sync`, `memoryd restore` and `memoryd key …`: the encrypted critical state and its key."""
from __future__ import annotations

import sys
import time
from typing import Any

import click

from memoryd.cli.common import agent_option, emit, fail, get_api, handles_errors, json_option
from memoryd.cli.main import cli


def _human_sync(r: dict[str, Any]) -> str:
    trips = f"{r.get('round_trips', 0)} round trip{'s' if r.get('round_trips') != 1 else ''}"
    cold = _human_cold(r.get("cold") or {}, r.get("log_bytes", 0))
    if r["status"] == "pushed":
        extra = f", merged {r['conflicts']} concurrent change(s)" if r.get("conflicts") else ""
        pulled = f"pulled v{r['pulled_version']}, " if r.get("pulled_version") else ""
        state = f"{r.get('critical_bytes', 0)} bytes of sealed hot, tree and warm"
        return f"{pulled}pushed critical state v{r['version']} ({state}, {trips}{extra}){cold}"
    if r["status"] in ("unchanged", "current"):
        return f"in sync: v{r['version']} is current on this device and the server ({trips}){cold}"
    if r["status"] == "pulled":
        return f"pulled v{r['version']} from other devices (was v{r.get('pulled_from', '?')}; {trips}){cold}"
    return f"{r['status']}: now at v{r['version']} ({trips}){cold}"


def _human_cold(c: dict[str, Any], log_bytes: int = 0) -> str:
    pulled = (c.get("pulled") or {}).get("rows", 0)
    sealed = f" ({log_bytes} bytes of sealed memory-log rows)" if log_bytes else ""
    parts = [f"{c['uploaded']} archived memories uploaded{sealed}" if c.get("uploaded") else "",
             f"{pulled} log rows pulled" if pulled else "",
             f"{c['migrated']} plaintext rows migrated" if c.get("migrated") else ""]
    return "; " + ", ".join(p for p in parts if p) if any(parts) else ""


@cli.command()
@click.option("--force", is_flag=True, help="Re-send everything (critical state and the whole cloud log).")
@agent_option
@json_option
@handles_errors
def sync(force: bool, agent_id: str, as_json: bool) -> None:
    """Two-way sync now: pull other devices' changes, push this device's (via the daemon when it runs)."""
    from memoryd.cli.progress import progress_for

    with progress_for(as_json):  # a first sync may upload a whole archive (in-process: a bar; daemon: none)
        result = get_api().sync(agent_id=agent_id, force=force)
    if result.get("status") == "queued":  # with --json: the result and the error in one object
        fail(f"queued: {result.get('error', 'push failed')} (will retry)", 1, as_json, "queued", extra=result)
    emit(result, as_json, _human_sync)


def _human_restore(r: dict[str, Any]) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r["updated_at"]))
    cold = f"{r['cold_count']} cold memories" if r.get("cold_reachable") else f"cold archive unreachable: {r.get('cold_error')}"
    return (f"restored agent {r['agent_id']} from v{r['restored_version']} ({when} UTC, device {r['from_device']}): "
            f"{r['hot_items']} hot items, {r['warm_entries']} warm entries, {r['tree_nodes']} tree nodes; {cold}")


@cli.command()
@click.option("--key-file", type=click.Path(dir_okay=False), default=None,
              help="File holding the recovery key (default: MEMORYD_KEY, then the key file).")
@click.option("--at", "at", default=None, metavar="VERSION|ISO", help="Restore an older version (or the newest at that time).")
@click.option("--force", is_flag=True, help="Overwrite this device's existing memory of the agent.")
@click.option("--list", "list_only", is_flag=True, help="Only list the stored versions (for --at); restore nothing.")
@click.option("--code", default=None, metavar="CODE", help="Enrol this device with a one-time code first ('-': stdin).")
@click.option("--recovery-key", "recovery_key", default=None, metavar="KEY|-",
              help="Enrol this device with the agent's recovery key first ('-': read it from stdin).")
@agent_option
@json_option
@handles_errors
def restore(key_file: str | None, at: str | None, force: bool, list_only: bool, code: str | None,
            recovery_key: str | None, agent_id: str, as_json: bool) -> None:
    """Pull, verify and decrypt the agent's state and cold log; rebuild every tier and MEMORY.md."""
    if list_only:
        emit(get_api().restore_versions(agent_id=agent_id), as_json, _human_versions)
        return

    from memoryd.cli.progress import progress_for

    with progress_for(as_json):  # the cold log can be 100k rows: a bar on a terminal
        from memoryd.cli.cmd_device import read_secret

        result = get_api().restore(agent_id=agent_id, key_file=key_file, force=force, at=at,
                                   code=read_secret(code, "code"), recovery_key=read_secret(recovery_key, "recovery key"))
    if not result.get("cold_reachable") and not as_json:
        click.echo(f"memoryd: warning: cold archive unreachable: {result.get('cold_error')}", err=True)
    emit(result, as_json, _human_restore)


def _human_versions(data: dict[str, Any]) -> str:
    rows = data["versions"]
    if not rows:
        return "no stored versions"
    return "\n".join(f"v{r['version']:<6} {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(r['updated_at']))}  "
                     f"device {r['device_id']}  {r['bytes']} bytes" for r in rows)


@cli.group()
def key() -> None:
    """Show, export or import the agent's encryption key."""


@key.command("show")
@agent_option
@json_option
@handles_errors
def key_show(agent_id: str, as_json: bool) -> None:
    """Print the key's fingerprint (never the key)."""
    emit(get_api().key_show(agent_id=agent_id), as_json, lambda d: f"{d['fingerprint']}  {d['path']}")


@key.command("export")
@agent_option
@json_option
@handles_errors
def key_export(agent_id: str, as_json: bool) -> None:
    """Print the recovery string; keep it somewhere safe (it decrypts this agent's memory)."""
    data = get_api().key_export(agent_id=agent_id)
    if not as_json:
        click.echo("memoryd: this string decrypts the agent's memory: store it offline, never share it", err=True)
    emit(data, as_json, lambda d: d["recovery"])


@key.command("import")
@click.argument("recovery", required=False)
@click.option("--force", is_flag=True, help="Replace an existing, different key.")
@agent_option
@json_option
@handles_errors
def key_import(recovery: str | None, force: bool, agent_id: str, as_json: bool) -> None:
    """Install a key from its recovery string (argument, or stdin when omitted)."""
    text = recovery if recovery is not None else sys.stdin.read()
    data = get_api().key_import(agent_id=agent_id, recovery=text, force=force)
    emit(data, as_json, lambda d: f"{'installed' if d['changed'] else 'already installed'}: key {d['fingerprint']}")


@key.command("rotate")
@click.option("--reseal", is_flag=True, help="Also seal every live memory and the critical state again under the "
              "new key, then drop the old keys everywhere (resumes an interrupted one).")
@agent_option
@json_option
@handles_errors
def key_rotate(reseal: bool, agent_id: str, as_json: bool) -> None:
    """Start a new key epoch: new writes are sealed under a key wrapped only for the enrolled devices."""
    from memoryd.cli.progress import progress_for

    with progress_for(as_json):
        data = get_api().key_rotate(agent_id=agent_id, reseal=reseal)
    emit(data, as_json, _human_rotate)


def _human_rotate(d: dict[str, Any]) -> str:
    if d["action"] == "rotate":
        return f"new key epoch {d['epoch']}: new writes are sealed under it (older rows keep theirs; --reseal moves them)"
    return (f"{'resumed: ' if d.get('resumed') else ''}resealed agent {d['agent_id']} under key epoch {d['epoch']}: "
            f"{d.get('uploaded', 0)} memories, {d.get('versions', 0)} stored versions, {d.get('bytes_sent', 0)} sealed bytes in all; "
            f"dropped epochs {', '.join(map(str, d.get('dropped_epochs') or [])) or 'none'}")


@key.command("recovery")
@click.option("--new", "new", is_flag=True, help="Issue a new recovery key (the old one stops opening anything).")
@agent_option
@json_option
@handles_errors
def key_recovery(new: bool, agent_id: str, as_json: bool) -> None:
    """Issue a new recovery key for every live key epoch; printed this once, never stored."""
    data = get_api().key_recovery(agent_id=agent_id, new=new)
    if not as_json:
        click.echo("memoryd: the new recovery key follows: write it down offline now; it is never shown again",
                   err=True)
    emit(data, as_json, lambda d: d["recovery_key"])
