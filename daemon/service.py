"""Install, remove and inspect the systemd user unit / launchd agent that runs `memoryd daemon`."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Mapping
from xml.sax.saxutils import escape as xml_escape

from memoryd.tiers.base.atomic import ensure_private_dir
from memoryd.tiers.base.config import Config
from memoryd.tiers.base.errors import StoreError, UsageError

UNIT_NAME = "memoryd.service"
LAUNCHD_LABEL = "com.memoryd.agent"
KINDS = ("systemd", "launchd")
Echo = Callable[[str], None]


def default_kind() -> str:
    return "launchd" if sys.platform == "darwin" else "systemd"


def template(name: str) -> str:
    """A template from the memoryd.systemd package data (or the source tree when not installed)."""
    try:
        from importlib.resources import files

        return files("memoryd.systemd").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return (Path(__file__).resolve().parent.parent / "systemd" / name).read_text(encoding="utf-8")


def daemon_command() -> list[str]:
    """Absolute argv that starts the daemon: the `memoryd` next to this Python, else on PATH."""
    beside = Path(sys.executable).parent / "memoryd"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside.absolute()), "daemon"]
    found = shutil.which("memoryd")
    if found:
        return [str(Path(found).absolute()), "daemon"]
    return [str(Path(sys.executable).absolute()), "-m", "memoryd.daemon"]


def unit_path(kind: str, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if kind == "launchd":
        return home / "Library" / "LaunchAgents" / f"{LAUNCHD_LABEL}.plist"
    base = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return base / "systemd" / "user" / UNIT_NAME


def _sd_quote(value: str, exec_line: bool = False) -> str:
    """One quoted systemd word: specifiers (%) literal; `$` too on Exec lines, where it expands."""
    value = value.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    if exec_line:
        value = value.replace("$", "$$")
    return f'"{value}"'


def writable_dirs(config: Config) -> list[str]:
    """The data dir, plus the socket's and a file: database's dirs when they live elsewhere."""
    dirs = [config.home.absolute()]
    extra = [config.socket_path.parent]
    if config.db_url.startswith("file:"):
        from memoryd.sync.remote.db import parse_db_url  # the same parsing the daemon will use

        extra.append(Path(parse_db_url(config.db_url).path).parent)
    out = [str(dirs[0])]
    for d in extra:
        d = d.absolute()
        if d not in dirs and config.home.absolute() not in d.parents:
            dirs.append(d)
            out.append("-" + str(d))  # "-": a missing optional dir must not fail the unit
    return out


def _env_pairs(config: Config, env: Mapping[str, str]) -> list[tuple[str, str]]:
    # only paths: secrets (db token) stay in config.toml (0600), never in a unit file. Without
    # MEMORYD_HOME the daemon finds the same platform dirs as the CLI (platformdirs), so none is pinned.
    pairs = [("MEMORYD_HOME", str(config.home.absolute()))] if config.pinned else []
    for var in ("MEMORYD_WORKSPACE", "MEMORYD_SOCKET", "MEMORYD_SESSIONS_DIR"):
        if env.get(var):
            pairs.append((var, str(Path(env[var]).expanduser().absolute())))
    return pairs


def render_systemd(config: Config, command: list[str], env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    text = template(UNIT_NAME)
    extra_env = _env_pairs(config, env)
    env_line = " ".join(_sd_quote(f"{k}={v}") for k, v in extra_env)
    return (text.replace("@EXEC_START@", " ".join(_sd_quote(a, exec_line=True) for a in command))
                .replace("@ENV_HOME@", env_line)
                .replace("@DATA_DIR@", " ".join(_sd_quote(d) for d in writable_dirs(config))))


def render_launchd(config: Config, command: list[str], env: Mapping[str, str] | None = None) -> str:
    env = os.environ if env is None else env
    text = template(f"{LAUNCHD_LABEL}.plist")
    args = "\n".join(f"    <string>{xml_escape(a)}</string>" for a in command)
    variables = "".join(f"    <key>{k}</key>\n    <string>{xml_escape(v)}</string>\n"
                        for k, v in _env_pairs(config, env))
    log_dir = config.home / "logs"
    return (text.replace("@PROGRAM_ARGUMENTS@", args)
                .replace("@ENV_VARS@\n", variables)
                .replace("@LOG_DIR@", xml_escape(str(log_dir.absolute()))))


def _write(path: Path, text: str) -> None:
    """Atomic write of a unit file (0644: it holds no secrets; the service manager must read it)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None


