"""One-time enrolment codes: the agent's data keys handed to a new device through the server, which never
holds what opens them.

    code  = "abcd-efgh-ijkl-mnop": the first group names the code on the server (20 bits, public),
            the other three are the secret (60 bits) that never leaves the two devices
    blob  = "MDE1" | nonce | AES-256-GCM(scrypt(secret, salt, n=2^15, r=8, p=1), keys),
            AAD "memoryd/enrol/v1|<agent>|<code id>"

The server (or anyone holding its data) would have to guess 2^60 secrets at one scrypt each (~50 ms) to
open a blob; the code is also single use and expires after 15 minutes (sync/devices.py), after which
the blob is erased from the server.
"""
from __future__ import annotations

import base64
import binascii
import os
import re

from memoryd.tiers.base.errors import CryptoError, UsageError

_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"  # base32, lower case: no case to mistype
_GROUP = 4
_SHAPE = re.compile(r"^[a-z2-7]{16}$")
MAGIC = b"MDE1"
SCRYPT_N = 2 ** 15


def new_code() -> tuple[str, str, str]:
    """(code id, secret, the code as shown: 'abcd-efgh-ijkl-mnop')."""
    chars = "".join(_ALPHABET[b % 32] for b in os.urandom(16))  # 256 % 32 == 0: uniform
    return chars[:_GROUP], chars[_GROUP:], "-".join(chars[i:i + _GROUP] for i in range(0, 16, _GROUP))


def parse_code(text: str) -> tuple[str, str]:
    """(code id, secret) of a typed code; dashes and spaces are optional."""
    compact = "".join(str(text).split()).replace("-", "").lower()
    if not _SHAPE.match(compact):
        raise UsageError("an enrolment code is 16 letters and digits 2-7, like abcd-efgh-ijkl-mnop")
    return compact[:_GROUP], compact[_GROUP:]


def _kek(secret: str, salt: bytes) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=salt, length=32, n=SCRYPT_N, r=8, p=1).derive(secret.encode("ascii"))


def _aad(agent_id: str, code_id: str) -> bytes:
    return f"memoryd/enrol/v1|{agent_id}|{code_id}".encode("utf-8")


def seal_keys(secret: str, payload: bytes, *, agent_id: str, code_id: str) -> tuple[str, str]:
    """(salt, blob) as text for the server."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    salt, nonce = os.urandom(16), os.urandom(12)
    body = AESGCM(_kek(secret, salt)).encrypt(nonce, payload, _aad(agent_id, code_id))
    return salt.hex(), base64.b64encode(MAGIC + nonce + body).decode("ascii")


def open_keys(secret: str, salt: str, blob: str, *, agent_id: str, code_id: str) -> bytes:
    """The payload; a wrong secret (a typo in the code) → UsageError, a changed blob → CryptoError."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        raw = base64.b64decode(blob.encode("ascii"), validate=True)
        salt_bytes = bytes.fromhex(salt)
    except (binascii.Error, ValueError, UnicodeEncodeError, AttributeError):
        raise CryptoError(f"enrolment {code_id} on the server is malformed (tampered)") from None
    if len(raw) < len(MAGIC) + 12 + 16 or raw[:len(MAGIC)] != MAGIC:
        raise CryptoError(f"enrolment {code_id} on the server is malformed (tampered)")
    try:
        return AESGCM(_kek(secret, salt_bytes)).decrypt(raw[4:16], raw[16:], _aad(agent_id, code_id))
    except InvalidTag:
        raise UsageError("wrong enrolment code (a typo?): check it, or create a new one with "
                         "'memoryd device add' on an enrolled device") from None
