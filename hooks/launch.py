#!/usr/bin/env python3
"""The vaultmem plugin's launcher: Claude Code runs ``python3 <plugin>/hooks/launch.py EVENT`` for
a hook, and ``python3 <plugin>/hooks/launch.py --cli ARGS…`` for the plugin's MCP server
(``--cli mcp``, from ``.mcp.json``) and any other vaultmem command.

It needs nothing but ``python3`` (3.10 or later): vaultmem runs from a virtual environment this
script prepares under the plugin's data folder (``$CLAUDE_PLUGIN_DATA/env``) from the plugin's
own folder (``$CLAUDE_PLUGIN_ROOT``). Preparing it (``pip install``) takes longer than a hook may
run, so it happens in a detached process: the session that starts it is not recorded (said once
on stderr) unless the environment is ready within SessionStart's wait; the next one is.

Like every vaultmem hook it exits 0 whatever happens and never blocks Claude Code. A ``--cli``
command is not a hook: it waits for the environment (up to two minutes), then exits with the
command's own code, or 1 with one line saying why it could not run. Standard library only, and
syntax an old python3 can read, so that it can say the version is too old.
"""

import hashlib
import os
import shlex
import subprocess
import sys
import time

MIN_PYTHON = (3, 10)
ENV = "env"  # the virtual environment, in the data folder
READY = "vaultmem-ready"  # in ENV: the plugin fingerprint the environment was built from
BUILDING = "building.pid"  # in the data folder while a build runs: its pid
BUILD_LOCK = "build.lock"  # in the data folder: a kernel lock held while a build is started
FAILED = "build-failed"  # in the data folder: the last build's error line
LOG = "build.log"
STALE_BUILD_S = 15 * 60  # a build lock older than this is a build that died
RETRY_AFTER_S = 60 * 60  # a failed build is tried again at a session start after this
START_WAIT_S = 7.0  # SessionStart (timeout 10 s) waits this long for a build to finish
PIP_ARGS_ENV = "VAULTMEM_PLUGIN_PIP_ARGS"  # extra `pip install` arguments (an offline index)
CLI = "--cli"  # launch.py --cli ARGS: `vaultmem ARGS` from the environment (not a hook)
CLI_WAIT_S = 120.0  # a --cli command waits this long for the environment to be prepared


def say(message):
    """One line on stderr: what Claude Code shows of a hook."""
    try:
        sys.stderr.write("vaultmem: " + message.replace("\n", " ") + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def plugin_root():
    return os.environ.get("CLAUDE_PLUGIN_ROOT") or os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))


def data_dir(root):
    """``$CLAUDE_PLUGIN_DATA`` (Claude Code 2.1 creates it per plugin), else a folder of the
    user's cache named after the plugin's folder."""
    given = os.environ.get("CLAUDE_PLUGIN_DATA")
    if given:
        return given
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha256(root.encode("utf-8")).hexdigest()[:12]
    return os.path.join(cache, "vaultmem-plugin", tag)


def env_python(env):
    if os.name == "nt":
        return os.path.join(env, "Scripts", "python.exe")
    return os.path.join(env, "bin", "python")


def fingerprint(root):
    """What the environment is built from: the package's files and its dependencies. A plugin
    update changes it, and the environment is prepared again."""
    digest = hashlib.sha256()
    files = [os.path.join(root, "pyproject.toml")]
    for folder, dirs, names in os.walk(os.path.join(root, "vaultmem")):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        files.extend(os.path.join(folder, n) for n in sorted(names) if not n.endswith(".pyc"))
    for path in files:
        digest.update(os.path.relpath(path, root).encode("utf-8") + b"\0")
        try:
            with open(path, "rb") as f:
                digest.update(f.read())
        except OSError:
            digest.update(b"?")
    return digest.hexdigest()


# Nothing in the data folder is followed through a symlink: one planted there (in place of the
# log, the lock, the environment) would have pip's output, a pid or a whole environment land
# outside it, or run a python someone else put there.
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _read(path):
    try:
        fd = os.open(path, os.O_RDONLY | NOFOLLOW)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read(4096).decode("utf-8").strip()
    except (OSError, ValueError):
        return None


def _is_link(path):
    try:
        return os.path.islink(path)
    except OSError:
        return True


def _open_own(path, flags):
    """A file of the data folder opened for writing, never through a symlink: one planted in
    its place is removed and the file made afresh."""
    flags |= os.O_WRONLY | os.O_CREAT | NOFOLLOW
    try:
        return os.open(path, flags, 0o644)
    except OSError:
        if not _is_link(path):
            raise
    os.unlink(path)
    return os.open(path, flags | os.O_EXCL, 0o644)


