"""Three-way merge of a vaultmem note (pure: three texts in, one text out).

Git's line merge sees two machines appending to the same list as a conflict; this merge knows
what a note is made of:
- **Frontmatter**, key by key: a key one side changed takes that side's value; when both changed
  it differently, dates take the later (``created`` the earlier), lists the union (an item one
  side removed stays removed), ``status`` the later stage of a note's life, and any other value
  keeps this side's and records the other side's in a ``> [!conflict]`` callout under the
  frontmatter.
- **Sections** (H1 and H2 headings outside code) are matched by title, so two sides that added
  the same section, or created the same note from the same template, merge section by section.
- **Lines carrying a vaultmem block id** (``^vm-…``) are a set: each id once, a line changed on
  one side takes that side's text, the same id with two lists of session links becomes one line
  with the union of the links (and the earlier date).
- **Everything else** is merged three-way by lines (diff3). Where both sides inserted at the same
  place, both insertions are kept (common lines once; dated item lines in date order); where both
  changed the same text differently, both versions go into a ``> [!conflict]`` callout, and the
  items and ``## References`` backlinks among them stay outside it as a set.

Two sides recording different Claude Code sessions (``session_ids`` sharing no id) are two
notes that got one name: :class:`DifferentSessions`, never merged.

Nothing either side added is lost; a line is dropped only when one side deleted it and the other
left it as it was. ``merge(x, x, x) == x``, and a side equal to the base yields the other side.
Text is LF without a BOM (``merge_bytes`` keeps this side's BOM and line endings). A note that
cannot be read (bad YAML, not UTF-8) raises :class:`NotMergeable`: the caller falls back to git.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from vaultmem.errors import InvalidYaml, NotUtf8
from vaultmem.memory import entityparse, threshold
from vaultmem.memory.diff3 import Budget, NotMergeable, diff3, union
from vaultmem.notes import frontmatter, mdlines, propedit
from vaultmem.notes.textio import decode, encode

CALLOUT = "[!conflict]"
# Dates where the earlier one is the truth; every other date property takes the later.
EARLIEST_DATES = frozenset({"created"})
# Counts vaultmem derives from a note's text; recounted after a merge.
DERIVED = frozenset({"decisions", "gotchas", "lines"})
# A note's life, in order: when both sides changed `status`, the later stage wins.
STATUS_ORDER = ("draft", "active", "compaction_failed", "archived")
REFERENCES = "references"

_BLOCK_ID = re.compile(r"\s\^(vm-[0-9A-Za-z]+)\s*$")
_HEADING = re.compile(r"^ {0,3}(#{1,2})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_DATED = re.compile(r"^\s*[-*+] (\d{4}-\d{2}-\d{2})\b")
_LINKS_TAIL = re.compile(r"^(?P<head>.*?)\s*\((?P<links>\[\[[^\]]*\]\](?:\s*,\s*\[\[[^\]]*\]\])*)\)"
                         r"(?P<tail>\s+\^vm-[0-9A-Za-z]+\s*)$")
_LINK = re.compile(r"\[\[[^\]]*\]\]")
_DATE_PREFIX = re.compile(r"^(\s*[-*+] )(\d{4}-\d{2}-\d{2})( — )")
_MISSING = object()


class DifferentSessions(NotMergeable):
    """The two sides are notes of two different sessions that got one name: never fused."""


@dataclass(frozen=True)
class MergeResult:
    """The merged text and how many places both sides changed differently (kept in callouts)."""

    text: str
    conflicts: int


def merge_bytes(base: bytes, ours: bytes, theirs: bytes, *, path: str | None = None
                ) -> tuple[bytes, int]:
    """Merge three files' bytes; the result keeps this side's BOM and line endings.

    Returns (bytes, conflicts); NotMergeable when a side is not UTF-8 text or has bad YAML."""
    if ours == theirs or base == theirs:
        return ours, 0
    if base == ours:
        return theirs, 0
    try:
        b_text, _ = decode(base, path=path) if base else ("", None)
        o_text, fmt = decode(ours, path=path)
        t_text, _ = decode(theirs, path=path)
    except NotUtf8 as err:
        raise NotMergeable(err.message, path=path) from None
    result = merge(b_text, o_text, t_text, path=path)
    return encode(result.text, fmt), result.conflicts


def merge(base: str, ours: str, theirs: str, *, path: str | None = None) -> MergeResult:
    """Merge three LF texts of one note (see the module docstring)."""
    if ours == theirs or base == theirs:
        return MergeResult(ours, 0)
    if base == ours:
        return MergeResult(theirs, 0)
    sides = [_Note.read(text, path) for text in (base, ours, theirs)]
    b, o, t = sides
    _refuse_two_sessions(o.meta, t.meta, path)
    conflicts: list[str] = []
    head = _merge_frontmatter(b, o, t, conflicts, path)
    body, n = _merge_body(b.body, o.body, t.body, Budget())
    lines = _callout_lines("Properties changed differently on both sides "
                           "(this side's values kept)", conflicts) if conflicts else []
    text = head + _join([*lines, *([""] if lines and body and body[0] != "" else []), *body],
                        o.final_newline or (not o.body and t.final_newline))
    return MergeResult(_recounted(text, o.meta, path), n + len(conflicts))


def session_ids(meta: dict[str, Any]) -> set[str]:
    """The Claude Code sessions a note records (``session_ids``, or a single ``session_id``)."""
    out: set[str] = set()
    for key in ("session_ids", "session_id"):
        value = meta.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (str, int)) and not isinstance(item, bool) and str(item).strip():
                out.add(str(item).strip())
    return out


def _refuse_two_sessions(ours: dict[str, Any], theirs: dict[str, Any], path: str | None) -> None:
    """DifferentSessions when each side records sessions and they share none: two teammates'
    notes that got one name, which a merge would fuse into one garbled note."""
    o, t = session_ids(ours), session_ids(theirs)
    if o and t and not o & t:
        raise DifferentSessions(
            f"two different sessions have this name (session {min(o)} on this side, "
            f"{min(t)} on the other): not merged", path=path)


def _recounted(text: str, meta: dict[str, Any], path: str | None) -> str:
    """Counts vaultmem derives from the text (an entity's ``decisions``/``gotchas``, a session's
    ``lines``) computed again on the merged text: both sides changing them is no conflict."""
    if "decisions" in meta or "gotchas" in meta:
        for key, value in entityparse.item_counts(text).items():
            if key in meta:
                text = _set(text, key, value, path)
    if "lines" in meta:
        text = threshold.with_line_count(text)
    return text


# -- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Note:
    head: str  # the frontmatter with its fences, "" when none
    meta: dict[str, Any]
    body: list[str]  # lines without "\n"
    final_newline: bool

    @staticmethod
    def read(text: str, path: str | None) -> _Note:
        parts = frontmatter.split(text)
        try:
            meta = frontmatter.parse(text, path=path)
        except InvalidYaml as err:
            raise NotMergeable(err.message, path=path, line=err.line) from None
        head = text[: len(text) - len(parts.body)] if parts.has_frontmatter else ""
        body = parts.body
        final = body.endswith("\n")
        lines = body[:-1].split("\n") if final else (body.split("\n") if body else [])
        return _Note(head, meta, lines, final)


def _join(lines: list[str], final_newline: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


# -- frontmatter -------------------------------------------------------------------------------


def _merge_frontmatter(b: _Note, o: _Note, t: _Note, conflicts: list[str],
                       path: str | None) -> str:
    """Ours' frontmatter text with the other side's changes applied key by key."""
    text = o.head
    keys = list(dict.fromkeys([*o.meta, *t.meta]))
    for key in keys:
        bv, ov, tv = (n.meta.get(key, _MISSING) for n in (b, o, t))
        if _same(ov, tv) or _same(tv, bv):
            continue
        if _same(ov, bv):
            value = tv
        else:
            value = _both_changed(key, bv, ov, tv)
            if value is _MISSING and ov is not _MISSING:
                conflicts.append(f"`{key}`: the other side had {_shown(tv)}")
                continue
        text = _set(text, key, value, path)
    return text


def _set(head: str, key: str, value: Any, path: str | None) -> str:
    """The frontmatter text with one key set (or removed when ``value`` is missing)."""
    probe = head or "---\n---\n"
    try:
        if value is _MISSING:
            return propedit.delete_key(probe, key, path=path) if head else head
        return propedit.set_key(probe, key, value, path=path)
    except (InvalidYaml, ValueError, TypeError) as err:
        raise NotMergeable(f"cannot merge property {key!r}: {err}", path=path) from None


def _both_changed(key: str, bv: Any, ov: Any, tv: Any) -> Any:
    """The merged value of a key both sides changed differently; _MISSING: no rule applies."""
    od, td = _as_date(ov), _as_date(tv)
    if od is not None and td is not None:
        pick = min if key in EARLIEST_DATES else max
        return ov if pick(od, td) == od else tv
    if key in DERIVED:  # recounted on the merged text (_recounted)
        return ov
    if key == "status" and ov in STATUS_ORDER and tv in STATUS_ORDER:
        return ov if STATUS_ORDER.index(ov) >= STATUS_ORDER.index(tv) else tv
    if _listish(ov) and _listish(tv) and (isinstance(ov, list) or isinstance(tv, list)):
        base = _as_list(bv)
        o_items, t_items = _as_list(ov), _as_list(tv)
        kept = [x for x in o_items if not (_has(base, x) and not _has(t_items, x))]
        added = [x for x in t_items if not _has(o_items, x) and not _has(base, x)]
        return kept + added
    if ov is _MISSING:  # ours deleted a key theirs changed: keep theirs' value
        return tv
    if tv is _MISSING:  # theirs deleted a key ours changed: keep ours'
        return ov
    return _MISSING


def _as_date(value: object) -> dt.datetime | None:
    """A date or datetime property as a naive UTC datetime (comparable); None when not one."""
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    return None


def _listish(value: Any) -> bool:
    return value is _MISSING or value is None or isinstance(value, (list, str))


def _as_list(value: Any) -> list[Any]:
    if value is _MISSING or value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _has(items: Sequence[Any], x: Any) -> bool:
    return any(_same(x, y) for y in items)


def _same(a: Any, b: Any) -> bool:
    if a is _MISSING or b is _MISSING:
        return a is b
    return type(a) is type(b) and bool(a == b)


def _shown(value: Any) -> str:
    if value is _MISSING:
        return "no such property"
    text = " ".join(str(value).split())
    return f"`{text[:200]}`"


def _callout_lines(title: str, items: Sequence[str]) -> list[str]:
    return [f"> {CALLOUT} {title}", *(f"> - {item}" for item in items)]


# -- body: sections ----------------------------------------------------------------------------


_Key = tuple[str, int]  # (heading key, occurrence); ("", 0) is the text before the first heading


def _chunks(lines: list[str]) -> dict[_Key, list[str]]:
    """The body cut at H1/H2 headings outside fenced code; insertion-ordered."""
    out: dict[_Key, list[str]] = {}
    seen: dict[str, int] = {}
    key: _Key = ("", 0)
    current: list[str] = []
    fence: str | None = None
    for line in lines:
        m = mdlines.FENCE.match(line)
        if m:
            mark = m.group(1)
            if fence is None:
                fence = mark
            elif mark[0] == fence[0] and len(mark) >= len(fence) and not line.strip()[len(mark):]:
                fence = None
        elif fence is None:
            h = _HEADING.match(line)
            if h:
                if current or key != ("", 0):
                    out[key] = current
                title = f"{len(h.group(1))} " + " ".join((h.group(2) or "").split()).casefold()
                n = seen.get(title, 0)
                seen[title] = n + 1
                key, current = (title, n), []
        current.append(line)
    if current or key != ("", 0):
        out[key] = current
    return out


def _merge_body(b: list[str], o: list[str], t: list[str], budget: Budget
                ) -> tuple[list[str], int]:
    resolved, conflicts = _resolve_items(b, o, t)
    o = [_substituted(line, resolved) for line in o]
    t = [_substituted(line, resolved) for line in t]
    cb, co, ct = _chunks(b), _chunks(o), _chunks(t)
    order = _merged_order(list(co), list(ct))
    out: list[str] = []
    prev: _Key | None = None
    adjacent = set(zip(co, list(co)[1:])) | set(zip(ct, list(ct)[1:]))
    for key in order:
        lines = _merge_chunk(key, cb.get(key), co.get(key), ct.get(key), budget)
        if lines is None:
            continue
        merged, n = lines
        conflicts += n
        if not merged:
            continue
        if out and out[-1].strip() and prev is not None and (prev, key) not in adjacent:
            out.append("")  # a section now follows one it did not follow on either side
        out.extend(merged)
        prev = key
    deduped, n = _dedupe_items(out)
    return deduped, conflicts + n


def _merged_order(o: list[_Key], t: list[_Key]) -> list[_Key]:
    """Ours' sections in ours' order, theirs' new ones after the section they follow there.

    Linear in the sections (a note of 20,000 headings merges in milliseconds): each run of new
    keys is filed under the key it follows in theirs; a key's later run goes right after it,
    before its earlier ones, as inserting each at its anchor would put it."""
    have = set(o)
    start: _Key | None = ("", 0) if ("", 0) in have else None  # None: before ours' first key
    runs: dict[_Key | None, list[list[_Key]]] = {}
    run = runs.setdefault(start, [])
    run.append([])
    for key in t:
        if key in have:
            run = runs.setdefault(key, [])
            run.append([])
            continue
        run[-1].append(key)
        have.add(key)
    order = [k for group in reversed(runs.get(None, [])) for k in group]
    for key in o:
        order.append(key)
        order += [k for group in reversed(runs.get(key, [])) for k in group]
    return order


def _merge_chunk(key: _Key, b: list[str] | None, o: list[str] | None, t: list[str] | None,
                 budget: Budget) -> tuple[list[str], int] | None:
    if o is not None and t is not None:
        return _merge_lines(b or [], o, t, key[0].endswith(" " + REFERENCES), budget)
    side = o if o is not None else t
    if side is None:
        return None
    if b is not None and side == b:
        return None  # the other side deleted the section, this one left it as it was
    return side, 0


# -- body: items with block ids ----------------------------------------------------------------


def _item_id(line: str) -> str | None:
    if line.startswith(">"):
        return None
    m = _BLOCK_ID.search(line)
    return m.group(1) if m else None


def _items(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        key = _item_id(line)
        if key is not None and key not in out:
            out[key] = line
    return out


def _resolve_items(b: list[str], o: list[str], t: list[str]) -> tuple[dict[str, str], int]:
    """The text each block id keeps when both sides have it, and how many ids both sides
    changed differently (this side's text kept, the other's in a callout under it)."""
    bi, oi, ti = _items(b), _items(o), _items(t)
    resolved: dict[str, str] = {}
    for key in oi.keys() & ti.keys():
        ol, tl, bl = oi[key], ti[key], bi.get(key)
        if ol == tl or tl == bl:
            continue
        if ol == bl:
            resolved[key] = tl
            continue
        merged = _merge_item(bl, ol, tl)
        if merged is not None:
            resolved[key] = merged
    return resolved, 0


def _split_item(line: str) -> tuple[str, str, list[str], str] | None:
    """(date, text, links, tail) of ``- YYYY-MM-DD — text ([[…]], [[…]]) ^vm-…``; date may be
    "" and links empty; None when the line has no trailing link group."""
    m = _LINKS_TAIL.match(line)
    if not m:
        return None
    head = m.group("head")
    d = _DATE_PREFIX.match(head)
    date = d.group(2) if d else ""
    text = (d.group(1) + "\0" + head[d.end():]) if d else head
    return date, text, _LINK.findall(m.group("links")), m.group("tail")


def _merge_item(base: str | None, ours: str, theirs: str) -> str | None:
    """One line for an item both sides changed: the text three-way (a person's edit on one
    side survives a new session link on the other), the union of the links, the earlier date;
    None when both changed the text itself differently."""
    o, t = _split_item(ours), _split_item(theirs)
    if o is None or t is None:
        return None
    b = _split_item(base) if base is not None else None
    if o[1] == t[1] or (b is not None and t[1] == b[1]):
        text = o[1]
    elif b is not None and o[1] == b[1]:
        text = t[1]
    else:
        return None
    dates = [d for d in (o[0], t[0]) if d]
    links = list(dict.fromkeys([*o[2], *t[2]]))
    head = text.replace("\0", min(dates) + " — ", 1) if dates and "\0" in text else text
    return f"{head} ({', '.join(links)}){o[3]}"


def _substituted(line: str, resolved: dict[str, str]) -> str:
    key = _item_id(line)
    return resolved.get(key, line) if key is not None else line


def _dedupe_items(lines: list[str]) -> tuple[list[str], int]:
    """Each block id once: a later line with an id seen before gives its links to the first;
    one whose text differs is kept visible in a callout under it, without its id."""
    first: dict[str, int] = {}
    out: list[str] = []
    conflicts = 0
    for line in lines:
        key = _item_id(line)
        if key is None:
            out.append(line)
        elif key not in first:
            first[key] = len(out)
            out.append(line)
        elif line != out[first[key]]:
            at = first[key]
            merged = _merge_item(None, out[at], line)
            if merged is not None:
                out[at] = merged
                continue
            other = _BLOCK_ID.sub("", line).strip()
            note = f"> {CALLOUT} The other side has this item as: {other}"
            out[at] = out[at] + "\n" + note  # kept right under the item (split again below)
            conflicts += 1
    return "\n".join(out).split("\n") if conflicts else out, conflicts


def _is_set_line(line: str, references: bool) -> bool:
    return _item_id(line) is not None or (references and line.lstrip().startswith(("- ", "* ")))


def _date_sorted(lines: list[str]) -> list[str]:
    """Runs of dated item lines in date order (stable); other lines stay where they are."""
    out = list(lines)
    i = 0
    while i < len(out):
        j = i
        while j < len(out) and _DATED.match(out[j]) and _item_id(out[j]):
            j += 1
        if j - i > 1:
            out[i:j] = sorted(out[i:j], key=lambda s: _DATED.match(s).group(1))  # type: ignore[union-attr]
        i = max(j, i + 1)
    return out


# -- body: lines -------------------------------------------------------------------------------


def _merge_lines(b: list[str], o: list[str], t: list[str], references: bool,
                 budget: Budget) -> tuple[list[str], int]:
    """diff3 of one section's lines, with this module's rules for the places both changed."""
    out: list[str] = []
    conflicts = 0
    for hunk in diff3(b, o, t, budget):
        if len(hunk) == 1:
            out.extend(hunk[0])
            continue
        hb, ho, ht = hunk
        lines, n = _resolve(hb, ho, ht, references, budget)
        out.extend(lines)
        conflicts += n
    return out, conflicts


def _resolve(hb: list[str], ho: list[str], ht: list[str], references: bool,
             budget: Budget) -> tuple[list[str], int]:
    if not hb:
        return _date_sorted(union(ho, ht, budget)), 0
    is_set: Callable[[str], bool] = lambda line: _is_set_line(line, references)
    so, st = [x for x in ho if is_set(x)], [x for x in ht if is_set(x)]
    po, pt, pb = ([x for x in h if not is_set(x)] for h in (ho, ht, hb))
    sb = [x for x in hb if is_set(x)]
    # Set lines: ours', without what theirs deleted, then theirs' new ones (sets: a hunk may
    # be thousands of lines).
    in_b, in_o, in_t = set(sb), set(so), set(st)
    items = [x for x in so if not (x in in_b and x not in in_t)]
    items += [x for x in st if x not in in_o and x not in in_b]
    items = _date_sorted(items)
    conflicts = 0
    if po == pt or pt == pb:
        prose = po
    elif po == pb:
        prose = pt
    else:
        prose, conflicts = _conflict_callout(po, pt), 1
    set_first = bool(ho) and is_set(ho[0])
    return (items + prose if set_first else prose + items), conflicts


def _conflict_callout(ours: list[str], theirs: list[str]) -> list[str]:
    """Both versions of a text both sides changed, in an Obsidian callout."""
    def quoted(lines: list[str]) -> list[str]:
        return [f"> {line}" if line else ">" for line in lines] or ["> (deleted)"]

    blank = [""] if ours and not ours[-1].strip() else []
    ours = ours[:-1] if blank else ours
    theirs = theirs[:-1] if theirs and not theirs[-1].strip() else theirs
    title = f"> {CALLOUT} Changed on both sides: keep one version, delete the other and this callout"
    return [title, "> **This side:**", *quoted(ours), ">", "> **Other side:**",
            *quoted(theirs), *blank]