def _run(argv: list[str], echo: Echo, check: bool = True) -> bool:
    """Run a service-manager command, echoing what was done; False when it failed."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        echo(f"failed: {' '.join(argv)} ({exc})")
        return False
    if proc.returncode == 0:
        echo(f"ran: {' '.join(argv)}")
        return True
    if check:
        reason = (proc.stderr or proc.stdout).strip().splitlines()
        echo(f"failed: {' '.join(argv)} (exit {proc.returncode}{': ' + reason[-1] if reason else ''})")
    return False


def manager_usable(kind: str) -> tuple[bool, str]:
    """Whether systemctl --user / launchctl exists here and reaches a user session."""
    tool = "systemctl" if kind == "systemd" else "launchctl"
    if shutil.which(tool) is None:
        return False, f"{tool} not found"
    probe = ["systemctl", "--user", "show-environment"] if kind == "systemd" else ["launchctl", "print", f"gui/{os.getuid()}"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return ok, "" if ok else f"{tool} cannot reach a user session"


def _check_kind(kind: str | None) -> str:
    kind = kind or default_kind()
    if kind not in KINDS:
        raise UsageError(f"unknown service kind {kind!r}: use systemd or launchd")
    return kind


def install(config: Config, echo: Echo, kind: str | None = None, enable: bool = True,
            env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Write the unit with paths filled in; enable and start it when the manager is usable."""
    kind, env = _check_kind(kind), (os.environ if env is None else env)
    command = daemon_command()
    ensure_private_dir(config.home)  # ReadWritePaths must exist or the unit cannot start
    path = unit_path(kind, env)
    if kind == "systemd":
        text = render_systemd(config, command, env)
    else:
        ensure_private_dir(config.home / "logs")
        text = render_launchd(config, command, env)
    _write(path, text)
    echo(f"wrote {path}")
    if env.get("MEMORYD_DB_URL") or env.get("MEMORYD_DB_TOKEN"):
        echo(f"note: MEMORYD_DB_URL/MEMORYD_DB_TOKEN are not copied into the unit; put db_url/db_token in {config.config_file or config.home / 'config.toml'}")
    started = _activate(kind, path, echo) if enable else False
    if not enable:
        echo("not enabling the service (--no-enable)")
    return {"kind": kind, "path": str(path), "command": command, "started": started}


def _activate(kind: str, path: Path, echo: Echo) -> bool:
    usable, why = manager_usable(kind)
    if not usable:
        hint = (f"systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}"
                if kind == "systemd" else f"launchctl bootstrap gui/$(id -u) {path}")
        echo(f"{why}; to start it later run: {hint}")
        return False
    if kind == "systemd":
        return (_run(["systemctl", "--user", "daemon-reload"], echo)
                and _run(["systemctl", "--user", "enable", "--now", UNIT_NAME], echo))
    domain = f"gui/{os.getuid()}"
    _run(["launchctl", "bootout", domain, str(path)], echo, check=False)  # replace an older copy
    return _run(["launchctl", "bootstrap", domain, str(path)], echo)


def uninstall(config: Config, echo: Echo, kind: str | None = None,
              env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Stop and disable the service when the manager is usable, then remove the unit file."""
    kind, env = _check_kind(kind), (os.environ if env is None else env)
    path = unit_path(kind, env)
    usable, why = manager_usable(kind)
    if usable and kind == "systemd":
        _run(["systemctl", "--user", "disable", "--now", UNIT_NAME], echo)
    elif usable:
        _run(["launchctl", "bootout", f"gui/{os.getuid()}", str(path)], echo)
    elif path.exists():
        echo(f"{why}; not stopping the service")
    existed = path.exists()
    if existed:
        try:
            path.unlink()
        except OSError as exc:
            raise StoreError(f"cannot remove {path}: {exc.strerror}") from None
        echo(f"removed {path}")
        if usable and kind == "systemd":
            _run(["systemctl", "--user", "daemon-reload"], echo)
    else:
        echo(f"nothing installed at {path}")
    return {"kind": kind, "path": str(path), "removed": existed}


def service_status(config: Config, kind: str | None = None,
                   env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Installed?, what the manager says, and whether a daemon answers on the socket."""
    from memoryd.daemon.client import try_daemon

    kind, env = _check_kind(kind), (os.environ if env is None else env)
    path = unit_path(kind, env)
    usable, why = manager_usable(kind)
    state = why or None
    if usable:
        argv = (["systemctl", "--user", "is-active", UNIT_NAME] if kind == "systemd"
                else ["launchctl", "print", f"gui/{os.getuid()}/{LAUNCHD_LABEL}"])
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            state = (proc.stdout.strip().splitlines() or ["unknown"])[0] if kind == "systemd" else (
                "loaded" if proc.returncode == 0 else "not loaded")
        except (OSError, subprocess.TimeoutExpired) as exc:
            state = f"unknown ({exc})"
    try:
        pong = try_daemon(config, "ping", {}, timeout=2.0)
    except Exception:
        pong = None
    return {"kind": kind, "path": str(path), "installed": path.exists(), "manager": state,
            "daemon_running": pong is not None, "daemon_pid": (pong or {}).get("pid")}
