"""components.py on the common layouts: the deepest stable folder below the source roots, never a
source root or generic folder, and tests only through the module they test."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from vaultmem.claude import ingest
from vaultmem.claude.toolblocks import ToolCall
from vaultmem.claude.transcript import Turn
from vaultmem.memory.components import FORBIDDEN, Origin, component_of, origin_of
from vaultmem.mining.mentions import about

ROOT = "/home/dev/work/shop"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # Python: src/<feature>/ (the package named after the project: below)
        ("src/auth/tokens.py", "Auth"),
        ("src/db/repos/orders.py", None),
        ("src/db/orders/queries.py", "Orders"),
        # Elixir: lib/<app>/<feature>/, lib/<app>/<context>.ex, lib/<app>_web/…
        ("lib/storefront/accounts/user.ex", "Accounts"),
        ("lib/storefront/invoices.ex", "Invoices"),
        ("lib/storefront/invoice_renderer.ex", "Invoice Renderer"),
        ("lib/storefront_web/live/invoice_live/index.ex", "Invoice"),
        ("lib/storefront_web/controllers/checkout_controller.ex", "Checkout"),
        ("lib/storefront_web/components/core_components.ex", None),
        ("lib/storefront_web/router.ex", None),
        ("lib/storefront_web/endpoint.ex", None),
        ("lib/storefront/application.ex", None),
        ("lib/storefront/repo.ex", None),
        ("lib/storefront.ex", None),
        ("lib/storefront_web.ex", None),
        ("priv/repo/migrations/20260101_add_invoices.exs", None),
        ("priv/static/assets/app.js", None),
        ("assets/js/app.js", None),
        ("config/runtime.exs", None),
        # JS/TS: src/, app/, packages/<x>/src/
        ("src/features/billing/InvoiceTable.tsx", "Billing"),
        ("src/components/Button.tsx", None),
        ("src/components/checkout/Summary.tsx", "Checkout"),
        ("packages/api/src/routes.ts", None),
        ("app/billing/page.tsx", "Billing"),
        ("apps/web/pages/index.tsx", None),
        # Go: internal/<x>/, cmd/<x>/, pkg/<x>/
        ("internal/ledger/post.go", "Ledger"),
        ("cmd/worker/main.go", "Worker"),
        ("pkg/ratelimit/bucket.go", "Ratelimit"),
        # Rust: crates/<x>/src/, src/<mod>/
        ("crates/parser/src/lexer.rs", "Parser"),
        ("src/storage/page.rs", "Storage"),
        ("src/main.rs", None),
        ("src/lib.rs", None),
        # Java / Kotlin: src/main/java/<dotted>/<feature>/
        ("src/main/java/com/acme/shop/billing/InvoiceService.java", "Billing"),
        ("src/main/kotlin/org/acme/shop/checkout/impl/CartImpl.kt", "Checkout"),
        ("src/main/java/com/acme/Application.java", "Acme"),
        # Swift packages: Sources/<target>/<x>/, never "Sources" itself
        ("Sources/Ledger/Posting/Entry.swift", "Ledger"),
        ("Sources/Helpers/Strings.swift", None),
        ("Sources/Utilities/Geometry.swift", None),
        ("Package.swift", None),
    ],
)
def test_layouts(path: str, expected: str | None) -> None:
    assert component_of(path) == expected
    assert component_of(f"{ROOT}/{path}", root=ROOT) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_refunds.py", Origin("Refunds", True)),
        ("tests/billing/test_x.py", Origin("Billing", True)),
        ("test/storefront/accounts_test.exs", Origin("Accounts", True)),
        ("test/storefront/accounts/user_test.exs", Origin("Accounts", True)),
        ("test/storefront_web/live/invoice_live_test.exs", Origin("Invoice", True)),
        ("test/support/conn_case.ex", None),
        ("src/test/java/com/acme/shop/billing/InvoiceServiceTest.java", Origin("Billing", True)),
        ("Tests/LedgerTests/PostingTests.swift", Origin("Ledger", True)),
        ("src/billing/refunds.py", Origin("Billing", False)),
        ("pkg/auth/auth_test.go", Origin("Auth", False)),  # beside its source: the folder says it
    ],
)
def test_a_test_names_a_component_only_as_a_test(path: str, expected: Origin | None) -> None:
    assert origin_of(path) == expected


@pytest.mark.parametrize(
    "folder", ["priv", "lib", "src", "test", "tests", "assets", "config", "app", "web", "internal",
               "pkg", "cmd", "spec"],
)
def test_no_component_is_named_after_a_source_root_or_generic_folder(folder: str) -> None:
    for path in (f"{folder}/x.py", f"{folder}/{folder}/x.ex", f"src/{folder}/x.ts",
                 f"lib/app/{folder}/x.ex", f"{folder}.py", f"lib/{folder}.ex"):
        name = component_of(path)
        assert name is None or name.casefold() not in FORBIDDEN, (path, name)


def test_a_swift_target_named_after_the_project_is_skipped() -> None:
    assert component_of(f"{ROOT}/Sources/Shop/Checkout/Cart.swift", root=ROOT) == "Checkout"
    assert component_of(f"{ROOT}/Sources/Shop/Cart.swift", root=ROOT) == "Cart"


def test_the_project_s_package_is_skipped_in_a_src_or_flat_layout() -> None:
    assert component_of(f"{ROOT}/shop/billing/invoices.py", root=ROOT) == "Billing"
    assert component_of(f"{ROOT}/src/shop/billing/invoices.py", root=ROOT) == "Billing"
    root = "/home/dev/acme-shop"
    assert component_of(f"{root}/src/acme_shop/billing/render/pdf.py", root=root) == "Billing"


def test_config_rules_still_win() -> None:
    rules = {"lib/storefront_web/**": "Storefront Web", "priv/**": "Migrations"}
    assert component_of("lib/storefront_web/router.ex", rules=rules) == "Storefront Web"
    assert component_of("priv/repo/migrations/1.exs", rules=rules) == "Migrations"


# ---- routing: an item goes to the component(s) it is about, at most two -----------------------
NOW = datetime(2026, 11, 22, 10, 30, tzinfo=timezone.utc)
APP = "/home/dev/work/storefront"


def _edit(ident: str, rel: str) -> ToolCall:
    return ToolCall(ident, "Edit", path=f"{APP}/{rel}")


def test_an_item_goes_to_what_it_names_not_to_every_component_the_turn_touched() -> None:
    files = [("lib/storefront/invoices/invoice_renderer.ex", "Invoices"),
             ("lib/storefront/accounts/user.ex", "Accounts"),
             ("lib/storefront/billing/charge.ex", "Billing"),
             ("lib/storefront_web/live/cart_live/index.ex", "Cart")]
    assert about("`InvoiceRenderer` now pads the totals column.", files) == ("Invoices",)
    assert about("The Accounts context owns `User`; billing reads it.", files) == (
        "Accounts", "Billing")
    assert about("Cart, billing, accounts and invoices all changed.", files) == (
        "Invoices", "Accounts")  # at most two, in the turn's order
    # Nothing named: the one component more of the turn's files belong to than to any other;
    # a turn about two things lends neither (issue 29).
    assert about("Went with integer cents for money.", files[:1] * 2 + files[1:]) == (
        "Invoices",)
    assert about("Went with integer cents for money.", files) == ()


def test_a_story_routes_items_and_drops_components_made_only_from_tests() -> None:
    turns = [
        Turn("u1", None, "render invoices"),
        Turn("a1", None, None, calls=(
            _edit("e1", "lib/storefront/invoices/invoice_renderer.ex"),
            _edit("e2", "lib/storefront/accounts/user.ex"),
            _edit("e3", "lib/storefront/billing/charge.ex"),
            _edit("e4", "test/storefront/refunds_test.exs"),
            _edit("e5", "test/storefront/billing_test.exs"))),
        Turn("a2", None, None, text=(
            "Decision: `InvoiceRenderer` renders totals as integer cents rather than floats, "
            "because rounding drifted.\n\nGotcha: `charge.ex` retries twice on a 502 from the "
            "gateway.")),
    ]
    told = ingest.story(turns, now=NOW, cwd=APP)
    assert [(i.kind, i.components) for i in told.items] == [
        ("decision", ("Invoices",)), ("gotcha", ("Billing",))]
    assert told.tested_only == {"Refunds"}  # Billing's test counts: the source has Billing
    edits = ingest.edits_for(told)
    related = next(e for e in edits if getattr(e, "heading", None) == ("Related Entities",))
    assert "[[Refunds]]" not in related.content and "[[Billing]]" in related.content
    # A note that already has Refunds (from source, an earlier turn) keeps the test's name.
    note = "## Related Entities\n\n- [[Refunds]] — `lib/storefront/refunds/`\n"
    again = ingest.edits_for(told, note)
    related = next(e for e in again if getattr(e, "heading", None) == ("Related Entities",))
    assert "[[Refunds]]" not in related.content  # listed already, not twice


@pytest.mark.parametrize("path", [
    "migrations/versions/0002_add_currency.py",   # Alembic
    "alembic/versions/3f2a_add_index.py",
    "shop/migrations/0007_auto.py",                # Django
    "db/migrate/20261101_create_users.rb",         # Rails
])
def test_a_schema_migration_is_no_component(path: str) -> None:
    assert component_of(path) is None
