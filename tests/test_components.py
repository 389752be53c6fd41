"""components.py: file paths -> component names (the default rule and config rules)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultmem.memory import components
from vaultmem.memory.components import component_of
from vaultmem.notes import names

ROOT = "/home/dev/work/shop"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/auth/tokens.py", "Auth"),
        ("app/billing/x.py", "Billing"),
        # A layer is never a component (issue 29): its modules name features.
        ("packages/api/src/routes.ts", None),
        ("packages/billing/src/routes.ts", "Billing"),
        ("app/models/invoice.rb", None),
        ("app/controllers/invoices_controller.rb", "Invoices"),
        ("src/api/users_controller.ts", "Users"),
        ("src/api/billing/refunds.ts", "Billing"),
        ("src/utils/format.ts", None),
        ("lib/db/repos/repo_01.py", None),
        ("auth/session.go", "Auth"),
        ("src/auth.py", "Auth"),
        ("src/billing_webhooks/handler.py", "Billing Webhooks"),
        ("src/billingWebhooks/handler.ts", "Billing Webhooks"),
        ("apps/web/pages/index.tsx", None),  # "Web" is a generic folder, never a component
        ("internal/oauth/client.go", "OAuth"),
        ("cmd/server/main.go", None),  # "server" is a container name: nothing after it
        ("cmd/worker/main.go", "Worker"),
        # tests named after a module
        ("tests/test_auth.py", "Auth"),
        ("tests/auth/test_x.py", "Auth"),
        ("tests/unit/test_billing.py", "Billing"),
        ("src/auth.test.ts", "Auth"),
        ("auth.test.ts", "Auth"),
        ("pkg/auth/auth_test.go", "Auth"),
        ("auth_test.go", "Auth"),
        ("src/__tests__/cart.spec.js", "Cart"),
        # nothing to name
        ("src/main.py", None),
        ("README.md", None),
        ("pyproject.toml", None),
        ("docs/architecture.md", None),
        ("config/settings.yaml", None),
        # The CI's definitions are one component (issue 29: a turn that edited them is about them).
        (".github/workflows/ci.yml", "CI"),
        ("shop/.github/workflows/release.yml", "CI"),
        (".gitlab-ci.yml", "CI"),
        (".circleci/config.yml", "CI"),
        ("Jenkinsfile", "CI"),
        (".github/CODEOWNERS", None),
        ("node_modules/left-pad/.github/workflows/ci.yml", None),
        # Scripts are tooling: none (a component per script cost the tuning briefing 4 facts).
        ("scripts/update_username.sh", None),
        ("tests/conftest.py", None),
        ("tests/test_utils.py", None),
        ("src/utils.py", None),
        ("", None),
        ("../elsewhere/x.py", None),
    ],
)
def test_default_rule(path: str, expected: str | None) -> None:
    assert component_of(path) == expected
    assert component_of(f"{ROOT}/{path}", root=ROOT) == expected


def test_a_session_in_the_home_folder_names_the_project_below_documents() -> None:
    # Claude Code started in ~ touches ~/Documents/<project>/…: the folder kept in Documents
    # is the part worked on; Documents, Desktop or Downloads never name a component.
    home = "/Users/dev"
    assert component_of(f"{home}/Documents/M-Claude/scripts/sync.py", root=home) == "M Claude"
    assert component_of(f"{home}/Developer/shop/src/auth/tokens.py", root=home) == "Shop"
    assert component_of(f"{home}/Desktop/notes.md", root=home) is None
    assert component_of(f"{home}/Downloads/report.pdf", root=home) is None
    assert component_of(f"{home}/Applications/Tmux.app/Contents/x.sh", root=home) == "Tmux App"
    for folder in ("Documents", "Desktop", "Downloads", "Library", "AppData", "Applications"):
        assert component_of(f"{home}/{folder}.md", root=home) is None


def test_windows_paths_are_read_as_windows_reads_them() -> None:
    # Claude Code on Windows names files C:\\Users\\<me>\\…: under the session's folder (in
    # any case) they are relative to it; elsewhere a drive is absolute, never a folder "C".
    home = "C:\\Users\\Dana"
    assert component_of("C:\\Users\\Dana\\Documents\\shop\\src\\auth\\x.py", root=home) == "Shop"
    assert component_of("c:\\users\\dana\\Documents\\shop\\notes.md", root=home) == "Shop"
    assert component_of("D:/builds/shop/src/auth/x.py", root=home) is None
    assert component_of("C:/Users/Other/Documents/shop/src/x.py", root=home) is None
    assert component_of("~/Documents/shop/src/x.py") is None


def test_applications_own_files_in_the_home_folder_have_no_component() -> None:
    # Settings, caches and temporary files of installed programs are no part of any code.
    assert component_of("C:\\Users\\Dana\\AppData\\Local\\Temp\\job\\out.txt",
                        root="C:\\Users\\Dana") is None
    assert component_of("/Users/dev/AppData/Roaming/tool/config.json", root="/Users/dev") is None
    assert component_of("/Users/dev/Library/Application Support/Editor/settings.json",
                        root="/Users/dev") is None
    assert component_of("/Users/dev/Library/Caches/pip/x", root="/Users/dev") is None


def test_absolute_paths_outside_the_root_have_no_component() -> None:
    assert component_of("/etc/hosts", root=ROOT) is None
    assert component_of(f"{ROOT}-other/src/auth/x.py", root=ROOT) is None
    assert component_of("/src/auth/x.py") is None


def test_the_project_s_own_package_folder_is_skipped() -> None:
    root = "/home/dev/vaultmem"
    assert component_of(f"{root}/vaultmem/claude/capture.py", root=root) == "Claude"
    assert component_of(f"{root}/src/vaultmem/claude/capture.py", root=root) == "Claude"
    assert component_of(f"{root}/vaultmem/memory/sessions.py", root=root) == "Memory"
    assert component_of(f"{root}/vaultmem/__init__.py", root=root) is None
    assert component_of(f"{root}/tests/test_memory.py", root=root) == "Memory"


def test_the_project_s_own_folder_seen_from_its_parent_is_no_component() -> None:
    # A session begun in ~ touches shop/src/backend/rapl.rs, one begun in ~/shop touches
    # src/backend/rapl.rs: one file, one component, whatever the folder Claude Code started in.
    home, project = "/home/dev", "cosmic-applet-power-monitor"
    inside = f"{home}/{project}"
    for path in ("src/backend/rapl.rs", "src/power_monitor.rs", "Cargo.toml", "tests/test_rapl.rs",
                 "src/main.rs"):
        from_home = component_of(f"{inside}/{path}", root=home, project=project)
        assert from_home == component_of(f"{inside}/{path}", root=inside), path
    assert component_of(f"{inside}/src/power_monitor.rs", root=home, project=project) \
        == "Power Monitor"
    assert component_of(f"{inside}/Cargo.toml", root=home, project=project) is None
    assert component_of(f"{home}/Documents/shop/src/auth/x.py", root=home, project="shop") == "Auth"
    # Another folder beside the project is still one (the project's name is no wildcard).
    assert component_of(f"{home}/other-tool/src/x.rs", root=home, project=project) == "Other Tool"
    assert component_of(f"{inside}/x.rs", root=home) == "Cosmic Applet Power Monitor"


def test_rules_win_in_their_order() -> None:
    rules = {"services/pay*/**": "Billing", "src/auth/legacy/*": "", "src/**": "Core"}
    assert component_of("services/payments/api.py", rules=rules) == "Billing"
    assert component_of(f"{ROOT}/services/payouts/x.py", root=ROOT, rules=rules) == "Billing"
    assert component_of("src/auth/legacy/old.py", rules=rules) is None  # "" = no component
    assert component_of("src/auth/tokens.py", rules=rules) == "Core"
    assert component_of("lib/db/x.py", rules=rules) is None  # no rule: the default (a layer)
    assert component_of("docs/x.md", rules={"docs": "Docs"}) == "Docs"  # a folder rule


def test_names_are_nfc_and_safe_file_names() -> None:
    nfd = unicodedata.normalize("NFD", "src/café/x.py")
    assert component_of(nfd) == "Café" == unicodedata.normalize("NFC", "Café")
    assert component_of("src/a:b|c/x.py") == "A B C"
    assert component_of("x.py", rules={"*": "We[ir]d/Name"}) == "We ir d Name"  # a rule's name is kept as written, cleaned


@given(st.text(max_size=60), st.sampled_from([None, ROOT, "/", ""]))
def test_never_raises_and_always_a_safe_name(path: str, root: str | None) -> None:
    name = component_of(path, root=root)
    assert name is None or (names.is_safe_filename(name) and name == name.strip())
    assert name is None or unicodedata.is_normalized("NFC", name)


def test_a_text_speaks_of_the_ci_by_its_own_words() -> None:
    # Issue 29: the CI holds an item only by the item's words, never because its turn also
    # edited a workflow.
    for said in ("The sync workflow runs only on pull requests",
                 "Manual trigger via workflow_dispatch", "CI/CD is slow on forks",
                 "GitHub Actions caches nothing across runs", "edit .gitlab-ci.yml first",
                 "the self-hosted runner lost its token"):
        assert components.speaks_of_ci(said), said
    for said in ("git pull failed: gpg failed to sign the data",
                 "./scripts/update_username.sh: bad interpreter: /bin/bash^M",
                 "the city's cinema circle", "Phone number regex matched ISO timestamps"):
        assert not components.speaks_of_ci(said), said


@pytest.mark.parametrize(("path", "expected"), [
    # A script a command runs is its own component, by its file name as commands write it.
    ("scripts/update_username.sh", "update_username"),
    ("tools/gen_docs.py", "gen_docs"),
    ("deploy.sh", "deploy"),
    ("shop/scripts/sync_logs.py", "sync_logs"),  # a session begun in the parent folder
    # A file of a component is the component's; a test, a generic name, a deeper file: none.
    ("src/billing/cli.py", "Billing"),
    ("scripts/run.sh", None),
    ("manage.py", None),
    ("tests/test_auth.py", None),
    ("scripts/ci/build.sh", None),
    ("docs/gen.py", None),
    (".github/workflows/x.sh", None),
])
def test_of_script(path: str, expected: str | None) -> None:
    assert components.of_script(path, project="shop") == expected
