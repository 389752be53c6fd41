"""Vault-relative paths of everything vaultmem writes (DESIGN §1). Pure."""

from __future__ import annotations

from dataclasses import dataclass

from vaultmem.notes.lazyre import lazy

STATE_DIR = ".vaultmem"
# The stem of a session note started before its first prompt was known (``<date>-session``,
# ``-2``...): capture renames it to its topic at the first prompt.
# A session note awaiting its topic: ``<date>-session``, in a shared vault with the session's mark
# (names.untitled_suffix), numbered when taken.
UNTITLED_SESSION = lazy(r"\d{4}-\d{2}-\d{2}-session(?:-[0-9a-f]{8})?(?:-\d+)?")


@dataclass(frozen=True)
class Layout:
    """Where notes live for one namespace; every path is vault-relative, POSIX, with ``.md``."""

    namespace: str = "claude"

    def project_dir(self, project: str) -> str:
        return f"{self.namespace}/projects/{project}"

    def project_index(self, project: str) -> str:
        return f"{self.project_dir(project)}/_index.md"

    def sessions_dir(self, project: str) -> str:
        return f"{self.project_dir(project)}/sessions"

    def session(self, project: str, stem: str) -> str:
        return f"{self.sessions_dir(project)}/{stem}.md"

    def entities_dir(self, project: str) -> str:
        return f"{self.project_dir(project)}/entities"

    def entity(self, project: str, name: str) -> str:
        return f"{self.entities_dir(project)}/{name}.md"

    def archive_dir(self, project: str) -> str:
        return f"{self.project_dir(project)}/archive/sessions"

    def archive(self, project: str, stem: str) -> str:
        return f"{self.archive_dir(project)}/{stem}.md"

    def global_entities_dir(self) -> str:
        return f"{self.namespace}/global/entities"

    def global_entity(self, name: str) -> str:
        return f"{self.global_entities_dir()}/{name}.md"

    def global_topic(self, name: str) -> str:
        return f"{self.namespace}/global/topics/{name}.md"


def link_target(rel: str) -> str:
    """The path form of a wikilink target for a vault-relative note path (no ``.md``)."""
    return rel.removesuffix(".md")
