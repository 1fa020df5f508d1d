"""Exact pre-checks for regexes: the strings one of which any match must contain, read from the pattern."""
from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

try:  # the stdlib's own pattern parser; without it every gate is open (always runs the regex)
    from re import _constants as C, _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    C = P = None

Needles = frozenset[str]
AUTOMATON_NEEDLES = 6  # a gate with this many needles or more finds them with an automaton (see Gated.absent)
_UNBUILT = object()  # a gate's automaton before its first check


def _caseless_ok(ch: str) -> bool:
    """Under IGNORECASE a literal is checked with lower(): exact for ASCII and for caseless characters."""
    return ch.isascii() or ch.lower() == ch.upper() == ch


def _best(cands: list[Needles]) -> Needles | None:
    return max(cands, key=lambda n: min(map(len, n)), default=None)


def _seq(items: Any, fold: bool) -> Needles | None:
    """Needles of a sequence: its longest run of literals, or a branch/group/repeat every match goes through."""
    cands: list[Needles] = []
    run = ""
    for op, av in items:
        if op is C.LITERAL and (not fold or _caseless_ok(chr(av))):
            run += chr(av).lower() if fold else chr(av)
            continue
        if op in (C.AT, C.ASSERT, C.ASSERT_NOT):
            continue  # zero-width: the literals on both sides stay next to each other
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] >= 1 and len(av[2]) == 1 and av[2][0][0] is C.LITERAL \
                and (not fold or _caseless_ok(chr(av[2][0][1]))):
            ch = chr(av[2][0][1])  # "um+": the run goes on with "m" once, then may repeat
            cands.append(frozenset([run + (ch.lower() if fold else ch) * av[0]]))
            run = ""
            continue
        if run:
            cands.append(frozenset([run]))
            run = ""
        inner = _item(op, av, fold)
        if inner:
            cands.append(inner)
    if run:
        cands.append(frozenset([run]))
    return _best(cands)


def _item(op: Any, av: Any, fold: bool) -> Needles | None:
    if op is C.BRANCH:
        parts = [_seq(branch, fold) for branch in av[1]]
        return None if any(p is None for p in parts) else frozenset().union(*parts)  # type: ignore[arg-type]
    if op is C.SUBPATTERN:
        _group, add, remove, inner = av
        return None if (add | remove) & re.IGNORECASE else _seq(inner, fold)  # (?i:...) changes the rules
    if op in (C.MAX_REPEAT, C.MIN_REPEAT) and av[0] >= 1:
        return _seq(av[2], fold)
    if op is C.IN and all(o is C.LITERAL and (not fold or _caseless_ok(chr(a))) for o, a in av):
        return frozenset(chr(a).lower() if fold else chr(a) for _, a in av)
    return None


def needles(rx: re.Pattern[str]) -> Needles | None:
    """Strings one of which every match of `rx` contains (lowercase when it ignores case), or None."""
    parsed = _parsed(rx.pattern, rx.flags)
    return None if parsed is None else _needles(parsed, bool(rx.flags & re.IGNORECASE))


def _parsed(pattern: str, flags: int) -> Any:
    """The stdlib parser's reading of a pattern, or None (no parser, or one that reads it differently)."""
    if P is None:
        return None
    try:
        return P.parse(pattern, flags)
    except Exception:
        return None


def _needles(parsed: Any, fold: bool) -> Needles | None:
    if parsed.state.flags & re.VERBOSE:
        return None
    try:
        return _seq(parsed, fold)
    except Exception:  # a pattern the walk does not know: no shortcut
        return None


class Gated:
    """`rx.search` that answers None without running the regex when the text lacks all its needles.

    Exact: with IGNORECASE the check runs only on ASCII text (where re folds just A-Z, as lower() does).
    Given its source (a string and flags), the regex is compiled when a text first gets through the gate: a
    process that reads a few sentences (a CLI store, a hook) compiles the few regexes they open, not all."""

    rx: re.Pattern[str]

    def __init__(self, rx: re.Pattern[str] | str, flags: int = 0) -> None:
        if not isinstance(rx, str):
            self.rx = rx
        self._source = (rx, flags) if isinstance(rx, str) else (rx.pattern, rx.flags)
        parsed = _parsed(*self._source)
        if parsed is None:  # no shortcut: compiled now (re.compile says what is wrong with a bad pattern, here)
            self.rx = re.compile(*self._source)
            self.needles, self.fold = None, bool(self.rx.flags & re.IGNORECASE)
        else:
            self.fold = bool(parsed.state.flags & re.IGNORECASE)  # inline flags counted: `(?i)…`
            self.needles = _needles(parsed, self.fold)
        # many needles (a vocabulary's alternation) are looked for in one automaton pass: 0.6-1.3 µs a
        # sentence where testing them one by one took 1-3 µs (14 and 23 needles); a few are quicker one by one.
        # Built on the first check: most gates are only ever checked together (GateSet), never alone
        many = self.needles is not None and len(self.needles) >= AUTOMATON_NEEDLES
        self.finder: Any = _UNBUILT if many else None

    def __getattr__(self, name: str) -> re.Pattern[str]:
        """`rx` on first use: compiled once, then an attribute like any other (no call on the rules' hot path)."""
        if name != "rx":
            raise AttributeError(name)
        self.rx = re.compile(*self._source)
        return self.rx

    def absent(self, text: str, low: str | None = None) -> bool:
        """True when `rx` cannot match `text` (`low`: text.lower(), if the caller has it already)."""
        if self.needles is None or (self.fold and not text.isascii()):
            return False
        hay = (text.lower() if low is None else low) if self.fold else text
        finder = self.finder
        if finder is _UNBUILT:
            finder = self.finder = _finder(dict.fromkeys(self.needles, True))  # None without the package
        if finder is not None:
            return next(finder.iter(hay), None) is None
        return not any(map(hay.__contains__, self.needles))

    def search(self, text: str) -> re.Match[str] | None:
        return None if self.absent(text) else self.rx.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return iter(()) if self.absent(text) else self.rx.finditer(text)


