"""An entity's name as a person writes it, reduced to one form: case, width, @, hyphens, kind words and company suffixes gone.

`Project Atlas`, `atlas project`, `Atlas项目`, `Ａｔｌａｓ` and `@atlas` all reduce to `atlas`; `Kestrel Cleaning
Ltd` to `kestrel cleaning`; `@alice-chen` to `alice chen`. Lookup (tiers/knowledge/entity_store.py) compares
these forms after the exact name and the aliases recorded at extraction have found nothing.
"""
from __future__ import annotations

import re
import unicodedata

# words that say what kind of thing a name is, not which one: dropped from either end of a name
KIND_WORDS = frozenset("""
project projects repo repos repository codename the
ltd ltd. limited inc inc. incorporated llc l.l.c. gmbh ag sa s.a. bv b.v. plc corp corp. corporation co co. company
""".split())
_REPO_WORDS = frozenset({"repo", "repos", "repository"})
_PROJECT_WORDS = frozenset({"project", "projects", "codename"})
ZH_KIND_WORDS = ("有限责任公司", "有限公司", "股份公司", "公司", "集团", "项目", "仓库", "团队")
_PUNCT = re.compile(r"[\s\"'“”‘’「」《》()（）\[\],;:!?。，、：；！？]+")
_SEPARATORS = re.compile(r"[-_]+")


def light(name: str) -> str:
    """Width, case and spacing folded (NFKC, casefold, one space): how aliases are stored."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def norm(name: str) -> str:
    """The reduced form: light(), no leading @ or `TYPE:`, hyphens and underscores as spaces (not inside a
    repo's owner/name), punctuation gone, kind words and company suffixes dropped from either end."""
    text = light(name).lstrip("@")
    if "/" not in text:
        text = _SEPARATORS.sub(" ", text)
    text = _PUNCT.sub(" ", text).strip(" .")
    for word in ZH_KIND_WORDS:
        if text.endswith(word) and len(text) > len(word):
            text = text[: -len(word)].strip()
            break
    words = text.split()
    while len(words) > 1 and words[0] in KIND_WORDS:
        words.pop(0)
    while len(words) > 1 and words[-1].rstrip(".") in KIND_WORDS | {w.rstrip(".") for w in KIND_WORDS}:
        words.pop()
    return " ".join(w.strip(".") or w for w in words)


def kind_hint(name: str) -> tuple[str, ...]:
    """The entity types a name's kind word points to, most likely first (`atlas-api repo` → repo, then
    project; `Project Orion`, `Kestrel Ltd` → project); () when it has none."""
    words = set(light(name).replace("-", " ").split())
    if words & _REPO_WORDS or "仓库" in name:
        return ("repo", "project")
    company = {w for w in KIND_WORDS if w not in ("the",) and w not in _REPO_WORDS}
    if words & company or any(w in name for w in ZH_KIND_WORDS):
        return ("project",)
    return ()
