"""Per-agent keys: creation (0600, one winner under races), MEMORYD_KEY override, recovery strings."""
from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from memoryd.sync.crypto.keys import (
    ensure_key, export_recovery, fingerprint, import_key, import_recovery, load_key, parse_key_material,
)
from memoryd.tiers.base.errors import UsageError


def test_ensure_key_creates_private_key_once(config):
    key = ensure_key(config, "ag")
    path = config.key_path("ag")
    assert len(key) == 32 and path.read_bytes() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert ensure_key(config, "ag") == key
    assert ensure_key(config, "other") != key


def test_concurrent_creators_agree_on_one_key(config, home):
    code = ("import sys; from memoryd.tiers.base.config import load_config; from memoryd.sync.crypto.keys import ensure_key;"
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
    for c in "abcdefghijklmnopqrstuvwxyz234567":  # even the last character's spare bits are checked
        if c != text[-1]:
            with pytest.raises(UsageError, match="typo"):
                import_recovery(text[:-1] + c)
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
    assert load_key(config, "ag") == own
    assert load_key(config.with_(recovery_key=export_recovery(other)), "ag") == other
    assert load_key(config.with_(recovery_key=other.hex()), "ag") == other
    with pytest.raises(UsageError, match="no key"):
        load_key(config, "nokey")
    with pytest.raises(UsageError):
        parse_key_material("mdk1-zzzz")


def test_import_refuses_to_replace_a_different_key(config):
    first = os.urandom(32)
    assert import_key(config, "ag", first) is True
    assert import_key(config, "ag", first) is False
    second = os.urandom(32)
    with pytest.raises(UsageError, match="--force"):
        import_key(config, "ag", second)
    assert load_key(config, "ag") == first
    assert import_key(config, "ag", second, force=True) is True
    assert load_key(config, "ag") == second
    assert stat.S_IMODE(config.key_path("ag").stat().st_mode) == 0o600


def _invoke(args, home_env, input=None):
    from click.testing import CliRunner

    from memoryd.cli.main import cli

    return CliRunner().invoke(cli, args, env=home_env, input=input)


def test_cli_key_show_export_import(config, home):
    env = {"MEMORYD_HOME": str(home)}
    missing = _invoke(["key", "show", "--agent-id", "ag"], env)
    assert missing.exit_code == 2 and "memoryd init" in missing.stderr
    key = ensure_key(config, "ag")
    shown = _invoke(["key", "show", "--agent-id", "ag", "--json"], env)
    assert shown.exit_code == 0 and key.hex() not in shown.stdout
    assert '"fingerprint": "%s"' % fingerprint(key) in shown.stdout
    exported = _invoke(["key", "export", "--agent-id", "ag"], env)
    assert exported.exit_code == 0 and "never share" in exported.stderr
    recovery = exported.stdout.strip()
    assert import_recovery(recovery) == key
    # On another agent (or device): from stdin, idempotent, and refuses to replace without --force.
    first = _invoke(["key", "import", "--agent-id", "other"], env, input=recovery + "\n")
    assert first.exit_code == 0 and "installed" in first.stdout
    assert load_key(config, "other") == key
    again = _invoke(["key", "import", recovery, "--agent-id", "other"], env)
    assert again.exit_code == 0 and "already installed" in again.stdout
    different = export_recovery(os.urandom(32))
    refused = _invoke(["key", "import", different, "--agent-id", "other"], env)
    assert refused.exit_code == 2 and "--force" in refused.stderr
    typo = _invoke(["key", "import", recovery[:-1] + ("a" if recovery[-1] != "a" else "b"), "--agent-id", "x"], env)
    assert typo.exit_code == 2 and "typo" in typo.stderr and not config.key_path("x").exists()
    forced = _invoke(["key", "import", different, "--force", "--agent-id", "other"], env)
    assert forced.exit_code == 0 and load_key(config, "other") == import_recovery(different)
