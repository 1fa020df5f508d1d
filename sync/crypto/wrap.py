"""Data keys wrapped for one recipient: X25519 ECDH with a fresh ephemeral key, HKDF-SHA256, AES-256-GCM.

    wrapped = "MDW1" | ephemeral public (32) | nonce (12) | AES-GCM(kek, data key) incl. tag   (base64 text)
    kek     = HKDF-SHA256(ECDH(ephemeral, recipient), salt = ephemeral public | recipient public)
    AAD     = "memoryd/wrap/v1|<agent>|<epoch>|<recipient>"

A wrap moved to another agent, epoch or recipient fails its tag. Recipients are enrolled devices and the
agent's recovery key (whose private half is printed once, never stored: sync/crypto/recovery.py).
"""
from __future__ import annotations

import base64
import binascii
import os

from memoryd.tiers.base.errors import CryptoError

from memoryd.sync.crypto.seal import KEY_BYTES

MAGIC = b"MDW1"
_PUB = 32
_NONCE = 12


def new_private() -> bytes:
    """32 random bytes: an X25519 private key (raw)."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    return X25519PrivateKey.generate().private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())


def public_of(private: bytes) -> bytes:
    """The raw 32-byte public key of a raw private key."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return X25519PrivateKey.from_private_bytes(bytes(private)).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _aad(agent_id: str, epoch: int, recipient: str) -> bytes:
    return f"memoryd/wrap/v1|{agent_id}|{int(epoch)}|{recipient}".encode("utf-8")


def _kek(shared: bytes, eph_pub: bytes, recipient_pub: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=eph_pub + recipient_pub,
                info=b"memoryd/wrap/v1").derive(shared)


def wrap(data_key: bytes, recipient_public: bytes, *, agent_id: str, epoch: int, recipient: str) -> str:
    """The data key of `epoch`, readable only by the holder of `recipient_public`'s private key."""
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    if len(data_key) != KEY_BYTES or len(recipient_public) != _PUB:
        raise CryptoError("cannot wrap: a data key is 32 bytes and a public key 32 bytes")
    eph = X25519PrivateKey.generate()
    eph_pub = eph.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = eph.exchange(X25519PublicKey.from_public_bytes(bytes(recipient_public)))
    nonce = os.urandom(_NONCE)
    body = AESGCM(_kek(shared, eph_pub, bytes(recipient_public))).encrypt(
        nonce, bytes(data_key), _aad(agent_id, epoch, recipient))
    return base64.b64encode(MAGIC + eph_pub + nonce + body).decode("ascii")


def unwrap(wrapped: str, private: bytes, *, agent_id: str, epoch: int, recipient: str) -> bytes:
    """The data key inside `wrapped`; CryptoError if it is not ours, was moved, or was changed."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        raw = base64.b64decode(str(wrapped).encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise CryptoError(f"key wrap of epoch {epoch} for {recipient} is not valid base64 (tampered)") from None
    if len(raw) < len(MAGIC) + _PUB + _NONCE + 16 or raw[:len(MAGIC)] != MAGIC:
        raise CryptoError(f"key wrap of epoch {epoch} for {recipient} is malformed (tampered)")
    eph_pub = raw[len(MAGIC):len(MAGIC) + _PUB]
    nonce = raw[len(MAGIC) + _PUB:len(MAGIC) + _PUB + _NONCE]
    priv = X25519PrivateKey.from_private_bytes(bytes(private))
    try:
        shared = priv.exchange(X25519PublicKey.from_public_bytes(eph_pub))
        key = AESGCM(_kek(shared, eph_pub, public_of(private))).decrypt(
            nonce, raw[len(MAGIC) + _PUB + _NONCE:], _aad(agent_id, epoch, recipient))
    except (InvalidTag, ValueError):
        raise CryptoError(f"key wrap of epoch {epoch} for {recipient} does not open with this key "
                          "(another recipient's, moved, or tampered)") from None
    if len(key) != KEY_BYTES:
        raise CryptoError(f"key wrap of epoch {epoch} for {recipient} holds no data key")
    return key
