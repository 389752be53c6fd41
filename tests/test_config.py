"""Vault and project resolution (DESIGN §1) and the config file."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from vaultmem.errors import ConfigError
from vaultmem.store.config import (
    Config,
    config_file,
    detect_project,
    folder_project,
    load_config,
)


def _write_config(home: Path, text: str) -> Path:
    path = config_file({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_vault_resolution_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    assert load_config(project="p", env=env).vault == home / ".claude-memory"
    _write_config(home, 'vault = "~/from-file"\n')
    monkeypatch.setenv("HOME", str(home))
    assert load_config(project="p", env=env).vault == home / "from-file"
    env["VAULTMEM_VAULT"] = str(tmp_path / "from-env")
    assert load_config(project="p", env=env).vault == tmp_path / "from-env"
    assert load_config(vault=tmp_path / "opt", project="p", env=env).vault == tmp_path / "opt"


def test_config_values_and_types(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    _write_config(home, 'namespace = "memory"\nline_threshold = 300\ndefault_entity = "Misc"\n')
    config = load_config(project="p", env=env)
    assert (config.namespace, config.line_threshold, config.default_entity) == ("memory", 300, "Misc")
    assert config.age_threshold_days == 3


def test_components_table_keeps_its_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    _write_config(home, '[components]\n"services/pay*/**" = "Billing"\n"src/**" = "Core"\n')
    config = load_config(project="p", env=env)
    assert list(config.components.items()) == [("services/pay*/**", "Billing"), ("src/**", "Core")]
    assert load_config(project="p", env={"HOME": str(tmp_path / "none")}).components == {}


@pytest.mark.parametrize("text,needle", [
    ("line_threshold = [\n", "invalid TOML"),
    ('line_threshold = "many"\n', "'line_threshold' must be int"),
    ("age_threshold_days = true\n", "'age_threshold_days' must be int"),
    ('components = "src/*"\n', "'components' must be a table"),
    ('[components]\n"src/*" = 3\n', "'components' must be a table"),
])
def test_bad_config_is_a_config_error_naming_the_file(tmp_path: Path, text: str, needle: str) -> None:
    home = tmp_path / "home"
    path = _write_config(home, text)
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    with pytest.raises(ConfigError) as err:
        load_config(project="p", env=env)
    assert needle in str(err.value) and str(path) in str(err.value)


def test_project_option_env_and_slug(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "VAULTMEM_PROJECT": "Env Project"}
    assert load_config(env=env).project == "env-project"
    assert load_config(project="My Shop!", env=env).project == "my-shop"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_worktrees_share_the_main_repository_project(tmp_path: Path) -> None:
    repo = tmp_path / "Shop-App"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty",
         "-m", "init")
    _git(repo, "worktree", "add", "-q", str(tmp_path / "feature-x"))
    (repo / "src").mkdir()
    assert detect_project(repo) == "shop-app"
    assert detect_project(repo / "src") == "shop-app"
    assert detect_project(tmp_path / "feature-x") == "shop-app"


def test_a_claude_desktop_worktree_joins_its_repository_even_when_its_git_is_gone(
    tmp_path: Path,
) -> None:
    """Claude Code's desktop app runs a session in ``~/.claude-worktrees/<repo>/<name>``, a
    ``git worktree add`` checkout: it is the repository's project, read from the ``.git`` file's
    gitdir and its commondir; without the commondir from the gitdir's place; with the whole
    repository gone from the path's layout."""
    repo = tmp_path / "code" / "Shop-App"
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty",
         "-m", "init")
    tree = tmp_path / ".claude-worktrees" / "Shop-App" / "unruffled-mcclintock"
    _git(repo, "worktree", "add", "-q", str(tree))
    (tree / "src").mkdir()
    assert (tree / ".git").read_text(encoding="utf-8").startswith("gitdir:")
    assert detect_project(tree / "src") == "shop-app"
    other = tmp_path / "wt" / "brave-curie"  # any worktree, wherever it was added
    _git(repo, "worktree", "add", "-q", str(other))
    assert detect_project(other) == "shop-app"
    (repo / ".git" / "worktrees" / "brave-curie" / "commondir").unlink()
    assert detect_project(other) == "shop-app"
    subprocess.run(["rm", "-rf", str(repo)], check=True)
    assert detect_project(tree / "src") == "shop-app"
    assert detect_project(other) == "shop-app"


def test_a_path_from_another_machine_is_named_from_its_text() -> None:
    """A transcript replayed elsewhere: its folder is not here, maybe not even a path of this
    system; a Claude Code worktree still names its repository."""
    windows = "C:\\Users\\Mischa\\.claude-worktrees\\M-Claude\\unruffled-mcclintock"
    assert detect_project(Path(windows)) == "m-claude"
    assert detect_project(Path("C:\\Users\\Mischa")) == "mischa"
    assert detect_project(Path("C:\\")) == "default"
    assert detect_project(Path("/gone/u/.claude-worktrees/shop/brave-curie/src/api")) == "shop"
    assert folder_project("c:/u/.claude-worktrees/Shop-App-brave-curie") == "Shop-App"
    assert folder_project("/home/u/.claude-worktrees/shop") == "shop"
    assert folder_project("\\\\srv\\share\\Shop App") == "Shop App"
    assert folder_project("/home/u/claude-worktrees/x/y") == "y"


def test_outside_git_the_folder_name_is_the_project(tmp_path: Path) -> None:
    folder = tmp_path / "Plain Folder"
    folder.mkdir()
    assert detect_project(folder) == "plain-folder"
    assert detect_project(tmp_path / "does-not-exist") == "does-not-exist"


def test_the_project_is_what_git_calls_the_common_dir_without_running_git(tmp_path: Path) -> None:
    """A submodule is its own project, a symlink names the real folder: as ``git rev-parse
    --git-common-dir`` says (detect_project reads .git instead of starting git on each hook)."""
    lib = tmp_path / "Lib-Src"
    lib.mkdir()
    _git(lib, "init", "-q")
    _git(lib, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty",
         "-m", "init")
    app = tmp_path / "App"
    app.mkdir()
    _git(app, "init", "-q")
    _git(app, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    (tmp_path / "link").symlink_to(app)
    for where in (app / "vendor" / "lib", tmp_path / "link"):
        common = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                cwd=where, capture_output=True, text=True, check=True).stdout
        named = Path(common.strip())
        expected = (named.parent if named.name == ".git" else named).name.lower()
        assert detect_project(where) == expected
    assert detect_project(app / "vendor" / "lib") == "lib"
    assert detect_project(tmp_path / "link") == "app"


def test_with_project_is_the_same_configuration_for_another_project(tmp_path: Path) -> None:
    config = Config(vault=tmp_path, project="shop", context_max_chars=1234)
    other = config.with_project("Billing API")
    assert other.project == "billing-api" and other.context_max_chars == 1234
    assert config.project == "shop"
