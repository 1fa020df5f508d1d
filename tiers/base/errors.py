"""The memoryd error tree; every layer raises these, the CLI maps them to exit codes.

    MemorydError                 title, message, transient, exit_code
     ├── UsageError              bad input from the caller            (exit 2)
     │    └── LimitError         a limit (tree, size) refuses the change
     ├── ConfigError             unreadable/invalid configuration     (exit 2)
     ├── StoreError              local state cannot be read/written   (exit 1)
     │    └── CorruptStateError  a state file was corrupt (quarantined)
     ├── ArchiveError            cold archive failure                 (exit 1)
     ├── RemoteError             server unreachable, auth, timeout    (exit 1)
     │    └── TokenError         the server refused this token: names the one needed (exit 2)
     ├── CryptoError             wrong key, tampered ciphertext       (exit 1)
     └── IPCError                daemon socket failure                (exit 1)
"""
from __future__ import annotations


class MemorydError(Exception):
    """Root of all memoryd errors. `message` is one line, safe to show (no secrets)."""

    title = "error"
    exit_code = 1
    transient = False

    def __init__(self, message: str, *, transient: bool | None = None) -> None:
        super().__init__(message)
        self.message = " ".join(str(message).split())  # always one line
        if transient is not None:
            self.transient = transient

    def __str__(self) -> str:
        return self.message


class UsageError(MemorydError):
    title = "bad input"
    exit_code = 2


class LimitError(UsageError):
    title = "limit"


class ConfigError(MemorydError):
    title = "config"
    exit_code = 2


class StoreError(MemorydError):
    title = "local state"


class CorruptStateError(StoreError):
    title = "corrupt state"


class ArchiveError(MemorydError):
    title = "cold archive"


class RemoteError(MemorydError):
    title = "remote"
    transient = True


class TokenError(RemoteError):
    """The server refused the token used (wrong, expired, read-only, another namespace's): the caller must
    give another, so it is bad input, not a failure to retry."""

    title = "token"
    exit_code = 2
    transient = False


class CryptoError(MemorydError):
    title = "crypto"


class IPCError(MemorydError):
    title = "daemon"
    transient = True
