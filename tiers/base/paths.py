"""Where memoryd keeps things: the platform's config, data and runtime dirs (platformdirs), or one MEMORYD_HOME.

    MEMORYD_HOME set  →  config.toml, data and the socket all live in that one directory (as always).
    otherwise         →  config dir   platformdirs user_config_dir   (~/.config/memoryd on Linux)
                         data dir     platformdirs user_data_dir     (~/.local/share/memoryd on Linux)
                         runtime dir  platformdirs user_runtime_dir  ($XDG_RUNTIME_DIR/memoryd on Linux),
                                      the data dir where the platform has none (no usable XDG_RUNTIME_DIR).
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

APP = "memoryd"
CONFIG_NAME = "config.toml"


@dataclass(frozen=True)
class Dirs:
    data: Path
    config: Path
    runtime: Path
    pinned: bool  # MEMORYD_HOME named them all

    def config_file(self) -> tuple[Path, list[str]]:
        """The config.toml to read, and notes for the user (an old home's file still read)."""
        primary = self.config / CONFIG_NAME
        legacy = self.data / CONFIG_NAME
        if self.pinned or legacy == primary:
            return primary, []
        if primary.exists():
            notes = [f"{legacy} is ignored: {primary} is the one read"] if legacy.exists() else []
            return primary, notes
        if legacy.exists():
            return legacy, [f"read {legacy} (the data dir, as older versions did); move it to {primary}"]
        return primary, []


def resolve_dirs(env: Mapping[str, str] | None = None) -> Dirs:
    """The three directories for this environment (platformdirs only when MEMORYD_HOME is unset)."""
    env = os.environ if env is None else env
    home = env.get("MEMORYD_HOME")
    if home:
        pinned = Path(home).expanduser()
        return Dirs(data=pinned, config=pinned, runtime=pinned, pinned=True)
    import platformdirs  # ~10 ms beyond what the CLI already imports; not paid under MEMORYD_HOME

    data = Path(platformdirs.user_data_dir(APP, appauthor=False))
    config = Path(platformdirs.user_config_dir(APP, appauthor=False))
    return Dirs(data=data, config=config, runtime=_runtime_dir(env) or data, pinned=False)


def _runtime_dir(env: Mapping[str, str]) -> Path | None:
    """The platform's per-user runtime dir, or None where there is none we may use.

    On Linux and the BSDs that is $XDG_RUNTIME_DIR (a 0700 dir owned by us, wiped at logout); without
    it platformdirs would guess /run/user/<uid> or /tmp, where a socket is less safe than in our data dir.
    """
    if sys.platform not in ("darwin", "win32") and not env.get("XDG_RUNTIME_DIR"):
        return None
    import warnings

    import platformdirs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = platformdirs.user_runtime_dir(APP, appauthor=False)
    return None if caught else Path(path)  # a warning means platformdirs fell back to a guess
