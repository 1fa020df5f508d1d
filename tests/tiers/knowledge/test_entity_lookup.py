"""Names as people write them find their entity (kind words, suffixes, case, width, @handles, scripts), the
rules' precision on realistic sentences, and `entity show`'s page path beside reflect's `-type` suffix."""
from __future__ import annotations

import pytest

from bench.entity_cases import score
from clock import Clock
from memhelp import AgentMemory
from memoryd.tiers.base.errors import UsageError
from memoryd.tiers.cold.index_schema import LOCAL_VERSION
from memoryd.tiers.knowledge import entities
from memoryd.tiers.knowledge.entity_lookup import lookup
from memoryd.tiers.knowledge.entity_names import norm
from memoryd.tiers.knowledge.entity_rules import TYPES, extract, read
from memoryd.tiers.knowledge.reflect import reflect


def test_rules_precision_on_realistic_sentences() -> None:
    got = score(extract, TYPES)
    assert got["sentences"] >= 30
    assert got["precision"] >= 0.97 and got["person_precision"] >= 0.97, got["wrong"]
    assert got["recall"] >= 0.9, got["wrong"]
    assert extract("Let's talk about Orion tomorrow.") == []


def test_tags_meet_the_name_the_text_writes() -> None:
    r = read("@alice-chen: Weekly 1:1 with Alice Chen on Mondays.", {"entities": ["alice-chen"]})
    assert [(e.type, e.name) for e in r.entities] == [("person", "Alice Chen")]
    assert r.aliases == {"person:alice chen": ("alice-chen",)}
    r = read("@kestrel: Kestrel Cleaning visits on Friday afternoons.", {"entities": ["kestrel"]})
    assert [(e.type, e.name) for e in r.entities] == [("org", "Kestrel Cleaning")]  # a company word: an organisation
    assert r.aliases == {"org:kestrel cleaning": ("kestrel",)}
    r = read("Zhang Wei (张伟) said the frontend is done", None)
    assert r.aliases == {"person:zhang wei": ("张伟",)}
    assert norm("Kestrel Cleaning Ltd.") == "kestrel cleaning" and norm("Atlas项目") == "atlas"
    assert norm("ＰＲＯＪＥＣＴ Atlas") == "atlas" and norm("acme/atlas-api repo") == "acme/atlas-api"


@pytest.fixture
def known(config, archive):
    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    mem.store("We kicked off project Atlas today", "work")
    mem.store("Kestrel Cleaning visits on Friday afternoons.", "home", metadata={"entities": ["kestrel"]})
    mem.store("Weekly 1:1 with Alice Chen on Mondays.", "people", metadata={"entities": ["alice-chen"]})
    mem.store("Zhang Wei (张伟) said the frontend is done", "people")
    mem.store("Call with Orion tomorrow.", "people")  # a person called Orion ...
    mem.store("The Orion project moved to Hetzner", "work")  # ... and a project
    mem.store("Notes from the sam-lee project", "work")
    mem.store("Dinner with Sam Lee.", "people")
    mem.store("My dad's hip check-up is at the Elm Street clinic on May 3", "family")  # the owner's dad, three ways
    mem.store("Dad says the garden fence needs paint", "family")
    mem.store("我爸下周来杭州", "family")
    entities.refresh(archive, "a", mem.read_state()["warm"]["entries"])
    return lambda name: [e.key for e in lookup(archive, "a", name, clock())]


@pytest.mark.parametrize("name, key", [
    ("atlas", "project:atlas"), ("Project Atlas", "project:atlas"), ("atlas project", "project:atlas"),
    ("ＡＴＬＡＳ", "project:atlas"), ("Atlas项目", "project:atlas"), ("project:Project Atlas", "project:atlas"),
    ("Kestrel Cleaning", "org:kestrel cleaning"), ("kestrel cleaning ltd", "org:kestrel cleaning"),
    ("@kestrel", "org:kestrel cleaning"),
    ("Alice Chen", "person:alice chen"), ("@alice-chen", "person:alice chen"), ("ALICE_CHEN", "person:alice chen"),
    ("张伟", "person:zhang wei"), ("Zhang Wei", "person:zhang wei"),
    ("Project Orion", "project:orion"), ("person:Orion", "person:orion"),
    ("dad", "person:dad"), ("my dad", "person:dad"), ("我爸", "person:dad"),  # one person, every way it is said
])
def test_a_name_as_a_person_writes_it_finds_the_entity(known, name: str, key: str) -> None:
    assert known(name)[0] == key


def test_unknown_and_ambiguous_names(known) -> None:
    assert known("Nobody at all") == [] and known("project") == []
    assert sorted(known("orion")) == ["person:orion", "project:orion"]  # the exact name keeps its old answer
    with pytest.raises(UsageError) as err:
        known("SAM_LEE")  # neither spelling exactly: the person and the project are both "sam lee"
    assert "person:sam lee" in err.value.message and "project:sam-lee" in err.value.message
    assert "\n" not in err.value.message


def test_show_page_path_honours_the_type_suffix(config, archive) -> None:
    from memoryd.daemon.api import in_process

    clock = Clock()
    mem = AgentMemory(config, "a", archive=archive, clock=clock)
    for i in range(11):
        mem.store(f"Call {i} with Nova about the roadmap", "people")
        mem.store(f"Sprint {i} of project Nova is done", "work")
    done = reflect(mem, archive, clock(), 7)
    folder = mem.dir / "bank" / "entities"
    assert sorted(p.name for p in folder.glob("*.md")) == ["Nova-project.md", "Nova.md"], done
    archive.close()
    api = in_process(config)
    shown = {k: api.call("entity_show", {"agent_id": "a", "name": k}) for k in ("person:nova", "project:nova")}
    assert shown["person:nova"]["page"] == str(folder / "Nova.md")
    assert shown["project:nova"]["page"] == str(folder / "Nova-project.md")
    # the person's page stays the person's when the project alone is active next time
    (folder / "Nova-project.md").unlink()
    from memoryd.tiers.knowledge.reflect import _slugs
    from memoryd.tiers.knowledge.entity_store import EntityRow

    project = EntityRow("project:nova", "Nova", "project", 0.6, 11, 0, 0)
    assert _slugs([project], [folder]) == {"project:nova": "Nova-project"}


def test_an_index_of_the_first_v3_release_gets_aliases_and_new_rules(config, archive) -> None:
    clock = Clock()
    archive.put("a", [{"id": "c1", "text": "Let's ask @kestrel: Kestrel Cleaning visits on Fridays", "category": "home",
                       "created_at": int(clock()), "metadata": {"entities": ["kestrel"]}}])
    entities.refresh(archive, "a", [])
    with archive.tx() as conn:  # back to what main's v3 held: no alias table, no rules mark, an older reading
        conn.execute("DROP TABLE entity_aliases")
        conn.execute("DELETE FROM index_meta WHERE key = 'entity_rules:a'")
        conn.execute("UPDATE entity_seen SET sig = 'rules-1' WHERE memory_id = 'c1'")
    assert archive.read("PRAGMA user_version")[0][0] == LOCAL_VERSION
    assert entities.refresh(archive, "a", [])["read"] == 1  # read again under the new rules
    assert [e.key for e in lookup(archive, "a", "Kestrel Cleaning Ltd", clock())] == ["org:kestrel cleaning"]
    assert "Let" not in {e.name for e in entities.entity_list(archive, "a", clock())}
    assert entities.refresh(archive, "a", [])["read"] == 0
