"""Per-agent 256-bit keys: create, load (MEMORYD_KEY overrides), fingerprint, recovery strings."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
from pathlib import Path

from memoryd.tiers.base.atomic import atomic_write_bytes, ensure_private_dir
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import CryptoError, StoreError, UsageError

from memoryd.sync.crypto.seal import KEY_BYTES

RECOVERY_PREFIX = "mdk1"
_CHECK_BYTES = 4


def fingerprint(key: bytes) -> str:
    """A short, non-secret name for a key (safe to print and log)."""
    digest = hashlib.sha256(b"memoryd-key-fingerprint|" + bytes(key)).hexdigest()[:16]
    return "-".join(digest[i:i + 4] for i in range(0, 16, 4))


def _checksum(key: bytes, prefix: str = RECOVERY_PREFIX) -> bytes:
    domain = b"memoryd-recovery|" if prefix == RECOVERY_PREFIX else f"memoryd-recovery|{prefix}|".encode()
    return hashlib.sha256(domain + bytes(key)).digest()[:_CHECK_BYTES]


def export_recovery(key: bytes, prefix: str = RECOVERY_PREFIX) -> str:
    """A copyable recovery string: 'mdk1-' + base32(key + 4-byte checksum) in groups of 4 (another
    prefix, e.g. the recovery key's 'mdr1', has its own checksum: one kind is never taken for the other)."""
    if len(key) != KEY_BYTES:
        raise CryptoError("key must be 32 bytes")
    body = base64.b32encode(bytes(key) + _checksum(key, prefix)).decode("ascii").rstrip("=").lower()
    return prefix + "-" + "-".join(body[i:i + 4] for i in range(0, len(body), 4))


def import_recovery(text: str, prefix: str = RECOVERY_PREFIX) -> bytes:
    """Parse a recovery string; a typo (bad character, wrong length, checksum) → UsageError."""
    compact = "".join(str(text).split()).replace("-", "").upper()
    if not compact.startswith(prefix.upper()):
        raise UsageError(f"recovery key must start with '{prefix}-'")
    body = compact[len(prefix):]
    body += "=" * (-len(body) % 8)
    try:
        raw = base64.b32decode(body)
    except (binascii.Error, ValueError):
        raise UsageError("recovery key has a character that cannot appear in it (typo?)") from None
    if len(raw) != KEY_BYTES + _CHECK_BYTES:
        raise UsageError("recovery key has the wrong length (missing or extra characters?)")
    key, check = raw[:KEY_BYTES], raw[KEY_BYTES:]
    canonical = export_recovery(key, prefix).replace("-", "").upper()[len(prefix):]
    if not hmac.compare_digest(check, _checksum(key, prefix)) or canonical != compact[len(prefix):]:
        raise UsageError("recovery key checksum does not match (typo?)")
    return key


def parse_key_material(data: bytes | str) -> bytes:
    """Accept raw 32 bytes, a recovery string or 64 hex digits (key files, MEMORYD_KEY)."""
    if isinstance(data, bytes):
        if len(data) == KEY_BYTES:
            return data
        try:
            data = data.decode("ascii")
        except UnicodeDecodeError:
            raise UsageError("key material is neither 32 raw bytes nor a recovery string") from None
    text = data.strip()
    if text.lower().startswith(RECOVERY_PREFIX):
        return import_recovery(text)
    if len(text) == 2 * KEY_BYTES:
        try:
            return bytes.fromhex(text)
        except ValueError:
            pass
    raise UsageError("key is not a recovery string ('mdk1-...') or 64 hex digits")


def _write_new(path: Path, key: bytes) -> bool:
    """Create `path` holding `key` only if absent (link is atomic create-if-absent); True if created."""
    ensure_private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
    atomic_write_bytes(tmp, key)
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot create key file {path}: {exc.strerror}") from None
    finally:
        tmp.unlink(missing_ok=True)


def read_key_file(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read key file {path}: {exc.strerror}") from None
    if len(data) != KEY_BYTES:
        raise CryptoError(f"key file {path} is damaged (expected 32 bytes)")
    return data


def ensure_key(config: Config, agent_id: str) -> bytes:
    """The agent's key, created (random, 0600) on first use; concurrent creators agree on one key."""
    path = config.key_path(agent_id)
    key = read_key_file(path)
    if key is not None:
        return key
    _write_new(path, os.urandom(KEY_BYTES))
    key = read_key_file(path)
    assert key is not None
    return key


def load_key(config: Config, agent_id: str) -> bytes:
    """MEMORYD_KEY (a recovery string, read with the config) overrides the key file; neither → UsageError."""
    if config.recovery_key:
        return parse_key_material(config.recovery_key)
    key = read_key_file(config.key_path(agent_id))
    if key is None:
        raise UsageError(f"no key for agent {agent_id}: run 'memoryd init' or set MEMORYD_KEY / --key-file")
    return key


def import_key(config: Config, agent_id: str, key: bytes, force: bool = False) -> bool:
    """Install `key` as the agent's key; refuses to replace a different key unless force. True if written."""
    path = config.key_path(agent_id)
    current = read_key_file(path) if path.exists() else None
    if current is not None and hmac.compare_digest(current, key):
        return False
    if current is not None and not force:
        raise UsageError(
            f"agent {agent_id} already has a different key ({fingerprint(current)}); use --force to replace it"
        )
    if current is None:
        if _write_new(path, key):
            return True
        return import_key(config, agent_id, key, force)  # someone created it meanwhile: check again
    atomic_write_bytes(path, key)
    return True
