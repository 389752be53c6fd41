"""One compaction run (DESIGN §5): the shell around ``compaction`` that reads and writes.

Imported by :meth:`Memory.compact_note <vaultmem.memory.sessions.Memory.compact_note>` only when a note is
compacted, so that the hooks which end or start a session without compacting start faster.

Compaction runs the steps of DESIGN §5 with ``faults.checkpoint("compact:<step>")`` before each
(``compact:<step>:<entity>`` as well for per-entity steps) so crash tests can stop it anywhere.
Decisions beyond the design:
- Every entity of the project and the global ones is read once (names and aliases for routing
  by mention); each target entity is then rewritten once (``patch.Rewrite`` of
  ``EntityPlan.compose``: lines, related components, overview and backlink in one write), then
  the project's ``_index.md`` (prerequisites, Key Entities). The archive comes after, so a re-run
  after a crash anywhere recomputes the same texts: every composition is idempotent.
- Entities the session links count as known for routing by mention even before they exist, so a
  re-run (when the first run created them) routes exactly as an uninterrupted run.
- A failure while rewriting entities or writing the archive marks the original
  ``status: compaction_failed`` + ``error``; an ``_index.md`` that cannot be read or written
  (invalid YAML) only warns. An archive already written and verified stays: it is the exact
  copy a re-run computes again (the copy is made from the note with ``error``/``archive_error``
  removed and ``status`` back to ``active``), so the re-run finds it identical and carries on.
  A failed verification removes the archive just written and leaves ``status: active`` +
  ``archive_error: Verification failed``.
- An existing archive with different bytes is never overwritten: ``compaction_failed``.
- ``--move`` removes the original only when it still has the bytes that were compacted;
  otherwise it is marked archived instead and the report warns.
"""

from __future__ import annotations

import hashlib
import posixpath
import time
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING

from vaultmem import faults
from vaultmem.errors import CompactionError, InvalidYaml, NoteExists, VaultmemError
from vaultmem.memory import bases, compaction, entitynote, entityparse, sessionextract, sharedids
from vaultmem.memory.extraction import KINDS, Extraction
from vaultmem.memory.handover import HANDED_OVER, Deadline, HandOver
from vaultmem.memory.reports import CompactReport
from vaultmem.notes import fences, links, patch, privacy, templating
from vaultmem.notes.inline import one_line
from vaultmem.notes.names import name_key
from vaultmem.notes.textio import encode
from vaultmem.store.layout import UNTITLED_SESSION
from vaultmem.store.vaultread import Note

if TYPE_CHECKING:
    from vaultmem.memory.routing import Known
    from vaultmem.store.config import Config
    from vaultmem.store.vault import Vault

_StepErrors = (VaultmemError, OSError, faults.InjectedFault)
MODEL_EXTRACTORS = ("llm", "claude")


def _known(rel: str, note: Note) -> Known:
    """An entity's name (its file name) and the aliases its frontmatter gives."""
    name = posixpath.basename(rel)[:-3]
    head = note.text[: note.text.find("\n---", 3)] if note.text.startswith("---") else ""
    if "alias" not in head:
        return name, ()
    try:
        meta = note.frontmatter()
    except InvalidYaml:
        return name, ()  # its own patch names the problem, if it is patched at all
    raw = meta.get("aliases", meta.get("alias"))
    values = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    return name, tuple(str(v) for v in values if isinstance(v, (str, int, float)) and str(v))


def _diff(rel: str, old: str | None, new: str | None) -> str:
    import difflib  # dry runs only: kept off the hooks' start-up

    return "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            (new or "").splitlines(keepends=True),
            fromfile=f"a/{rel}" if old is not None else "/dev/null",
            tofile=f"b/{rel}" if new is not None else "/dev/null",
        )
    )


