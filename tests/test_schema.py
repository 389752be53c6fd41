"""The vocabulary: the templates hold schema's sections, and nothing else in vaultmem/ spells one."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from vaultmem.notes import schema, templating
from vaultmem.notes.schema import Kind

PACKAGE = Path(schema.__file__).resolve().parents[1]
SECTION_NAMES = frozenset({
    *schema.SESSION_SECTIONS, *schema.ENTITY_SECTIONS, schema.COMPACT_SUMMARIES,
    schema.DECISIONS, schema.GOTCHAS, schema.KEY_ENTITIES,
})
KIND_SPELLINGS = frozenset({*(k.value for k in Kind), "next_step"})
# Strings that spell a kind's word and mean something else, by module.
NOT_A_KIND = {
    "mining/structured.py": {"question"},  # the key of an AskUserQuestion tool input
    "store/config.py": {"gotcha"},  # a word that marks a work-log entry as a gotcha
    "memory/bases.py": {"Decisions", "Gotchas"},  # the titles of columns counting them
}


def _headings(text: str) -> tuple[str, ...]:
    return tuple(m.group(1) for m in re.finditer(r"^## (.+)$", text, re.MULTILINE))


def test_the_session_template_holds_the_session_sections_in_order() -> None:
    assert _headings(templating.source("session")) == schema.SESSION_SECTIONS


def test_the_entity_template_holds_the_entity_sections_in_order() -> None:
    assert _headings(templating.source("entity")) == schema.ENTITY_SECTIONS


def test_each_kind_has_its_session_section_in_the_template_order() -> None:
    sections = schema.SESSION_SECTIONS
    assert list(schema.SESSION_SECTION) == list(Kind)
    order = [sections.index(schema.SESSION_SECTION[k]) for k in Kind]
    assert order == sorted(order)


@pytest.mark.parametrize("spelled", ["next-step", "next_step", "Next_Step", " next step "])
def test_a_kind_reads_in_either_spelling(spelled: str) -> None:
    assert schema.kind(spelled) is Kind.NEXT_STEP
    assert Kind(spelled) is Kind.NEXT_STEP


def test_a_kind_is_written_in_its_canonical_spelling() -> None:
    assert str(Kind.NEXT_STEP) == f"{Kind.NEXT_STEP}" == Kind.NEXT_STEP.value == "next-step"


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown kind 'hunch'; known: decision, gotcha"):
        schema.kind("hunch")


def _literals(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are no docstring, with their lines."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value) for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


# A regex alternation ("(?:decision|gotcha|…)"): two kinds spelled in one is a vocabulary.
_ALTERNATION = re.compile(r"\((?:\?[:i]*:?)?([^()]*\|[^()]*)\)")


def _alternated_kinds(value: str) -> bool:
    for group in _ALTERNATION.finditer(value):
        words = {w.strip().removesuffix("s?").casefold() for w in group.group(1).split("|")}
        if len(words & KIND_SPELLINGS) >= 2:
            return True
    return False


def _spelled(value: str, allowed: set[str]) -> bool:
    if value in allowed:
        return False
    if value in SECTION_NAMES or value in KIND_SPELLINGS or _alternated_kinds(value):
        return True
    return any(re.search(rf"^#+ {re.escape(name)}\s*$", value, re.MULTILINE)
               for name in SECTION_NAMES)


def test_no_module_but_schema_spells_a_section_name_or_a_kind() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "notes/schema.py":
            continue
        allowed = NOT_A_KIND.get(rel, set())
        found += [f"{rel}:{line}: {value[:60]!r}" for line, value in _literals(path)
                  if _spelled(value, allowed)]
    assert found == []


def test_the_grep_finds_a_spelled_section_and_kind(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Doc: ## Key Decisions."""\nA = "Key Decisions"\nB = "next_step"\n'
                      'C = "# T\\n\\n## Work Log\\n"\n'
                      'D = r"^(?:decision|gotcha|prereq)s?:"\nE = r"(?:chose|decision)"\n', "utf-8")
    spelled = [v for _, v in _literals(module) if _spelled(v, set())]
    assert spelled == ["Key Decisions", "next_step", "# T\n\n## Work Log\n",
                       "^(?:decision|gotcha|prereq)s?:"]
