"""AES-256-GCM envelopes: round trip, fresh nonces, wrong key, tampering, AAD binding."""
from __future__ import annotations

import base64
import os

import pytest

from memoryd.sync.crypto.seal import MAGIC, open_envelope, open_text, seal, seal_text
from memoryd.tiers.base.errors import CryptoError

KEY = bytes(range(32))
MSG = "secret memory: 我的名字是 Ada".encode("utf-8")


def test_round_trip_and_fresh_nonce():
    a = seal(KEY, MSG, agent_id="ag", kind="critical", version=3)
    b = seal(KEY, MSG, agent_id="ag", kind="critical", version=3)
    assert a != b and a.startswith(MAGIC)
    assert MSG not in a
    assert open_envelope(KEY, a, agent_id="ag", kind="critical", version=3) == MSG
    text = seal_text(KEY, MSG, agent_id="ag", kind="critical", version=3)
    assert open_text(KEY, text, agent_id="ag", kind="critical", version=3) == MSG


def test_wrong_key_fails_loudly():
    env = seal(KEY, MSG, agent_id="ag", kind="critical", version=1)
    with pytest.raises(CryptoError, match="wrong key or tampered"):
        open_envelope(os.urandom(32), env, agent_id="ag", kind="critical", version=1)


@pytest.mark.parametrize("where", [0, 5, 20, -1])
def test_any_changed_byte_fails(where):
    env = bytearray(seal(KEY, MSG, agent_id="ag", kind="critical", version=1))
    env[where] ^= 0x01
    with pytest.raises(CryptoError):
        open_envelope(KEY, bytes(env), agent_id="ag", kind="critical", version=1)


@pytest.mark.parametrize("agent,kind,version", [("other", "critical", 1), ("ag", "cold", 1), ("ag", "critical", 2)])
def test_moved_row_fails(agent, kind, version):
    env = seal(KEY, MSG, agent_id="ag", kind="critical", version=1)
    with pytest.raises(CryptoError, match=agent):
        open_envelope(KEY, env, agent_id=agent, kind=kind, version=version)


def test_garbage_text_and_bad_key_are_crypto_errors():
    with pytest.raises(CryptoError, match="base64"):
        open_text(KEY, "not base64!!", agent_id="ag", kind="critical", version=1)
    with pytest.raises(CryptoError, match="not a memoryd envelope"):
        open_text(KEY, base64.b64encode(b"xx").decode(), agent_id="ag", kind="critical", version=1)
    with pytest.raises(CryptoError, match="32 bytes"):
        seal(b"short", MSG, agent_id="ag", kind="critical", version=1)