def _write_own(path, text):
    """``text`` into a small file of the data folder, whole: a temp file renamed into place (a
    rename replaces a symlink itself, never what it points to)."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o644)
    try:
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)


def is_ready(data, stamp):
    env = os.path.join(data, ENV)
    return (not _is_link(env) and _read(os.path.join(env, READY)) == stamp
            and os.path.exists(env_python(env)))


def is_usable(data):
    """Whether an environment a build finished is there, of any plugin version: while a plugin
    update's build runs, the hooks record with it."""
    env = os.path.join(data, ENV)
    return (not _is_link(env) and _read(os.path.join(env, READY)) is not None
            and os.path.exists(env_python(env)))


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _aged(path):
    """A small file's first line and its age in seconds, or None when it cannot be read."""
    line = _read(path)
    if line is None:
        return None
    try:
        return line, time.time() - os.lstat(path).st_mtime
    except OSError:
        return None


def build_running(data):
    found = _aged(os.path.join(data, BUILDING))
    if found is None:
        return False
    pid, age = found
    return pid.isdigit() and _alive(int(pid)) and age < STALE_BUILD_S


class _Deciding:
    """Who may start a build: a kernel lock on ``build.lock`` held for the instant it takes to
    look and start one, so two hooks starting together never start two builds (a build's
    environment would be deleted by the other's). Released when the process dies."""

    def __init__(self, data):
        self.fd = _open_own(os.path.join(data, BUILD_LOCK), 0)

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # Windows: the pid lock alone
            return self
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)  # closing releases the lock


def start_build(root, data, stamp=None):
    """Start the detached build unless one runs, the environment is ready, or the last build
    failed within the hour; True when this call started it.

    The lock (``building.pid``) holds a live pid from the moment it is visible: this process's
    own, linked into place from a temp file, then the build's, renamed over it."""
    os.makedirs(data, exist_ok=True)
    stamp = fingerprint(root) if stamp is None else stamp
    lock = os.path.join(data, BUILDING)
    with _Deciding(data):
        failure = _failure(data)
        if build_running(data) or is_ready(data, stamp) or (
                failure is not None and failure[1] < RETRY_AFTER_S):
            return False
        try:
            os.unlink(lock)  # a dead build's
        except OSError:
            pass
        mine = "%s.%d.tmp" % (lock, os.getpid())
        fd = os.open(mine, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW, 0o644)
        try:
            os.write(fd, str(os.getpid()).encode("ascii"))
        finally:
            os.close(fd)
        try:
            os.link(mine, lock)
        except FileExistsError:
            return False  # a launcher without the kernel lock started it in this instant
        finally:
            os.unlink(mine)
        log = _open_own(os.path.join(data, LOG), os.O_APPEND)
        try:
            child = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--build", root, data],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                close_fds=True)
        finally:
            os.close(log)
        _write_own(lock, str(child.pid))
        return True


# What the package is built from (the plugin's folder links to them in a clone).
SOURCE = ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in", "vaultmem", "templates")


def _source_copy(root, dest):
    """The package's source copied out of the plugin's folder: the build writes its egg-info and
    build/ beside the sources, and the plugin's folder (Claude Code's cache, or a clone) is
    never written to."""
    import shutil

    os.makedirs(dest)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCE:
        path = os.path.join(root, name)
        if os.path.isdir(path):
            shutil.copytree(path, os.path.join(dest, name), ignore=skip)
        elif os.path.isfile(path):
            shutil.copyfile(path, os.path.join(dest, name))
    return dest


