"""Completeness checks for notes (seed 002 v2.1): deployments/links/commands without the URL or command, no next steps."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from memoryd.tiers.distillation.distill import extract_commands, extract_urls
from memoryd.tiers.base.errors import UsageError

MAX_NOTE_BYTES = 4 * 1024 * 1024

_DEPLOY = re.compile(r"\b(?:deploy(?:ed|ing|s|ment)?|released?|shipped|launched|rolled out|went live|published)\b"
                     r"|部署|上线|发布", re.IGNORECASE)
_LINK = re.compile(r"\b(?:links?|urls?|website|web ?page|docs|documentation|dashboard|repo|repository|pull request|"
                   r"PR|merge request|MR|ticket|issue|spreadsheet|google doc|figma|wiki)\b|链接|网址|文档|仓库|页面|看板",
                   re.IGNORECASE)
_COMMAND = re.compile(r"\b(?:ran|run(?:ning)?|executed?|command|script|installed|reinstalled|restarted|migrated|"
                      r"invoked|cli|terminal|shell)\b|执行|运行|命令|脚本|安装|重启|迁移", re.IGNORECASE)
_NEXT = re.compile(r"\b(?:next steps?|todo|to-do|to do|follow[- ]?ups?|action items?|tomorrow|plan(?:ned)? to|"
                   r"will|need to|should)\b|\bnext\s*:|- \[ \]|下一步|待办|后续|计划|明天|需要|跟进", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE = re.compile(r"`[^`\n]+`")
_NEGATED = re.compile(r"\b(?:no|not|never|didn't|don't|without)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)

SUGGEST = {
    "deployment_without_url": "add where it runs (the URL of the deployment) so it can be found later",
    "link_without_url": "paste the actual URL next to the mention",
    "command_without_command": "write the exact command in `backticks` so it can be re-run",
    "missing_next_steps": "add a `## Next steps` section (or `- [ ]` items) with what happens next",
}


def _sections(text: str) -> list[tuple[int, str, list[tuple[int, str]]]]:
    """(heading line, title, [(line, text)]) for each section; code-fence lines are kept as text."""
    sections: list[tuple[int, str, list[tuple[int, str]]]] = [(0, "", [])]
    fence = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        marker = bool(_FENCE.match(line))
        h = None if (fence or marker) else _HEADING.match(line)
        fence = fence != marker
        if h:
            sections.append((lineno, h.group(1).strip(), []))
        else:
            sections[-1][2].append((lineno, line))
    return sections


def _first_hit(rx: re.Pattern[str], lines: list[tuple[int, str]]) -> tuple[int, str] | None:
    for lineno, line in lines:
        prose = _CODE.sub(" ", line)
        m = rx.search(prose)
        if m and not _NEGATED.search(prose[: m.start()]):
            return lineno, m.group(0)
    return None


def _warning(kind: str, line: int | None, section: str, found: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "line": line, "section": section, "mention": found, "message": message,
            "suggestion": SUGGEST[kind]}


def _section_warnings(title: str, scan: list[tuple[int, str]], whole: str) -> list[dict[str, Any]]:
    has_url = bool(extract_urls(whole))
    has_cmd = bool(extract_commands(whole)) or bool(_CODE.search(whole)) or any(_FENCE.match(ln) for _, ln in scan)
    out = []
    checks = (("deployment_without_url", _DEPLOY, not has_url, "a deployment", "URL"),
              ("link_without_url", _LINK, not has_url, "a link", "URL"),
              ("command_without_command", _COMMAND, not has_cmd, "a command", "command"))
    for kind, rx, missing, what, wanted in checks:
        hit = _first_hit(rx, scan) if missing else None
        if hit:
            out.append(_warning(kind, hit[0], title, hit[1], f"mentions {what} ({hit[1]!r}) but gives no {wanted}"))
    if {w["kind"] for w in out} >= {"deployment_without_url", "link_without_url"}:
        out = [w for w in out if w["kind"] != "link_without_url"]  # one missing URL, one warning
    return out


def validate_note(text: str) -> list[dict[str, Any]]:
    """Warnings (dicts with kind, line, section, mention, message, suggestion) in line order."""
    warnings: list[dict[str, Any]] = []
    substantive = False
    for head_line, title, lines in _sections(text or ""):
        body = "\n".join(ln for _, ln in lines)
        substantive = substantive or bool(body.strip())
        scan = ([(head_line, title)] if title else []) + lines
        warnings += _section_warnings(title, scan, f"{title}\n{body}")
    if substantive and not _NEXT.search(_CODE.sub(" ", text or "")):
        warnings.append(_warning("missing_next_steps", None, "", "", "no next steps: nothing says what happens next"))
    return sorted(warnings, key=lambda w: (w["line"] is None, w["line"] or 0))


def validate_file(path: str | Path) -> list[dict[str, Any]]:
    """validate_note on a file; an unreadable or non-UTF-8 file is bad input (UsageError)."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_NOTE_BYTES:
            raise UsageError(f"{path} is larger than {MAX_NOTE_BYTES // (1024 * 1024)} MB")
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise UsageError(f"cannot read {path}: is a directory") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {path}: not UTF-8 text") from None
    return validate_note(text)
