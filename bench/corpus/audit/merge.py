"""bench/corpus ← the blind audits: every @entity line of /work/audit2 (entity audit of the 12 older files) or
/work/audit3 (the 4 newer held files), and the tags /work/audit2 added to lines — only where a tag writes its
value as the file's own tags already wrote it for that topic (a new short spelling such as "5号" or "明天" would
widen what the judge takes for a value)."""
import re, sys
from pathlib import Path
sys.path.insert(0, "/work/main")
from bench.corpus.parse import parse

A2, A3, OUT = Path("/work/audit2"), Path("/work/audit3"), Path("/work/main/bench/corpus")
TAGS = re.compile(r"\s*\{([^{}]*)\}\s*$")
kept = dropped = 0
for f in sorted(A2.glob("*.convo")):
    orig_path = OUT / f.name
    orig = orig_path.read_text(encoding="utf-8").splitlines(keepends=True)
    conv = parse(orig_path)
    forms: dict[str, set[str]] = {}
    for t in conv.turns:
        for s in t.said:
            forms.setdefault(s.topic, set()).update({s.written.casefold(), s.value.casefold()})
    audit = f.read_text(encoding="utf-8").splitlines(keepends=True)
    ents_src = (A3 / f.name) if (A3 / f.name).exists() else f
    ents = [l for l in ents_src.read_text(encoding="utf-8").splitlines(keepends=True) if l.startswith("@entity")]
    o_body = [l for l in orig if not l.startswith("@entity")]
    a_body = [l for l in audit if not l.startswith("@entity")]
    assert len(o_body) == len(a_body), f.name
    out = []
    for o, a in zip(o_body, a_body):
        if o == a:
            out.append(o); continue
        mo, ma = TAGS.search(o), TAGS.search(a)
        text = o[:mo.start()] if mo else o.rstrip("\n")
        assert (a[:ma.start()] if ma else a.rstrip("\n")).rstrip() == text.rstrip(), (f.name, o, a)
        old = [t.strip() for t in mo.group(1).split(";")] if mo else []
        new = [t.strip() for t in ma.group(1).split(";") if t.strip() not in old]
        good = []
        for t in new:
            key, _, value = t.partition("=")
            value, _, written = value.partition("=")
            form = (written or value).strip().casefold()
            if form in forms.get(key.strip(), set()):
                good.append(t); kept += 1
            else:
                dropped += 1
        tags = old + good
        out.append(text.rstrip() + (f"   {{{'; '.join(tags)}}}" if tags else "") + "\n")
    first = next(i for i, l in enumerate(orig) if l.startswith("@entity"))
    lines = out[:first] + ents + out[first:]
    orig_path.write_text("".join(lines), encoding="utf-8")
print("tags kept", kept, "dropped", dropped)
