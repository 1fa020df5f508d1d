"""Shared CLI plumbing: options, config loading, JSON output and the error → exit-code mapping."""
from __future__ import annotations

import functools
import json
import logging
import re
import sys
from typing import TYPE_CHECKING, Any, Callable, TypeVar

import click

from memoryd.tiers.base.config import Config, load_config, validate_agent_id
from memoryd.tiers.base.errors import MemorydError

from memoryd.cli.progress import end_bar

if TYPE_CHECKING:
    from memoryd.daemon.api import MemoryApi

F = TypeVar("F", bound=Callable[..., Any])


def _check_agent(ctx: click.Context, param: click.Parameter, value: str | None) -> str:
    if value is None:  # `memoryd --agent-id X store …` sets it on the root; else "default"
        value = (ctx.find_root().obj or {}).get("agent_id") or "default"
    try:
        return validate_agent_id(value)
    except MemorydError as exc:
        raise click.BadParameter(exc.message) from None


def check_optional_agent(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An --agent-id that may be left out (None: every agent, or the configured one); "" is refused like any
    other bad id, never taken for "not given"."""
    if value is None:
        value = (ctx.find_root().obj or {}).get("agent_id")
    try:
        return None if value is None else validate_agent_id(value)
    except MemorydError as exc:
        raise click.BadParameter(exc.message) from None


agent_option = click.option(
    "--agent-id", "agent_id", default=None, callback=_check_agent,
    help="Agent whose memory to use [default: default].",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")


JSON_SCHEMA = 1  # version of every --json document; bump it when a shape changes incompatibly


def error_code(exc: BaseException) -> str:
    """A stable name for an error's kind: UsageError → usage, CorruptStateError → corrupt_state."""
    name = type(exc).__name__.removesuffix("Error") or "error"
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def fail(message: str, code: int = 1, as_json: bool = False, kind: str = "error",
         extra: dict[str, Any] | None = None) -> None:
    """Report a failure and exit: one line on stderr, or with --json one object on stdout."""
    end_bar()
    if as_json:
        error = {"code": kind, "message": message, "exit": code}
        click.echo(json.dumps({"schema": JSON_SCHEMA, **(extra or {}), "error": error}, ensure_ascii=False,
                              default=str))
    else:
        click.echo(f"memoryd: {message}", err=True)
    sys.exit(code)


def handles_errors(fn: F) -> F:
    """Turn memoryd errors into a one-line message (or a JSON error object) and their exit code."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = bool(kwargs.get("as_json"))
        try:
            if "as_json" not in kwargs:  # daemon, mcp: long-running, their output is not for a person
                return fn(*args, **kwargs)
            from memoryd.cli.progress import progress_for

            # any long work done in this process (an index rebuilt after an upgrade, a big archive write)
            # draws a bar on a terminal; commands may also scope a bar of their own around their work
            with progress_for(as_json):
                return fn(*args, **kwargs)
        except MemorydError as exc:
            fail(exc.message, exc.exit_code, as_json, error_code(exc))
        except KeyboardInterrupt:
            fail("interrupted", 130, as_json, "interrupted")
        except UnicodeError:  # undecodable argv/stdin that slipped past the checks
            fail("input is not valid UTF-8 text", 2, as_json, "usage")
        except OSError as exc:  # disk full, permissions: not the caller's fault
            fail(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""), 1, as_json, "os")

    return wrapper  # type: ignore[return-value]


def get_config() -> Config:
    ctx = click.get_current_context()
    root = ctx.find_root()
    if root.obj is None:
        root.obj = {}
    if "config" not in root.obj:
        root.obj["config"] = load_config()
        if root.obj["config"].section("render"):  # [render] targets follow the hot changes made here
            from memoryd.daemon.render_targets import install

            install(root.obj["config"])
    return root.obj["config"]


def get_api() -> MemoryApi:
    """The command's way to memoryd's operations: the daemon when it runs, else this process (daemon/api.py)."""
    ctx = click.get_current_context()
    root = ctx.find_root()
    config = get_config()
    if "api" not in root.obj:
        from memoryd.daemon.api import connect

        api = root.obj["api"] = connect(config)
        root.call_on_close(api.close)
    return root.obj["api"]


def emit(data: dict[str, Any], as_json: bool, human: Callable[[Any], str] | None = None) -> None:
    """Print `data` as one JSON object carrying the schema version, or in human form."""
    end_bar()
    if as_json:
        if not isinstance(data, dict) or "schema" in data:
            raise TypeError("--json output must be an object without its own 'schema' key")
        click.echo(json.dumps({"schema": JSON_SCHEMA, **data}, ensure_ascii=False, default=str))
    else:
        click.echo(human(data) if human else json.dumps(data, ensure_ascii=False, indent=2, default=str))


def setup_logging(level: str = "WARNING") -> None:
    logging.basicConfig(stream=sys.stderr, level=level.upper(),
                        format="memoryd: %(levelname)s %(name)s: %(message)s")