class GateSet:
    """Gates checked together: the needles of all of them found in one pass over a text (see Scan),
    instead of a pass per gate that lowercases the text again and walks its needles each time.

    The pass is an Aho-Corasick automaton (pyahocorasick, C): every needle of ~200 found in ~1 µs of
    an 80-character text, where testing `needle in text` one by one took ~5 µs and was the rules' largest
    single cost. Without the package the needles are tested one by one (the same sets, slower)."""

    def __init__(self, gates: Iterable[Gated], automaton: bool = True) -> None:
        self.members = frozenset(gates)
        self.unguarded = frozenset(g for g in self.members if g.needles is None)  # always run
        self.folding = frozenset(g for g in self.members if g.fold and g.needles is not None)
        self.by_fold: dict[str, frozenset[Gated]] = _index(g for g in self.members - self.unguarded if g.fold)
        self.by_raw: dict[str, frozenset[Gated]] = _index(g for g in self.members - self.unguarded if not g.fold)
        self.fold = tuple(sorted(self.by_fold))
        self.raw = tuple(sorted(self.by_raw))
        self.raw_ascii = tuple(n for n in self.raw if n.isascii())  # all an ASCII text can hold
        self.fold_finder = _finder(self.by_fold) if automaton else None
        self.raw_finder = _finder(self.by_raw) if automaton else None

    def scan(self, text: str, low: str | None = None) -> Scan:
        return Scan(self, text, low)


def _index(gates: Iterable[Gated]) -> dict[str, frozenset[Gated]]:
    """needle → the gates it opens."""
    out: dict[str, set[Gated]] = {}
    for g in gates:
        for n in g.needles or ():
            out.setdefault(n, set()).add(g)
    return {n: frozenset(gs) for n, gs in out.items()}


def _finder(by_needle: dict[str, Any]) -> Any:
    """An automaton whose matches in a text are the gate sets of the needles it holds (every
    occurrence, overlapping ones too), or None without needles or without the package."""
    if not by_needle or any(not n for n in by_needle):
        return None
    try:
        import ahocorasick
    except ImportError:
        return None
    finder = ahocorasick.Automaton()
    for needle, gates in by_needle.items():
        finder.add_word(needle, gates)
    finder.make_automaton()
    return finder


def _find(found: set[Gated], finder: Any, by_needle: dict[str, frozenset[Gated]], needles: tuple[str, ...],
          hay: str) -> None:
    """Add to `found` the gates of the needles `hay` holds."""
    if finder is not None:
        for _end, gates in finder.iter(hay):
            found |= gates
        return
    for n in needles:
        if n in hay:
            found |= by_needle[n]


class Scan:
    """One text against a GateSet: `search(gate)` is `gate.search(text)`. The needles the text holds
    are found once, on first use, and give the set of gates that may match (`open`)."""

    __slots__ = ("gates", "text", "low", "_open")

    def __init__(self, gates: GateSet, text: str, low: str | None = None) -> None:
        self.gates, self.text, self.low = gates, text, low
        self._open: set[Gated] | None = None

    @property
    def open(self) -> set[Gated]:
        """The member gates whose regex may match the text (Gated.absent is False for each of them)."""
        if self._open is None:
            gates, text = self.gates, self.text
            found = set(gates.unguarded)
            if text.isascii():
                low = self.low = text.lower() if self.low is None else self.low
                _find(found, gates.fold_finder, gates.by_fold, gates.fold, low)
                _find(found, gates.raw_finder, gates.by_raw, gates.raw_ascii, text)
            else:
                found |= gates.folding  # as Gated.absent: no shortcut for case folding beyond ASCII
                _find(found, gates.raw_finder, gates.by_raw, gates.raw, text)
            self._open = found
        return self._open

    def closed(self, gate: Gated) -> bool:
        """Gated.absent(text), from the found needles."""
        if gate not in self.gates.members:
            return gate.absent(self.text, self.low)
        return gate not in (self._open if self._open is not None else self.open)

    def search(self, gate: Gated) -> re.Match[str] | None:
        """`gate.search(text)`. closed() written out: the rules ask ~14 gates a sentence, most of them closed,
        and two calls more per question were a tenth of this module's cost."""
        if gate in self.gates.members:
            found = self._open if self._open is not None else self.open
            return gate.rx.search(self.text) if gate in found else None
        return None if gate.absent(self.text, self.low) else gate.rx.search(self.text)
