"""The agent's recovery key: an X25519 key pair whose private half is printed once ('mdr1-…'), never stored.

Every epoch's data key is wrapped for its public half (sync/crypto/wrap.py), so the string alone restores
the agent on a new device; `key recovery --new` issues another and the old one's wraps are deleted.
"""
from __future__ import annotations

from memoryd.sync.crypto.keys import export_recovery, import_recovery
from memoryd.sync.crypto.wrap import new_private, public_of

PREFIX = "mdr1"


def new_recovery() -> tuple[bytes, str]:
    """(public key, the printable private key): print the string once, keep only the public key."""
    private = new_private()
    return public_of(private), export_recovery(private, PREFIX)


def parse_recovery(text: str) -> bytes:
    """The private key of a recovery string; a typo → UsageError (checksum, length, characters)."""
    return import_recovery(text, PREFIX)


def is_recovery(text: str | None) -> bool:
    return bool(text) and str(text).strip().lower().startswith(PREFIX)