class CompactionRun:
    """One compaction run; keeps what the report needs."""

    def __init__(
        self, vault: Vault, config: Config, rel: str, *, dry_run: bool, force: bool, move: bool,
        extractor: str, now: datetime, session_text: Callable[[str, int], str | None] | None = None,
        deadline: Deadline | None = None,
    ) -> None:
        self.vault = vault
        self.config = config
        self.layout = vault.layout
        self.rel = rel
        self.dry_run = dry_run
        self.force = force
        self.move = move
        self.extractor = extractor
        self.now = now
        self.today = now.date()
        self.started = time.perf_counter()
        self.verdict_text = ""
        self.counts: dict[str, int] = {}
        self.updated: list[str] = []
        self.created: list[str] = []
        self.archive: str | None = None
        self.warnings: list[str] = []
        self.diffs: list[str] = []
        self.fallback_reason: str | None = None
        self.removed = False
        self.unread: list[str] = []  # entity notes that could not be read
        self.session_text = session_text
        self.cost_usd: float | None = None
        self.extraction_edits: tuple[patch.Edit, ...] = ()
        self.expected_sha: str | None = None
        self.deadline = deadline  # a hook's: before each write, the rest may be handed over

    def report(self, status: str, error: str | None = None) -> CompactReport:
        return CompactReport(
            note=self.rel,
            status=status,
            verdict=self.verdict_text or status,
            counts=dict(self.counts),
            entities_updated=tuple(dict.fromkeys(self.updated)),
            entities_created=tuple(self.created),
            archive=self.archive,
            duration_ms=round((time.perf_counter() - self.started) * 1000, 1),
            extractor=self.extractor,
            fallback_reason=self.fallback_reason,
            warnings=tuple(self.warnings),
            diffs=tuple(self.diffs),
            error=error,
            removed=self.removed,
            cost_usd=self.cost_usd,
        )

    @staticmethod
    def _step(name: str, detail: str | None = None) -> None:
        faults.checkpoint(f"compact:{name}")
        if detail is not None:
            faults.checkpoint(f"compact:{name}:{detail}")

    def _fail(self, note: Note, err: BaseException) -> CompactReport:
        message = one_line(str(err)) or type(err).__name__
        try:
            self.vault.update(self.rel, compaction.failed_edits(message), base=note,
                              label="vaultmem compaction")
        except VaultmemError as again:
            self.warnings.append(f"could not mark the note compaction_failed: {again}")
        return self.report("failed", message)

    def _in_time(self) -> None:
        """Before a write that comes before the archive: HandOver when the hook's deadline
        would likely pass during it (see ``handover``)."""
        if self.deadline is not None:
            self.deadline.check()

    def run(self) -> CompactReport:
        """The steps of DESIGN §5; ``handed over`` when a hook's deadline stopped it before a
        write (the vault then is as a crash there leaves it: a re-run converges)."""
        try:
            return self._run()
        except HandOver:
            return self.report(HANDED_OVER)

    def _run(self) -> CompactReport:
        note = self.vault.read(self.rel)
        try:
            meta = note.frontmatter()
        except InvalidYaml as err:
            return self.report("failed", str(err))
        status = str(meta.get("status") or "")
        if status == "archived":
            self.verdict_text = "archived"
            return self.report("already archived")
        canon = compaction.canonical(note.text)
        project = sessionextract.session_project(self.rel)
        created = compaction.created_date(meta, self.rel, self.today)
        verdict = compaction.verdict(len(canon.splitlines()), created, self.today, self.config)
        self.verdict_text = verdict.text
        if not verdict.due and not self.force:
            if status != "active" and not self.dry_run:
                self.vault.update(self.rel, [patch.DeleteProperty("error"),
                                             patch.DeleteProperty("archive_error"),
                                             patch.SetProperty("status", "active")], base=note)
            return self.report("below threshold")
        reason = verdict.reason if verdict.due else compaction.FORCED_REASON
        if self.vault.read_only(self.rel):
            # Its owner said "leave it": nothing is filed from it until it is writable again.
            return self.report("skipped: read-only (chmod)")
        self.archive = compaction.archive_rel(self.rel, self.layout)
        try:
            self._step("extract")
            known = self._load_known(project)
            extraction = sharedids.refile(  # an item no component is named for: see sharedids
                self._extract(canon, project, known), privacy.blank_private(canon),
                {rel: n.text for rel, n in known.items()},
                self.config.default_entity)
            self.counts = {kind: extraction.count(kind) for kind in KINDS}
            plan = self._plan(extraction, project, known, canon, created)
        except _StepErrors as err:
            if self.dry_run:
                return self.report("failed", one_line(str(err)))
            return self._fail(note, err)
        if self.dry_run:
            return self._dry_run(note, canon, plan, known, reason)
        try:
            summaries = self._patch_entities(plan, known)
            self._step("index")
            self._in_time()
            try:
                self._patch_index(plan, project, known, summaries)
            except VaultmemError as err:
                # The index only summarises: a person's broken _index.md never stops the memory.
                self.warnings.append(f"{plan.index_rel} not updated: {one_line(str(err))}")
        except _StepErrors as err:
            return self._fail(note, err)
        self._in_time()  # the last chance: from the archive on, the run goes to its end
        # The Obsidian views, re-made only when a person deleted one. Before the original is
        # marked: a run killed after that ends as "already archived" and would not make them.
        try:
            bases.ensure(self.vault)
        except (VaultmemError, OSError) as err:
            self.warnings.append(f"Bases views not written: {one_line(str(err))}")
        try:
            verified = self._write_archive(note, canon, reason)
        except _StepErrors as err:
            return self._fail(note, err)
        if not verified:
            return self.report("failed", "archive verification failed")
        # The session's hooks write turns under the note's lock and never into an archived
        # note: held from the last look at the note to its mark, no turn lands in no copy.
        late: Note | None = None
        with self.vault.lock(self.rel):
            try:
                late = self._late(note, canon)
                if late is not None and not self._write_archive(
                        late, compaction.canonical(late.text), reason, replaces=True):
                    return self.report("failed", "archive verification failed")
            except _StepErrors as err:
                self._drop_archive()
                return self._fail(late or note, err)
            self._finish(late or note, reason)
        return self.report("compacted")

    def _late(self, note: Note, canon: str) -> Note | None:
        """The note as it is now when turns landed in it after ``canon`` was archived."""
        current = self.vault.read(self.rel)
        if current.fingerprint.sha256 == note.fingerprint.sha256:
            return None
        if compaction.canonical(current.text) == canon:
            return None
        self.expected_sha = current.fingerprint.sha256  # --move removes what is archived
        self.warnings.append(f"{self.rel} grew while compacting: the archive holds the new "
                             "text; its new lines are archived, not filed into entities")
        return current

    def _drop_archive(self) -> None:
        """Remove this run's archive copy: the original stays the session's only copy."""
        if self.archive is None:
            return
        try:
            self.vault.remove(self.archive)
        except VaultmemError as err:
            self.warnings.append(f"could not remove the archive copy: {err}")
        self.archive = None

    def _extract(self, canon: str, project: str, loaded: Mapping[str, Note]) -> Extraction:
        config = self.config
        known = [_known(rel, note) for rel, note in loaded.items()]
        known += [(posixpath.basename(rel)[:-3], ()) for rel in self.unread]
        # The vault's other projects: a folder of one is never this session's home component.
        others = [p for p in self.vault.folders(f"{self.layout.namespace}/projects")
                  if p != project]
        asked = self.extractor
        if asked not in MODEL_EXTRACTORS:
            extraction, warnings = sessionextract.extract_report(canon, self.rel, config,
                                                                 known=known, projects=others)
            self.warnings.extend(warnings)
            return extraction
        fallback_warnings: list[str] = []

        def fallback() -> Extraction:
            extraction, warnings = sessionextract.extract_report(canon, self.rel, config,
                                                                 known=known, projects=others)
            fallback_warnings[:] = warnings
            return extraction

        names = [name for name, _ in known]
        if asked == "claude":
            from vaultmem.memory import claudecli  # runs the user's Claude Code: only on this path

            aliases = dict(known)
            budget = config.claude_input_tokens * claudecli.CHARS_PER_TOKEN
            source = self.session_text(self.rel, budget) if self.session_text else None
            raw = claudecli.extract(
                claudecli.prompt(source or privacy.blank_private(canon), project=project,
                                 entities=aliases, transcript=source is not None,
                                 max_tokens=config.claude_input_tokens),
                settings=claudecli.settings_from_config(config),
                fallback=fallback,
                known_entities=names,
                aliases=aliases,
            )
        else:
            from vaultmem.memory import llm  # the SDK costs seconds to import: only on this path

            raw = llm.extract(
                privacy.blank_private(canon),
                project=project,
                known_entities=names,
                settings=llm.settings_from_env(config.model),
                fallback=fallback,
            )
        extraction, checked = sessionextract.assign_targets(raw, canon, self.rel, config,
                                                            known=known, projects=others)
        self.warnings.extend(fallback_warnings or checked)
        self.extractor = extraction.extractor
        self.fallback_reason = extraction.fallback_reason
        self.cost_usd = extraction.cost_usd
        if asked == "claude" and not self.dry_run:
            self._record_extraction(extraction)
        return extraction

    def _record_extraction(self, extraction: Extraction) -> None:
        """The model's run on the session note: which extractor, why it fell back, what it cost.

        Written as soon as the model has answered, so money spent is on record even when a
        later step fails; a re-run adds its own cost. ``canonical`` leaves these keys out of the
        archive, whose bytes must not depend on how often the model ran.
        """
        before = self.vault.read(self.rel).frontmatter().get("extraction_cost_usd")
        spent = before if isinstance(before, (int, float)) and not isinstance(before, bool) else 0
        edits: list[patch.Edit] = [patch.SetProperty("extractor", extraction.extractor)]
        if extraction.cost_usd is not None:
            edits.append(patch.SetProperty("extraction_cost_usd",
                                           round(spent + extraction.cost_usd, 6)))
        if extraction.fallback_reason:
            edits.append(patch.SetProperty("fallback_reason", extraction.fallback_reason))
        else:
            edits.append(patch.DeleteProperty("fallback_reason"))
        self.extraction_edits = tuple(edits)
        self.vault.update(self.rel, edits, label="vaultmem compaction")
        # --move removes the original only when it is what compaction last saw: this write too.
        written = self.vault.fingerprint(self.rel)
        self.expected_sha = written.sha256 if written is not None else None

    def _known_entities(self, project: str) -> list[str]:
        layout = self.layout
        out: list[str] = []
        for folder in (layout.entities_dir(project), layout.global_entities_dir()):
            out.extend(r for r in self.vault.iter_notes(folder) if posixpath.dirname(r) == folder)
        return out

    def _load_known(self, project: str) -> dict[str, Note]:
        """Every entity of the project and the global ones, read once for the whole run. One
        that cannot be read (not UTF-8) stops nothing here: it is known by its name
        (``self.unread``), and fails the run only if an item goes to it."""
        out: dict[str, Note] = {}
        for rel in self._known_entities(project):
            try:
                out[rel] = self.vault.read(rel)
            except VaultmemError:
                self.unread.append(rel)
        return out

    def _plan(self, extraction: Extraction, project: str, known: Mapping[str, Note], canon: str,
              day: date) -> compaction.Plan:
        names_ = list(dict.fromkeys(n for item in extraction.items for n in item.entities))
        targets = compaction.entity_targets(names_, project, self.layout, [*known, *self.unread])
        return compaction.plan(
            extraction, self.rel, targets, {r: n.text for r, n in known.items()},
            layout=self.layout, today=self.today, day=day,
            components_=sessionextract.components(canon), default_entity=self.config.default_entity,
            link_to=self._link,
        )

    def _link(self, name: str, rel: str) -> str:
        """The link vaultmem writes to an entity: by path with the name as alias, so that two
        projects' ``Billing`` never make it ambiguous (links.entity_link)."""
        return links.entity_link(name, rel)

    def _patch_entities(self, plan: compaction.Plan, loaded: Mapping[str, Note]) -> dict[str, entityparse.Summary]:
        """Step 3 (and 5: the backlink): each entity rewritten once; its summary by rel."""
        summaries: dict[str, entityparse.Summary] = {}
        for step in plan.entities:
            stem = posixpath.basename(step.rel)[:-3]

            def rewrite(text: str, step: compaction.EntityPlan = step) -> str:
                composed = step.compose(text, self.today)
                summaries[step.rel] = composed.summary
                return composed.text

            if not step.create and self.vault.read_only(step.rel):
                self.warnings.append(f"{step.rel}: read-only (chmod), left as it is; its items "
                                     "stay in the archived session")
                continue
            self._in_time()
            if step.create and step.create_text is not None:
                self._step("entity-create", stem)
                try:
                    self.vault.create(step.rel, rewrite(step.create_text))
                    self.created.append(step.rel)
                    continue
                except NoteExists:
                    # Made meanwhile (a person in Obsidian): rewrite what is there.
                    pass
                result = self.vault.update(step.rel, [patch.Rewrite(rewrite)],
                                           label="vaultmem compaction")
            else:
                self._step("entity-patch", stem)
                result = self.vault.update(step.rel, [patch.Rewrite(rewrite)],
                                           base=loaded[step.rel], label="vaultmem compaction")
            if result.changed:
                self.updated.append(step.rel)
            if result.status == "rebased":
                self.warnings.append(f"{step.rel}: edited meanwhile; lines added to the new text")
        return summaries

    def _index_rows(self, project: str, index_text: str, known: Mapping[str, Note],
                    summaries: Mapping[str, entityparse.Summary]) -> dict[str, str]:
        """The Key Entities rows: one per entity of the project; an entity this run did not
        touch keeps its row."""
        rows = entityparse.key_entity_rows(index_text)
        folder = self.layout.entities_dir(project)
        out: dict[str, str] = {}
        for rel in self.vault.iter_notes(folder):
            if posixpath.dirname(rel) != folder:
                continue
            stem = posixpath.basename(rel)[:-3]
            key = name_key(stem)
            target = rel[:-3]
            if rel in summaries:
                out[key] = entitynote.key_entity_row(stem, summaries[rel], target)
            elif key in rows and rows[key].startswith((f"- [[{target}]]", f"- [[{target}|")):
                out[key] = rows[key]
            else:
                try:
                    text = known[rel].text if rel in known else self.vault.read(rel).text
                except VaultmemError:
                    text = ""  # listed, without a summary
                out[key] = entitynote.key_entity_row(stem, entityparse.summary(text), target)
        return out

    def _recent_sessions(self, project: str) -> list[str]:
        """The project's newest session notes, newest first: the archive copy of a compacted
        one (this run's note included), the note itself otherwise. A note still awaiting its
        topic (``<date>-session``) is left out: capture renames it at its first prompt, and a
        link to it would break."""
        found: dict[str, str] = {}
        for folder in (self.layout.archive_dir(project), self.layout.sessions_dir(project)):
            for rel in self.vault.iter_notes(folder):
                if posixpath.dirname(rel) == folder:
                    stem = posixpath.basename(rel)[:-3]
                    if UNTITLED_SESSION.fullmatch(stem):
                        continue
                    found.setdefault(stem, self.archive if rel == self.rel and self.archive
                                     else rel)
        newest = sorted(found, reverse=True)[: entitynote.RECENT_SESSIONS_SHOWN]
        return [found[stem] for stem in newest]

    def _patch_index(self, plan: compaction.Plan, project: str, known: Mapping[str, Note],
                     summaries: Mapping[str, entityparse.Summary]) -> None:
        """The project's _index.md: prerequisites and Key Entities kept current."""
        rel = plan.index_rel
        fresh = templating.project_index(project, self.today)
        recent = self._recent_sessions(project)  # listed once, not again when the edit is redone

        def rewrite(text: str) -> str:
            rows = self._index_rows(project, text, known, summaries)
            return entitynote.compose_index(text, plan.prerequisites, rows, today=self.today,
                                            sessions=recent).text

        if not self.vault.exists(rel):
            try:
                self.vault.create(rel, rewrite(fresh))
                return
            except NoteExists:
                pass
        self.vault.update(rel, [patch.Rewrite(rewrite)], label="vaultmem compaction")

    def _write_archive(self, note: Note, canon: str, reason: str, *,
                       replaces: bool = False) -> bool:
        """Step 4; False when the verification failed (the note then says so). ``replaces``:
        the archive there is this run's copy of an older text of the note, replaced."""
        assert self.archive is not None
        text = compaction.archive_text(canon, reason, self.today)
        digest = hashlib.sha256(encode(text, note.fmt)).hexdigest()
        self._step("archive-write")
        existing = self.vault.fingerprint(self.archive)
        wrote = False
        if existing is None or (replaces and existing.sha256 != digest):
            self.vault.write_text(self.archive, text, fmt=note.fmt)
            wrote = True
        elif existing.sha256 != digest:
            raise CompactionError(
                "a different archive of this note exists; it is never overwritten",
                path=self.archive,
            )
        try:
            self._step("archive-verify")
            back = self.vault.fingerprint(self.archive)
            if back is None or back.sha256 != digest:
                raise CompactionError("archive read back differs", path=self.archive)
        except _StepErrors:
            if wrote:
                try:
                    self.vault.remove(self.archive)
                except VaultmemError as err:
                    self.warnings.append(f"could not remove the unverified archive: {err}")
            self.vault.update(
                self.rel,
                [patch.DeleteProperty("error"), patch.SetProperty("status", "active"),
                 patch.SetProperty("archive_error", "Verification failed")],
                base=note,
            )
            self.archive = None
            return False
        return True

    def _finish(self, note: Note, reason: str) -> None:
        assert self.archive is not None
        if self.move:
            self._step("move-remove")
            with self.vault.lock(self.rel):
                now_fp = self.vault.fingerprint(self.rel)
                expected = self.expected_sha or note.fingerprint.sha256
                if now_fp is not None and now_fp.sha256 == expected:
                    self.vault.remove(self.rel)
                    self.removed = True
            if self.removed:
                if self.extraction_edits:  # the cost stays on record, on the archive now
                    self.vault.update(self.archive, self.extraction_edits,
                                      label="vaultmem compaction")
                return
            self.warnings.append(f"{self.rel} changed while compacting; marked archived, not removed")
        self._step("mark-original")
        archive, today = self.archive, self.today
        body = fences.split(note.text).body  # what the archive holds, below its properties

        def stub(text: str) -> str:
            return compaction.stub_text(text, archive, body, today)

        # One write: marked archived and, unless a person wrote in it meanwhile, a stub.
        self.vault.update(self.rel, [*compaction.mark_edits(archive, reason, today),
                                     patch.Rewrite(stub)], base=note, label="vaultmem compaction")

    def _dry_run(
        self, note: Note, canon: str, plan: compaction.Plan, loaded: Mapping[str, Note], reason: str
    ) -> CompactReport:
        assert self.archive is not None
        summaries: dict[str, entityparse.Summary] = {}
        for step in plan.entities:
            old = loaded[step.rel].text if step.rel in loaded else None
            base = old if old is not None else step.create_text
            assert base is not None
            composed = step.compose(base, self.today)
            summaries[step.rel] = composed.summary
            if composed.text != old:
                self.diffs.append(_diff(step.rel, old, composed.text))
                (self.created if old is None else self.updated).append(step.rel)
        index = plan.index_rel
        project = sessionextract.session_project(self.rel)
        index_old = self.vault.read(index).text if self.vault.exists(index) else None
        base_index = index_old if index_old is not None else templating.project_index(
            project, self.today)
        rows = self._index_rows(project, base_index, loaded, summaries)
        index_new = entitynote.compose_index(base_index, plan.prerequisites, rows,
                                             today=self.today,
                                             sessions=self._recent_sessions(project)).text
        if index_new != index_old:
            self.diffs.append(_diff(index, index_old, index_new))
        archive_old = self.vault.read(self.archive).text if self.vault.exists(self.archive) else None
        archive_new = compaction.archive_text(canon, reason, self.today)
        if archive_old != archive_new:
            self.diffs.append(_diff(self.archive, archive_old, archive_new))
        if self.move:
            self.diffs.append(_diff(self.rel, note.text, None))
        else:
            marked = patch.apply_all(note.text, compaction.mark_edits(self.archive, reason,
                                                                       self.today)).text
            self.diffs.append(_diff(self.rel, note.text, marked))
        return self.report("dry-run")
