"""bench/corpus <- the fourth blind entity audit (/work/audit4): only @entity lines may differ; the holidays one
auditor of seven declared (the others treated them like weekdays and months) are left out, so every file is
audited to one standard."""
import sys, re
from pathlib import Path
A, OUT = Path("/work/audit4"), Path("/work/main/bench/corpus")
HOLIDAYS = {"Christmas", "New Year", "Valentine's Day", "五一", "国庆", "儿童节", "元旦", "春节", "過年", "新年"}
added = aliases = 0
for f in sorted(A.glob("*.convo")):
    orig = (OUT / f.name).read_text(encoding="utf-8").splitlines(keepends=True)
    new = f.read_text(encoding="utf-8").splitlines(keepends=True)
    o_body = [l for l in orig if not l.startswith("@entity")]
    n_body = [l for l in new if not l.startswith("@entity")]
    assert o_body == n_body, f.name
    o_ents = [l for l in orig if l.startswith("@entity")]
    n_ents = [l for l in new if l.startswith("@entity")
              and l[7:].split("|")[0].strip() not in HOLIDAYS]
    added += sum(1 for l in n_ents if l not in o_ents and l[7:].split("|")[0].strip() not in
                 {x[7:].split("|")[0].strip() for x in o_ents})
    aliases += sum(1 for l in n_ents if l not in o_ents and l[7:].split("|")[0].strip() in
                   {x[7:].split("|")[0].strip() for x in o_ents})
    first = next(i for i, l in enumerate(new) if l.startswith("@entity"))
    rest = [l for l in new[first:] if not l.startswith("@entity")]
    out = new[:first] + n_ents + rest
    # the @entity block must be contiguous in the copy for this to keep the order
    assert [l for l in out if not l.startswith("@entity")] == o_body, f.name
    (OUT / f.name).write_text("".join(out), encoding="utf-8")
print("declarations added", added, "declarations changed (aliases)", aliases)