def build(root, data):
    """``launch.py --build ROOT DATA``: the detached process that prepares the environment."""
    import shutil

    env = os.path.join(data, ENV)
    # Built beside the environment in use (a plugin update's hooks go on recording with the
    # old one), then put in its place: only the instant between two renames has none.
    new = "%s.new.%d" % (env, os.getpid())
    stamp = fingerprint(root)
    failed = os.path.join(data, FAILED)
    print("vaultmem: build %d started" % os.getpid(), flush=True)  # into build.log
    try:
        if _is_link(env):
            os.unlink(env)  # planted: the environment is made here, not where it points
        subprocess.run([sys.executable, "-m", "venv", new], check=True)
        extra = shlex.split(os.environ.get(PIP_ARGS_ENV, ""))
        source = _source_copy(root, "%s.src" % new)
        subprocess.run([env_python(new), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", *extra, source], check=True)
        shutil.rmtree(source, ignore_errors=True)
        _write_own(os.path.join(new, READY), stamp + "\n")
        old = "%s.old.%d" % (env, os.getpid())
        if _is_link(env):
            os.unlink(env)
        elif os.path.lexists(env):
            os.rename(env, old)
        os.rename(new, env)
        shutil.rmtree(old, ignore_errors=True)
        if os.path.lexists(failed):
            os.unlink(failed)
        code = 0
    except (OSError, subprocess.CalledProcessError) as err:
        _write_own(failed, str(err).replace("\n", " ") + "\n")
        shutil.rmtree(new, ignore_errors=True)
        shutil.rmtree("%s.src" % new, ignore_errors=True)
        code = 1
    finally:
        lock = os.path.join(data, BUILDING)
        if _read(lock) == str(os.getpid()):  # only its own lock
            try:
                os.unlink(lock)
            except OSError:
                pass
    return code


def _failure(data):
    """The last build's error line and its age in seconds, or None."""
    return _aged(os.path.join(data, FAILED))


def run_vaultmem(data, args):
    """Replace this process with ``python -m vaultmem ARGS`` from the prepared environment.

    Isolated (``-I``): the hook's cwd is the user's project, whose own ``vaultmem/`` folder (this
    repository, for one) must not shadow the installed package."""
    python = env_python(os.path.join(data, ENV))
    os.execv(python, [python, "-I", "-m", "vaultmem"] + list(args))


def prepare(wait_s):
    """The data folder, and what keeps vaultmem from running now: None when the environment is
    ready; ("failed", error line) when its last build failed within the hour; ("building",
    started) while a build runs past ``wait_s`` (``started``: this call started it)."""
    root = plugin_root()
    data = data_dir(root)
    stamp = fingerprint(root)
    if is_ready(data, stamp):
        return data, None
    failure = _failure(data)
    if failure is not None and failure[1] < RETRY_AFTER_S:
        return data, None if is_usable(data) else ("failed", failure[0])
    started = start_build(root, data, stamp)
    if is_usable(data):
        return data, None  # a plugin update: the build runs, the old environment records
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and build_running(data):
        time.sleep(0.1)
    if is_ready(data, stamp):
        return data, None
    return data, ("building", started)


def run_cli(args):
    """``launch.py --cli ARGS``: ``vaultmem ARGS`` from the plugin's environment, waiting for it to
    be prepared first (someone asked for an answer); 1 with one line when it cannot run."""
    if sys.version_info < MIN_PYTHON:
        say("needs python3 3.10 or later; python3 here is %d.%d" % sys.version_info[:2])
        return 1
    data, blocked = prepare(CLI_WAIT_S)
    if blocked is not None:
        failure = _failure(data)
        say("its environment could not be prepared (%s; log: %s); delete %s to try again"
            % (failure[0], os.path.join(data, LOG), os.path.join(data, FAILED)) if failure
            else "its environment is still being prepared (log: %s); try again in a minute"
            % os.path.join(data, LOG))
        return 1
    run_vaultmem(data, args)
    return 1  # not reached: execv replaced this process


def main(argv):
    if len(argv) > 1 and argv[1] == "--build":
        return build(argv[2], argv[3])
    if len(argv) > 1 and argv[1] == CLI:
        return run_cli(argv[2:])
    event = argv[1] if len(argv) > 1 else ""
    if sys.version_info < MIN_PYTHON:
        say("needs python3 3.10 or later to record sessions; python3 here is %d.%d"
            % sys.version_info[:2])
        return 0
    data, blocked = prepare(START_WAIT_S if event == "session-start" else 0)
    if blocked is not None:
        if blocked[0] == "failed" and event == "session-start":
            say("its environment could not be prepared (%s; log: %s); tried again in an "
                "hour, or delete %s" % (blocked[1], os.path.join(data, LOG),
                                        os.path.join(data, FAILED)))
        elif blocked == ("building", True):  # said once, by the hook that started the build
            say("preparing its Python environment in %s in the background (first use or "
                "a plugin update): this session is not recorded, the next one is"
                % os.path.join(data, ENV))
        return 0
    # The payload is still on stdin: the hook reads it.
    run_vaultmem(data, ["hook", event])
    return 0


if __name__ == "__main__":
    hook = len(sys.argv) < 2 or sys.argv[1] not in ("--build", CLI)
    try:
        code = main(sys.argv)
    except Exception as err:  # noqa: BLE001 - a hook never fails Claude Code
        say("plugin %s failed: %s: %s" % ("hook" if hook else "launcher", type(err).__name__, err))
        code = 1
    sys.exit(0 if hook else code)
