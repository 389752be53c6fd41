"""The components a turn's files and words name, for capture's story (pure; issue 29).

A file a turn touched names its component (``memory.components``); a turn that touched none is
about the components the files its prompt and answer name, when those files are in a folder the
session touched (a path said in prose may be relative to another folder than the session's).
An item is about the components its own words name, else those of its turn's files (:func:`about`).
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Mapping, Sequence

from vaultmem.memory.components import CI, origin_of, relative, speaks_of_ci
from vaultmem.mining import mentions
from vaultmem.notes import nearnames


def shown(path: str, cwd: str | None) -> str:
    """``path`` as a turn's entry shows it."""
    # Paths under the session's working directory read better relative to it (a Windows
    # one too: ``C:\Users\me\shop\src\a.py`` -> ``src/a.py``).
    if cwd:
        inside = relative(path, cwd)
        if inside is not None and relative(path, None) is None:  # absolute, under ``cwd``
            return inside
    return path


def components(paths: Sequence[str], cwd: str | None, rules: Mapping[str, str] | None,
               folders: dict[str, list[str]], from_source: set[str],
               project: str = "") -> list[tuple[str, str]]:
    """(path, component) of each path that has one, named as the story first met it (a near-name
    of one met, ``Power Monitor`` of ``Cosmic Applet Power Monitor``: :func:`nearnames.joined`);
    ``folders`` and ``from_source`` (name keys the source gives) grow with them."""
    named: list[tuple[str, str]] = []
    for path in paths:
        origin = origin_of(path, root=cwd, rules=rules, project=project)
        if origin is None:
            continue
        name = next((n for n in folders if nearnames.joined(n, origin.name)), origin.name)
        if not origin.from_test:
            from_source.add(name_key(name))
        folder = posixpath.dirname(path)
        seen = folders.setdefault(name, [])
        if (shown_folder := folder + "/" if folder else "./") not in seen:
            seen.append(shown_folder)
        named.append((path, name))
    return named


def about(text: str, files: Sequence[tuple[str, str]], touched: Sequence[str] = ()
          ) -> tuple[str, ...]:
    """The components an item of ``text`` is about, of its turn's ``files`` ((path shown,
    component)): :func:`mentions.about`, except that

    - the CI is one only by the item's own words (:func:`speaks_of_ci`, or a workflow's file it
      names): a turn that edited a workflow beside a script, or ran ``git pull`` in it, files
      the script's or git's gotcha under its other components, else under none;
    - an item naming a file of its turn (``touched``, as shown) that is no component's
      (``scripts/redact.py``, ``deploy.sh``) is about that file, so about none: never about
      the turn's other components (issue 29)."""
    named = mentions.mentioned(text, files)
    if named:
        return named
    if mentions.files_named(text, touched):
        return ()
    if speaks_of_ci(text):
        return mentions.about(text, files)
    return mentions.about(text, [(path, name) for path, name in files if name != CI])


def said_components(texts: Sequence[str], roots: set[str], cwd: str | None,
                    rules: Mapping[str, str] | None, folders: Mapping[str, list[str]],
                    from_source: set[str], project: str = "") -> list[tuple[str, str]]:
    """(path, component) of the files ``texts`` (a turn's prompt and prose) name in one of the
    ``roots`` (issue 29: an item goes to the fallback entity only when its turn names no
    component). Read on copies: a file only named is no component the session touched; nor is
    a test's name alone."""
    paths = dict.fromkeys(said for text in texts for p in mentions.paths_in(text)
                          if top(said := shown(p, cwd)) in roots)
    source = set(from_source)
    named = components(list(paths), cwd, rules, {k: list(v) for k, v in folders.items()},
                       source, project)
    return [(path, name) for path, name in named if name_key(name) in source]


def top(path: str) -> str:
    """The first folder of a path as shown ("" for a file in the session's folder)."""
    head, _, rest = path.removeprefix("./").partition("/")
    return head if rest else ""


def name_key(name: str) -> str:
    """A component name as names compare (NFC, case-folded)."""
    return unicodedata.normalize("NFC", name).casefold()
