"""The device key pieces on their own: wraps bound to agent/epoch/recipient, codes, recovery strings, the key store."""
from __future__ import annotations

import os

import pytest

from memoryd.sync.crypto.device_keys import load_ring, new_ring, save_ring, store_path
from memoryd.sync.crypto.enrol import new_code, open_keys, parse_code, seal_keys
from memoryd.sync.crypto.keys import export_recovery
from memoryd.sync.crypto.recovery import new_recovery, parse_recovery
from memoryd.sync.crypto.wrap import new_private, public_of, unwrap, wrap
from memoryd.tiers.base.errors import CryptoError, UsageError


def test_a_wrap_opens_only_for_its_recipient_agent_and_epoch():
    me, other = new_private(), new_private()
    key = os.urandom(32)
    w = wrap(key, public_of(me), agent_id="ag", epoch=3, recipient="dev1")
    assert unwrap(w, me, agent_id="ag", epoch=3, recipient="dev1") == key
    for change in ({"agent_id": "other"}, {"epoch": 4}, {"recipient": "dev2"}):
        args = {"agent_id": "ag", "epoch": 3, "recipient": "dev1", **change}
        with pytest.raises(CryptoError):
            unwrap(w, me, **args)
    with pytest.raises(CryptoError):
        unwrap(w, other, agent_id="ag", epoch=3, recipient="dev1")
    assert w != wrap(key, public_of(me), agent_id="ag", epoch=3, recipient="dev1")  # fresh ephemeral key each time


def test_codes_parse_loosely_and_open_only_with_their_secret():
    code_id, secret, shown = new_code()
    assert parse_code(shown.upper().replace("-", " ")) == (code_id, secret)
    salt, blob = seal_keys(secret, b'{"epochs": {}}', agent_id="ag", code_id=code_id)
    assert open_keys(secret, salt, blob, agent_id="ag", code_id=code_id) == b'{"epochs": {}}'
    with pytest.raises(UsageError, match="wrong enrolment code"):
        open_keys(secret[:-1] + ("a" if secret[-1] != "a" else "b"), salt, blob, agent_id="ag", code_id=code_id)
    with pytest.raises(UsageError, match="wrong enrolment code"):
        open_keys(secret, salt, blob, agent_id="other", code_id=code_id)
    with pytest.raises(UsageError):
        parse_code("abcd-efgh-ijkl-mno1")  # 1 is not base32


def test_recovery_strings_are_their_own_kind():
    public, text = new_recovery()
    assert text.startswith("mdr1-") and public_of(parse_recovery(text)) == public
    with pytest.raises(UsageError):
        parse_recovery(text[:-1] + ("a" if text[-1] != "a" else "b"))
    with pytest.raises(UsageError):
        parse_recovery(export_recovery(os.urandom(32)))  # an mdk1 data key is not a recovery key


def test_key_store_private_and_epoch_zero_leaves_with_its_drop(config):
    zero, one = os.urandom(32), os.urandom(32)
    ring = new_ring("ag", {0: zero, 1: one})
    save_ring(config, ring)
    assert (store_path(config, "ag").stat().st_mode & 0o777) == 0o600
    assert config.key_path("ag").read_bytes() == zero
    back = load_ring(config, "ag")
    assert back.epochs == {0: zero, 1: one} and back.current == 1 and back.private == ring.private
    assert zero.hex() not in store_path(config, "ag").read_text()  # epoch 0 lives in its own file only
    assert back.drop_below(1) == [0]
    save_ring(config, back)
    assert not config.key_path("ag").exists() and load_ring(config, "ag").epochs == {1: one}
