"""`memoryd device …`, `key rotate` and `restore --code/--recovery-key` through the real CLI, three devices on
the real sqld: enrol by code, revoke, and the revoked device's key files opening nothing written after."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from memoryd.sync.remote.db import connect
from memoryd.tiers.base.config import load_config

from clihelp import MEMORYD
from keyprobe import keys_on_device, opens_any, rows_since

AGENT = "ag"


class Device:
    """One MEMORYD_HOME talking to the shared server through the console script."""

    def __init__(self, root: Path, name: str, url: str) -> None:
        self.home = root / name
        self.url = url
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORYD_")}
        self.env.update({"MEMORYD_HOME": str(self.home), "MEMORYD_DB_URL": url, "MEMORYD_RETRIEVAL_MODE": "keyword"})

    def run(self, *args: str, stdin: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run([MEMORYD, *args, "--agent-id", AGENT], env=self.env, capture_output=True, text=True,
                              input=stdin, timeout=120)
        if ok:
            assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
        return proc

    def json(self, *args: str, stdin: str | None = None) -> Any:
        return json.loads(self.run(*args, "--json", stdin=stdin).stdout)

    @property
    def config(self):
        return load_config({"MEMORYD_HOME": str(self.home), "MEMORYD_DB_URL": self.url})

    def facts(self) -> str:
        return self.run("retrieve", "lighthouse keeper", "--limit", "20").stdout


def _one_line_error(proc: subprocess.CompletedProcess, code: int, words: str) -> None:
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], proc.stderr


def test_three_devices_enrol_by_code_revoke_and_rotate(tmp_path, sqld):
    sqld.wipe()
    a, b, c = (Device(tmp_path, n, sqld.http_url) for n in "abc")
    first = a.run("init")
    assert "recovery key: mdr1-" in first.stdout
    assert "recovery key" not in a.run("init").stdout  # printed once, never again
    a.run("store", "The lighthouse keeper Ada logs the tide at dawn", "--category", "people/ada")
    a.run("sync")
    code = a.run("device", "add").stdout.strip()
    assert len(code) == 19 and code.count("-") == 3
    restored = b.json("restore", "--code", "-", stdin=code + "\n")
    assert restored["warm_entries"] == 1 and "lighthouse keeper Ada" in b.facts()
    c.json("device", "add", "--code", a.json("device", "add")["code"], "--name", "phone")
    c.run("restore")
    listed = a.json("device", "list")
    assert len(listed["devices"]) == 3 and listed["epoch"] == 0 and listed["recovery_key"] is not None
    assert [d["this_device"] for d in listed["devices"]].count(True) == 1
    b_id = b.json("device", "list")["devices"]
    b_id = next(d["id"] for d in b_id if d["this_device"])
    assert {d["name"] for d in listed["devices"]} >= {"phone"}

    revoked = a.json("device", "revoke", b_id)
    assert revoked["epoch"] == 1
    a.run("store", "The lighthouse keeper moved the logbook to the cellar", "--category", "people/ada")
    a.run("consolidate", "--mode", "full")
    a.run("sync")
    c.run("sync")
    assert "cellar" in c.facts()
    _one_line_error(b.run("sync", ok=False), 1, "revoked")
    assert "cellar" not in b.facts()

    # The revoked device's own key files, tried on every row written after the revocation.
    with connect(a.config) as db:
        later = rows_since(db, AGENT, epoch=1)
        older = rows_since(db, AGENT, epoch=0, below=1)
    assert later, "rows were written after the revocation"
    with connect(a.config) as db:
        keys = keys_on_device(b.home, AGENT, db)
    assert keys and not any(opens_any(keys, AGENT, row) for row in later)
    assert any(opens_any(keys, AGENT, row) for row in older)  # the same probe does open what it could read

    rotated = a.json("key", "rotate")
    assert rotated["epoch"] == 2 and c.run("sync").returncode == 0
    assert a.json("device", "list")["epoch"] == 2


def test_wrong_expired_and_reused_codes_fail_with_one_line(tmp_path, sqld):
    sqld.wipe()
    a, b = Device(tmp_path, "a", sqld.http_url), Device(tmp_path, "b", sqld.http_url)
    a.run("init")
    a.run("sync")
    code = a.run("device", "add").stdout.strip()
    wrong = code[:-1] + ("a" if code[-1] != "a" else "b")
    _one_line_error(b.run("device", "add", "--code", wrong, ok=False), 2, "wrong enrolment code")
    _one_line_error(b.run("device", "add", "--code", "zzzz" + code[4:], ok=False), 2, "unknown enrolment code")
    _one_line_error(b.run("device", "add", "--code", "not-a-code", ok=False), 2, "16 letters")
    b.run("device", "add", "--code", code)
    c = Device(tmp_path, "c", sqld.http_url)
    _one_line_error(c.run("device", "add", "--code", code, ok=False), 2, "already used")
    late = a.run("device", "add").stdout.strip()
    with connect(a.config) as db:
        db.execute("UPDATE enrolments SET expires_at = 0 WHERE code_id = ?", [late[:4]])
    _one_line_error(c.run("device", "add", "--code", late, ok=False), 2, "expired")
    with connect(a.config) as db:  # a used code leaves nothing on the server that opens the keys
        assert db.execute("SELECT blob FROM enrolments WHERE code_id = ?", [code[:4]]).scalar() == ""


def test_restore_from_the_recovery_key_after_two_rotations(tmp_path, sqld):
    sqld.wipe()
    a, d = Device(tmp_path, "a", sqld.http_url), Device(tmp_path, "d", sqld.http_url)
    recovery = next(line.split(": ", 1)[1] for line in a.run("init").stdout.splitlines() if "recovery key" in line)
    a.run("store", "The lighthouse keeper Ada likes strong tea", "--category", "people/ada")
    a.run("sync")
    a.run("key", "rotate")
    a.run("store", "The lighthouse keeper repaired the lamp in March", "--category", "people/ada")
    a.run("consolidate", "--mode", "full")
    a.run("sync")
    resealed = a.json("key", "rotate", "--reseal")
    assert resealed["epoch"] == 2 and resealed["dropped_epochs"] == [0, 1]
    a.run("store", "The lighthouse keeper ordered new glass", "--category", "people/ada")
    a.run("sync")
    _one_line_error(d.run("restore", "--recovery-key", "mdr1-" + "a" * 56, ok=False), 2, "recovery key")
    out = d.json("restore", "--recovery-key", "-", stdin=recovery + "\n")
    assert out["restored_version"] >= 1
    facts = d.facts()
    assert "strong tea" in facts and "repaired the lamp" in facts and "new glass" in facts
    assert recovery not in json.dumps(out) and not any(
        recovery.replace("-", "") in p.read_text(errors="ignore").replace("-", "")
        for p in d.home.rglob("*") if p.is_file())


def test_devices_are_named_after_the_host_renamed_and_known_by_one_id(tmp_path, sqld):
    import socket

    sqld.wipe()
    a, b = Device(tmp_path, "a", sqld.http_url), Device(tmp_path, "b", sqld.http_url)
    a.run("init")
    a.run("store", "The lighthouse keeper Ada logs the tide at dawn", "--category", "people/ada")
    a.run("sync")
    b.json("restore", "--code", a.json("device", "add")["code"])
    host = socket.gethostname()
    names = {d["id"]: d["name"] for d in a.json("device", "list")["devices"]}
    assert sorted(names.values()) == [host, f"{host}-2"]  # two homes on one host stay apart
    a_id = next(d["id"] for d in a.json("device", "list")["devices"] if d["this_device"])
    b.run("store", "The lighthouse keeper moved the logbook", "--category", "people/ada")
    said = b.run("sync").stdout  # the bytes say what they count: the sealed state, apart from log rows
    assert "bytes of sealed hot, tree and warm" in said and "log" not in said.split("bytes of sealed hot")[0], said
    b.run("store", "The lighthouse keeper painted the lamp room", "--category", "people/ada")
    pushed = b.json("sync")
    assert pushed["bytes_sent"] == pushed["critical_bytes"] + pushed["log_bytes"] and pushed["critical_bytes"] > 0
    a.run("sync")
    pushers = {v["device_id"] for v in a.json("status", "--remote")["agents"][0]["sync"]["versions"]}
    assert pushers and pushers <= set(names), (pushers, names)  # one id per device, in status and device list
    renamed = b.json("device", "rename", a_id, "laptop")
    assert renamed == {"schema": 1, "agent_id": AGENT, "device_id": a_id, "name": "laptop", "was": names[a_id]}
    a.run("sync")
    assert {d["name"] for d in a.json("device", "list")["devices"]} == {"laptop", names[next(i for i in names if i != a_id)]}
    _one_line_error(a.run("device", "rename", "nope", "x", ok=False), 2, "no device 'nope'")
    _one_line_error(a.run("device", "rename", a_id, " ", ok=False), 2, "1-64 printable")
