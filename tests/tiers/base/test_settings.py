"""config.toml's sections as typed objects: one field per schema key, values from file and environment."""
from __future__ import annotations

import dataclasses
import types
import typing

import pytest

from memoryd.tiers.base import settings
from memoryd.tiers.base.config import Config, load_config
from memoryd.tiers.base.config_schema import AGENT_ID_RE, SCHEMA


def test_every_section_has_a_typed_class_with_exactly_the_schema_keys():
    assert set(settings.SECTIONS) == {name for name in SCHEMA if name}
    for name, cls in settings.SECTIONS.items():
        assert [f.name for f in dataclasses.fields(cls)] == list(SCHEMA[name]), name
        assert cls.__dataclass_params__.frozen, name


def test_field_types_fit_the_schema_defaults():
    for name, cls in settings.SECTIONS.items():
        hints = typing.get_type_hints(cls)
        section = settings.build(name, {k: spec.default for k, spec in SCHEMA[name].items()})
        for key, spec in SCHEMA[name].items():
            value = getattr(section, key)
            hint = hints[key]
            allowed = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
            assert any(isinstance(value, typing.get_origin(t) or t) for t in allowed), \
                (name, key, value, hints[key])


def test_values_come_from_the_file_and_the_environment_once(home):
    (home).mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[watch]\nquiet_seconds = 7\n[render]\ntargets = ['claude']\n")
    config = load_config({"MEMORYD_HOME": str(home), "MEMORYD_WATCH_BACKEND": "watchfiles",
                          "MEMORYD_LLM_MODEL": "tiny"})
    assert config.watch.quiet_seconds == 7.0 and config.watch.backend == "watchfiles"
    assert config.llm.model == "tiny"
    assert config.render.targets == ("claude",)
    assert config.warm.grace_hours == 24.0  # default filled in
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.watch.quiet_seconds = 1.0  # type: ignore[misc]


def test_a_config_built_by_hand_gets_defaults_for_missing_sections(tmp_path):
    config = Config(home=tmp_path, db_url=f"file:{tmp_path / 'cold.db'}", sections={"warm": {"grace_hours": 2.0}})
    assert config.warm.grace_hours == 2.0
    assert config.schedule.daily == SCHEMA["schedule"]["daily"].default


def test_one_agent_id_pattern():
    from memoryd.tiers.base import config as config_module

    assert config_module.AGENT_ID_RE is AGENT_ID_RE
    assert AGENT_ID_RE.fullmatch("a-1_b") and not AGENT_ID_RE.fullmatch("-x")


def test_secrets_and_hooks_of_the_environment_are_read_with_the_config(home):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("[llm]\napi_key_env = 'MY_LLM_KEY'\n")
    env = {"MEMORYD_HOME": str(home), "MY_LLM_KEY": "sk-secret", "MEMORYD_KEY": "k" * 10,
           "MEMORYD_CLOCK_FILE": str(home / "clock")}
    config = load_config(env)
    assert (config.llm_api_key, config.recovery_key, config.clock_file) == ("sk-secret", "k" * 10, home / "clock")
    assert "sk-secret" not in repr(config) and "k" * 10 not in repr(config)
    bare = load_config({"MEMORYD_HOME": str(home)})
    assert (bare.llm_api_key, bare.recovery_key, bare.clock_file) == (None, None, None)
