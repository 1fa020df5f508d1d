"""Which statements (tiers/knowledge/claims.py) are about the same thing, so that one current truth holds across
wordings: "atlas CI: Buildkite", "we switched the CI for atlas to CircleCI" and "atlas builds run on CircleCI".

Two statements' keys (relation, value shape, subject terms) name one thing when the relation and the shape of
the value are the same ("url", "number", "word": a repository's URL is no new value of its CI) and
  - their subject terms are equal, or
  - one subject is the other with attribute words added ("Bob" / "Bob's team", "Orion" / "Orion hosting
    provider"), unless the shorter subject would join two subjects that are not one
    thing themselves ("Priya" beside "Priya's city" and "Priya's manager": ambiguous, joined to neither), or
  - the two keys have held the same value and share a term that is not an attribute word (the value
    recognised across wordings: "atlas builds" and "atlas CI" were both CircleCI once).
Within a thing the newest statement holds the current value; statements of another value are superseded, and
statements of the same value restate each other. Subjects that share only attribute words ("Alice's team",
"Bob's team") are never one thing.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, Hashable, Iterable

from memoryd.tiers.knowledge.claims import DATE_WORD, VERSIONED, Statement, statement_of
from memoryd.tiers.retrieval import analyzer

Key = tuple[str, str, frozenset[str]]  # relation, value shape, subject terms
SHARED_MAX = 64  # subjects a name may be shared by and still be followed when grouping
# nouns that name an attribute of a thing, not the thing ("the team of Bob" is still Bob's)
ATTRIBUTE_NOUNS = """code pin passcode password combination address phone number mobile email mail birthday age budget
price fee cost rate rent salary charge version release port ip url link host hosting hosted provider vendor supplier
platform service location city country town place office room region zone area home name title role job position
team department group manager boss lead owner contact person status state plan deadline due date time day days
schedule slot weekday hour hours migration upgrade move switch transition cutover rollout relocation ci pipeline
build builds repo repository database db storage server stack language framework editor tool default choice preference setting value current based target destination""".split()
ZH_ATTRIBUTES = frozenset("城市 地址 住址 地点 位置 电话 号码 手机号 邮箱 生日 预算 价格 费用 房租 工资 版本 端口 名字 日期 时间 "
                          "团队 部门 职位 角色 联系人 负责人 密码 供应商 区域 服务器".split())


# attribute words that name one attribute ("the CI" is "the pipeline"), each class by its first word
SAME_ATTRIBUTE = ("ci pipeline build builds", "price fee cost rate charge charges", "city location based town place",
                  "role title position job", "provider host hosting hosted vendor supplier", "team department group",
                  "contact person", "repo repository", "db database", "address location", "day days weekday schedule",
                  "time hour hours slot", "phone mobile number", "email mail",
                  "migration upgrade move switch transition cutover rollout relocation", "城市 地点 位置", "价格 费用",
                  "职位 角色", "团队 部门", "地址 住址")


@functools.lru_cache(maxsize=1)
def attributes() -> frozenset[str]:
    return frozenset(t for w in ATTRIBUTE_NOUNS for t in analyzer.terms(w)) | ZH_ATTRIBUTES


@functools.lru_cache(maxsize=1)
def _canonical() -> dict[str, str]:
    out: dict[str, str] = {}
    for words in SAME_ATTRIBUTE:
        terms = [t for w in words.split() for t in (analyzer.terms(w) or [w])]
        for t in terms:
            out.setdefault(t, f"@{terms[0]}")
    return out


def canonical(subject: frozenset[str]) -> frozenset[str]:
    """Subject terms with each attribute word replaced by its class ("pipeline" → "@ci")."""
    table = _canonical()
    return frozenset(table.get(t, t) for t in subject)


def key_of(s: Statement) -> Key:
    return (s.rel, s.shape, canonical(s.subject))


def restated(a: Statement, b: Statement) -> bool:
    """Two statements of the same value about subjects sharing a word that is not an attribute word, whatever
    their relation ("Bob's allergy: peanuts" / "Bob is allergic to peanuts"): one fact said twice."""
    return a.value == b.value and a.shape == b.shape and bool((a.subject & b.subject) - attributes())


def said_twice(a: Statement, b: Statement, text_a: str, text_b: str) -> bool:
    """One fact in two texts whose subjects the grammar reads apart: the same value, and a URL (one place
    whatever it is called: "atlas-api repository: github.com/acme/atlas-api", "the repo is github.com/acme/…")
    or a name of one subject said in the other text ("Kestrel Cleaning schedule: Monday evenings" / "Kestrel
    asked to switch the cleaning to Monday evenings")."""
    if a.value != b.value or a.shape != b.shape:
        return False
    if a.shape == "url":
        return True
    names_a, names_b = a.subject - attributes(), b.subject - attributes()
    return bool(names_a & set(analyzer.terms(text_b))) or bool(names_b & set(analyzer.terms(text_a)))


def _near(a: Key, b: Key, surnames: dict[str, set[str]]) -> bool:
    """One subject is the other with attribute words added (see the module docstring), or a first name's
    subject beside its full name's ("Priya" / "Priya Natarajan", when the pool names one Priya only)."""
    if a[:2] != b[:2] or a == b:
        return False
    small, large = sorted((a[2], b[2]), key=len)
    if not small or not small < large:
        return False
    extra = {t for t in large - small if t not in attributes() and not t.startswith("@")}
    if not extra:
        return True
    first = {t for t in small if t not in attributes() and not t.startswith("@")}
    return len(first) == 1 and len(extra) == 1 and surnames.get(next(iter(first)), set()) == extra


_FULL_NAME = re.compile(r"\b([A-Z][a-z]{1,20})\s+([A-Z][a-z]{1,30})\b")


def surnames(texts: Iterable[str]) -> dict[str, set[str]]:
    """First name → the second names it is written with ("Priya Natarajan"), as subject terms."""
    out: dict[str, set[str]] = {}
    for text in texts:
        for first, second in _FULL_NAME.findall(text):
            a, b = analyzer.terms(first), analyzer.terms(second)
            if len(a) == 1 and len(b) == 1 and b[0] not in attributes():
                out.setdefault(a[0], set()).add(b[0])
    return out


class Things:
    """The things a pool of memories' statements are about: `thing(id)` → one label per thing, or None."""

    def __init__(self, statements: dict[str, Statement], names: dict[str, set[str]] | None = None) -> None:
        self.statements = statements
        names = names or {}
        values: dict[Key, set[str]] = {}
        for s in statements.values():
            values.setdefault(key_of(s), set()).add(s.value)
        families = {k: {f for v in vs if (f := _family(v))} for k, vs in values.items()}
        self._parent: dict[Key, Key] = {k: k for k in values}
        by_term: dict[str, list[Key]] = {}
        for k in values:
            for t in k[2]:
                by_term.setdefault(t, []).append(k)
        wider_of: dict[Key, list[Key]] = {k: [] for k in values}
        for k in values:
            # a wider subject holds every term of k, its rarest too: only that term's keys are looked at
            rarest = min(k[2], key=lambda t: (len(by_term[t]), t)) if k[2] else None
            for other in by_term.get(rarest, []) if rarest is not None else []:
                if len(other[2]) > len(k[2]) and _near(k, other, names):
                    wider_of[k].append(other)
            # the same value (or family) under subjects sharing a name: a name shared by many subjects
            # ("note" in "Note 12: …") names nothing in particular and is not followed (nor is the pool squared)
            for t in k[2]:
                if len(by_term[t]) > SHARED_MAX or t in attributes() or t.startswith("@"):
                    continue
                for other in by_term[t]:
                    if other != k and k[:2] == other[:2] and not _near(k, other, names) and \
                            _kin(values[k], values[other], families[k], families[other], k[2] ^ other[2]):
                        self._join(k, other)
        for k, wider in wider_of.items():
            if len(wider) > SHARED_MAX or any(not (x[2] <= y[2] or y[2] <= x[2] or self._find(x) == self._find(y))
                                              for i, x in enumerate(wider) for y in wider[i + 1:]):
                continue  # a bare subject beside two different things ("Priya": her city? her manager?): neither
            for o in wider:
                self._join(k, o)

    def _find(self, k: Key) -> Key:
        while self._parent[k] != k:
            self._parent[k] = self._parent[self._parent[k]]
            k = self._parent[k]
        return k

    def _join(self, a: Key, b: Key) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[max(ra, rb, key=_order)] = min(ra, rb, key=_order)

    def thing(self, mid: str) -> Hashable | None:
        s = self.statements.get(mid)
        return None if s is None else self._find(key_of(s))

    def label(self, mid: str) -> str | None:
        """A readable name of the thing (its smallest subject's words), for logs."""
        root = self.thing(mid)
        return None if root is None else " ".join(sorted(root[2]))  # type: ignore[index]

    def same_value(self, a: str, b: str) -> bool:
        """Memories `a` and `b` state the same value of one thing (they restate each other)."""
        ta, tb = self.thing(a), self.thing(b)
        return ta is not None and ta == tb and self.statements[a].value == self.statements[b].value

    def restated(self, a: str, b: str) -> bool:
        """Memories `a` and `b` say one fact twice: the same value of one thing, or see restated()."""
        sa, sb = self.statements.get(a), self.statements.get(b)
        return sa is not None and sb is not None and (self.same_value(a, b) or restated(sa, sb))

    def groups(self) -> dict[Hashable, list[str]]:
        out: dict[Hashable, list[str]] = {}
        for mid in self.statements:
            out.setdefault(self.thing(mid), []).append(mid)
        return out


def _kin(a: set[str], b: set[str], fa: set[str], fb: set[str], apart: frozenset[str]) -> bool:
    """Two keys' values (`a`, `b`; their families `fa`, `fb`) say one kind of thing: a value in common, or values
    of one family — the same words with other numbers ("node 20" / "node 22"), codes of one shape — where the
    subjects' differing terms (`apart`) number nothing ("trip day 3" and "trip day 4" are two days)."""
    if a & b:
        return True
    return bool(fa & fb) and not any(_DIGIT.search(t) for t in apart)


_DIGIT = re.compile(r"\d")
_CODE = re.compile(r"(?=[a-z0-9.:/-]*\d)(?=[a-z0-9.:/-]*[a-z])[a-z0-9]+(?:[-.:/][a-z0-9]+)+")
_NUMBERS = re.compile(r"\d+(?:\.\d+)*")
_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")


def _family(value: str) -> str | None:
    """A value's family: its words with numbers masked ("node #"), or the shape of a code mixing letters, digits
    and punctuation ("eu-central-1" and "ap-southeast-1" are both "a-a-9", as "v1.2.3" and "v2.0.1" are "a9.9.9")."""
    if _CODE.fullmatch(value):
        return "shape " + re.sub(r"[0-9]+", "9", re.sub(r"[a-z]+", "a", value))
    masked = _NUMBERS.sub("#", value)
    return masked if masked != value and _TWO_LETTERS.search(masked) else None


def other_families(a: str, b: str) -> bool:
    """Versions of two products ("node 22", "postgres 16"): one does not replace the other, whatever their
    things. Dates ("june 3", "july 1") and addresses ("12 elm street") are never told apart this way."""
    va, vb = VERSIONED.match(a), VERSIONED.match(b)
    return bool(va and vb) and a.split()[0] != b.split()[0] and not (DATE_WORD.search(a) or DATE_WORD.search(b))


def _named(common: frozenset[str]) -> bool:
    """Common subject terms that name something, not only an attribute."""
    return any(t not in attributes() and not t.startswith("@") for t in common)


def _order(k: Key) -> tuple[int, tuple[str, ...], str, str]:
    return (len(k[2]), tuple(sorted(k[2])), k[0], k[1])


def of_memories(memories: Iterable[dict[str, Any]], text: Callable[[dict[str, Any]], str] = lambda m: m["text"]
                ) -> Things:
    """Things over memories (dicts with an id and a text); memories without a statement are left out."""
    found = {}
    said = []
    for m in memories:
        said.append(text(m))
        s = statement_of(said[-1])
        if s is not None:
            found[m["id"]] = s
    return Things(found, surnames(said))
