"""AES-256-GCM envelopes for critical state: fresh nonce, versioned header, agent/kind/version bound as AAD."""
from __future__ import annotations

import base64
import binascii
import os
import zlib

from memoryd.tiers.base.errors import CryptoError

MAGIC = b"MDS1"          # envelope version 1: MAGIC | nonce(12) | AES-GCM(zlib(plaintext)) incl. 16-byte tag
NONCE_BYTES = 12
KEY_BYTES = 32
_MIN_LEN = len(MAGIC) + NONCE_BYTES + 16


def associated_data(agent_id: str, kind: str, version: int) -> bytes:
    """What a ciphertext is bound to: moving it to another agent, kind or version breaks the tag."""
    return f"memoryd/v1|{agent_id}|{kind}|{int(version)}".encode("utf-8")


def _check_key(key: bytes) -> None:
    if not isinstance(key, (bytes, bytearray)) or len(key) != KEY_BYTES:
        raise CryptoError("encryption key must be 32 bytes (AES-256)")


def seal(key: bytes, plaintext: bytes, *, agent_id: str, kind: str, version: int) -> bytes:
    """Compress then encrypt; returns the binary envelope."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    _check_key(key)
    nonce = os.urandom(NONCE_BYTES)
    body = AESGCM(bytes(key)).encrypt(nonce, zlib.compress(plaintext, 6),
                                      associated_data(agent_id, kind, version))
    return MAGIC + nonce + body


def open_envelope(key: bytes, envelope: bytes, *, agent_id: str, kind: str, version: int) -> bytes:
    """Verify and decrypt an envelope; any mismatch is a CryptoError with a one-line reason."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    _check_key(key)
    if len(envelope) < _MIN_LEN or envelope[: len(MAGIC)] != MAGIC:
        raise CryptoError(f"critical state of agent {agent_id} v{version} is not a memoryd envelope (corrupt or tampered)")
    nonce = envelope[len(MAGIC): len(MAGIC) + NONCE_BYTES]
    try:
        packed = AESGCM(bytes(key)).decrypt(nonce, envelope[len(MAGIC) + NONCE_BYTES:],
                                            associated_data(agent_id, kind, version))
    except InvalidTag:
        raise CryptoError(
            f"cannot decrypt critical state of agent {agent_id} v{version}: wrong key or tampered data"
        ) from None
    try:
        return zlib.decompress(packed)
    except zlib.error:
        raise CryptoError(f"critical state of agent {agent_id} v{version} decrypted but is malformed") from None


def seal_text(key: bytes, plaintext: bytes, *, agent_id: str, kind: str, version: int) -> str:
    """seal() as base64 text for a TEXT column."""
    return base64.b64encode(seal(key, plaintext, agent_id=agent_id, kind=kind, version=version)).decode("ascii")


def open_text(key: bytes, text: str, *, agent_id: str, kind: str, version: int) -> bytes:
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, AttributeError):
        raise CryptoError(f"critical state of agent {agent_id} v{version} is not valid base64 (corrupt or tampered)") from None
    return open_envelope(key, raw, agent_id=agent_id, kind=kind, version=version)
