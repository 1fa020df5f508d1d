"""Per-agent keys: creation (0600, one winner under races), MEMORYD_KEY override, recovery strings."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from memoryd.sync.keys import (
    ensure_key, export_recovery, fingerprint, import_key, import_recovery, load_key, parse_key_material,
)
from memoryd.tiers.errors import UsageError


def test_ensure_key_creates_private_key_once(config):
    key = ensure_key(config, "ag")
    path = config.key_path("ag")
    assert len(key) == 32 and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert ensure_key(config, "ag") == key
    assert ensure_key(config, "other") != key


def test_concurrent_creators_agree_on_one_key(config, home):
    code = ("import sys; from memoryd.tiers.config import load_config; from memoryd.sync.keys import ensure_key;"
            "sys.stdout.write(ensure_key(load_config(), 'race').hex())")
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=dict(os.environ))
             for _ in range(6)]
    keys = {p.communicate(timeout=30)[0] for p in procs}
    assert len(keys) == 1 and bytes.fromhex(keys.pop().decode()) == config.key_path("race").read_bytes()


def test_recovery_round_trip_and_typos_are_caught():
    key = os.urandom(32)
    text = export_recovery(key)
    assert text.startswith("mdk1-")
    assert import_recovery(text) == key
    assert import_recovery(text.upper().replace("-", " ")) == key
    body = list(text)
    i = 10 if body[10] != "a" else 11
    body[i] = "a" if body[i] != "a" else "b"
    with pytest.raises(UsageError, match="checksum|typo"):
        import_recovery("".join(body))
    with pytest.raises(UsageError, match="length"):
        import_recovery(text[:-4])
    with pytest.raises(UsageError, match="character"):
        import_recovery(text[:8] + "1" + text[9:])
    with pytest.raises(UsageError, match="mdk1"):
        import_recovery("hello")


def test_fingerprint_is_short_stable_and_not_the_key():
    key = bytes(32)
    fp = fingerprint(key)
    assert fp == fingerprint(key) and len(fp) == 19 and key.hex()[:8] not in fp
    assert fingerprint(bytes([1]) + bytes(31)) != fp


def test_load_key_prefers_memoryd_key(config):
    own = ensure_key(config, "ag")
    other = os.urandom(32)
    assert load_key(config, "ag", env={}) == own
    assert load_key(config, "ag", env={"MEMORYD_KEY": export_recovery(other)}) == other
    assert load_key(config, "ag", env={"MEMORYD_KEY": other.hex()}) == other
    with pytest.raises(UsageError, match="no key"):
        load_key(config, "nokey", env={})
    with pytest.raises(UsageError):
        parse_key_material("mdk1-zzzz")


def test_import_refuses_to_replace_a_different_key(config):
    first = os.urandom(32)
    assert import_key(config, "ag", first) is True
    assert import_key(config, "ag", first) is False
    second = os.urandom(32)
    with pytest.raises(UsageError, match="--force"):
        import_key(config, "ag", second)
    assert load_key(config, "ag", env={}) == first
    assert import_key(config, "ag", second, force=True) is True
    assert load_key(config, "ag", env={}) == second
    assert stat.S_IMODE(config.key_path("ag").stat().st_mode) == 0o600
