"""The naive full-text floor of ``python -m bench.eval_real``: what a plain search over the raw
transcripts finds, with no vaultmem involved.

An in-memory SQLite FTS5 table holds one row per line of assistant text and one per prompt (a
user message the user typed: not a tool result, a meta line or a compact summary) of every
transcript of a part. Each fact's query is asked as its words joined by OR (any word may match;
FTS5's bm25 ranks the rows holding more of them, and rarer ones, first), and the fact counts as
found when its proof words are all in one of the first five rows: the rule ``eval_real`` applies
to what ``vaultmem recall`` shows. A row is shown whole, as a search over lines would print it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bench.real_corpus import RealFact, holds, is_prompt

TOP = 5
_WORD = re.compile(r"\w+")


def rows(raw_lines: Iterable[str]) -> list[str]:
    """The searchable rows of one transcript: each non-empty line of assistant text, each
    prompt whole."""
    found: list[str] = []
    for raw in raw_lines:
        try:
            row = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        if row.get("type") == "assistant":
            found += [line.strip() for text in _texts(row) for line in text.splitlines()
                      if line.strip()]
        elif is_prompt(row):
            found += [text.strip() for text in _texts(row) if text.strip()]
    return found


def _texts(row: Mapping[str, Any]) -> list[str]:
    content = (row.get("message") or {}).get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [str(b.get("text", "")) for b in content
            if isinstance(b, dict) and b.get("type") == "text"]


def match(query: str) -> str:
    """The FTS5 query of a search box's words: each word quoted, any of them may match."""
    return " OR ".join(f'"{word}"' for word in _WORD.findall(query))


def found(transcripts: Mapping[str, Sequence[str]], facts: Iterable[RealFact],
          top: int = TOP) -> list[str]:
    """The names of the facts a naive search over ``transcripts`` (session id -> raw lines)
    shows in its first ``top`` rows."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE VIRTUAL TABLE line USING fts5(text)")
        db.executemany("INSERT INTO line (text) VALUES (?)",
                       [(text,) for lines in transcripts.values() for text in rows(lines)])
        names = []
        for fact in facts:
            query = match(fact.query)
            shown = db.execute("SELECT text FROM line WHERE line MATCH ? ORDER BY rank LIMIT ?",
                               (query, top)).fetchall() if query else []
            if any(holds(text, fact.proof) for (text,) in shown):
                names.append(fact.name)
        return names
    finally:
        db.close()
