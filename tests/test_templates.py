"""Templates: the four note kinds, their sections, and YAML-safe values."""

from __future__ import annotations

from datetime import date

import pytest

from vaultmem.notes import frontmatter, sections, templating

DATES = {"created": "2026-11-22", "updated": "2026-11-22", "claude_last_accessed": "2026-11-22"}


def _titles(text: str) -> list[str]:
    return [h.title for h in sections.headings(text) if h.level == 2]


def test_session_template_has_schema_and_sections() -> None:
    text = templating.render(
        "session", project="demo", session_ids=["abc-123"], title="Auth work",
        context="Started.", **DATES,
    )
    meta = frontmatter.parse(text)
    assert meta["type"] == "session"
    assert meta["project"] == "demo"
    assert meta["tags"] == ["claude/session"]
    assert meta["created"] == date(2026, 11, 22)
    assert meta["status"] == "active"
    assert meta["session_ids"] == ["abc-123"]
    assert "session_ids:\n  - abc-123\n" in text  # a block list
    assert _titles(text) == [
        "Context", "Work Log", "Decisions Made", "Gotchas & Fixes", "Prerequisites",
        "Open Questions", "Next Steps", "Related Entities",
    ]
    assert "\n# Auth work\n\n## Context\n\nStarted.\n\n## Work Log\n\n## Decisions Made\n" in text
    assert text.endswith("## Related Entities\n") and "\n\n\n" not in text


def test_entity_template_sections() -> None:
    text = templating.render("entity", project="demo", title="Auth", overview="About auth.", **DATES)
    assert frontmatter.parse(text)["type"] == "entity"
    assert _titles(text) == [
        "Overview", "Key Decisions", "Gotchas & Troubleshooting", "Recent Changes",
        "Related Entities", "References",
    ]


@pytest.mark.parametrize("kind", ["topic", "project-index"])
def test_other_templates_parse(kind: templating.Kind) -> None:
    text = templating.render(kind, project="demo", title="T", overview="O", **DATES)
    assert frontmatter.parse(text)["type"] == kind
    assert "\n\n\n" not in text


@pytest.mark.parametrize("value", ["a: b # c", "yes", "10:00", "[[Link]]", "#tag", " padded "])
def test_yaml_values_are_emitted_safely(value: str) -> None:
    text = templating.render(
        "session", project=value, session_ids=[value], title="t", context="c", **DATES
    )
    meta = frontmatter.parse(text)
    assert meta["project"] == value
    assert meta["session_ids"] == [value]


def test_body_values_are_pasted_verbatim() -> None:
    text = templating.render("entity", project="p", title="{odd} }{", overview="x", **DATES)
    assert "\n# {odd} }{\n" in text


def test_missing_value_names_the_placeholder() -> None:
    with pytest.raises(KeyError, match="overview"):
        templating.render("entity", project="p", title="t", **DATES)
    with pytest.raises(KeyError, match="created"):
        templating.render("entity", project="p", title="t", overview="o")


def test_unknown_kind() -> None:
    with pytest.raises(KeyError):
        templating.render("nope", title="x")  # type: ignore[arg-type]
