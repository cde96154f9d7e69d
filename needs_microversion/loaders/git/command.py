"""How git is run: the one module that starts it.

Reading a repository must never make git run another program or reach the network, whatever
the repository's configuration, the environment or the files hold. Git runs programs named
in settings (core.fsmonitor, clean/smudge/process filters, textconv, external diffs, pagers,
hooks, signature checks, remote helpers) and fetches the missing objects of a partial clone
from its promisor remote. So every call here:

- starts `git` by argument list (never a shell), stdin closed or the bytes given;
- with the environment scrubbed of every `GIT_*` variable except those that only locate the
  repository or choose the user's own configuration files: `GIT_CONFIG_PARAMETERS`,
  `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, `GIT_EXEC_PATH`, `GIT_EXTERNAL_DIFF`, `GIT_PAGER`,
  `GIT_SSH_COMMAND`, `GIT_TRACE*` ... are dropped;
- with `-c` settings that switch each carrier off: settings on the command line win over
  every configuration file and whatever those include;
- with no transport allowed (`GIT_ALLOW_PROTOCOL` names none, which wins over any
  `protocol.*.allow`) and lazy fetching off (`GIT_NO_LAZY_FETCH`, git 2.45+), so a missing
  object is an error naming it, never a connection;
- within a time limit, after checking that the files git opens first (the configuration and
  what it includes) are not FIFOs or devices, on which git would block.

Which commands run matters as much: only plumbing that never converts working-tree content
(`rev-parse`, `ls-tree`, `ls-files`, `cat-file --batch` without `--filters`, `diff` between
two trees or the index, `log`, `describe`, `for-each-ref`). The working tree is compared by
hashing what is read (`worktree.py`), never with `git diff <rev>`, which refreshes the index
and runs clean filters.
"""

from __future__ import annotations

import atexit
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from needs_microversion.collector import linger
from needs_microversion.errors import InputError

# Switches for every program a read-only command could be made to run. Hooks, textconv and
# external diffs are also refused by the flags each command is given (--no-textconv,
# --no-ext-diff); these hold for any command.
SETTINGS = (
    "core.fsmonitor=false",  # a program run on every index read
    "core.hooksPath=/dev/null",
    "core.untrackedCache=false",
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=false",
    "credential.helper=",  # an empty value empties the list of helpers
    "log.showSignature=false",  # gpg.program would verify signatures in `log`
    "protocol.allow=never",
    "submodule.recurse=false",
    "gc.auto=0",
    "maintenance.auto=false",
    # What the output is parsed as: no colour, paths from the top, no rename detection.
    "color.ui=false",
    "diff.relative=false",
    "diff.renames=false",
    "log.follow=false",
    "core.quotePath=false",
)
# Variables that locate the repository or name the user's own configuration files; every
# other GIT_* variable is dropped.
_LOCATING = frozenset({
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
})
_FIXED = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",  # never write the index (a refresh) while reading it
    "GIT_ALLOW_PROTOCOL": "none",  # no transport: a partial clone's fetch fails at once
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",  # objects as stored, not as `git replace` rewrites them
    "LC_ALL": "C",
}
ENV_TIMEOUT = "NEEDS_MICROVERSION_GIT_TIMEOUT"
DEFAULT_TIMEOUT = 60.0  # seconds; nova's whole history is read in about 1 s
# "could not fetch <id> from promisor remote", "unable to read <id>", "<id> missing"
_OBJECT_ID = re.compile(r"\b([0-9a-f]{40}|[0-9a-f]{64})\b")
_MISSING = ("promisor remote", "unable to read", "missing", "not allowed", "bad object",
            "could not fetch", "lazy fetch")
_INCLUDE = re.compile(r"^\s*\[\s*include(?:if\s+\"[^\"]*\")?\s*\]", re.IGNORECASE)
_SECTION = re.compile(r"^\s*\[")
_PATH_KEY = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.IGNORECASE)
_MAX_CONFIG_BYTES = 4 * 2**20


class GitFailed(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def environment() -> dict[str, str]:
    """The environment every git call gets: GIT_* scrubbed, the fixed switches set."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") or name in _LOCATING}
    env.update(_FIXED)
    return env


def command(cwd: Path, *args: str) -> list[str]:
    """The argument list of one git call (what runs; a test reads it)."""
    settings = [item for setting in SETTINGS for item in ("-c", setting)]
    return ["git", "--no-pager", "--literal-pathspecs", *settings, "-C", str(cwd), *args]


def timeout() -> float:
    chosen = os.environ.get(ENV_TIMEOUT, "")
    try:
        value = float(chosen) if chosen else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if value > 0 else DEFAULT_TIMEOUT


# Answers of read-only git commands within one `cached()` block (one `check` run): the
# same revisions and paths are asked about for every document and both sides.
_CACHE: dict[tuple[str, tuple[str, ...], bytes | None], bytes | GitFailed] | None = None


@contextmanager
def cached() -> Iterator[None]:
    """Remember git's answers inside the block; the repository must not change meanwhile."""
    global _CACHE
    outer, _CACHE = _CACHE, {} if _CACHE is None else _CACHE
    try:
        yield
    finally:
        linger(_CACHE)  # the blobs read: never freed one by one when the process ends now
        _CACHE = outer


def git(cwd: Path, *args: str, stdin: bytes | None = None, remember: bool = True) -> bytes:
    """git's standard output; GitFailed with its first error line when it fails.
    `remember=False`: an answer too large to keep (blob contents)."""
    if _CACHE is None or not remember:
        return run(cwd, *args, stdin=stdin)
    key = (str(cwd), args, stdin)
    if key not in _CACHE:
        try:
            _CACHE[key] = run(cwd, *args, stdin=stdin)
        except GitFailed as exc:
            _CACHE[key] = exc
    answer = _CACHE[key]
    if isinstance(answer, GitFailed):
        raise answer
    return answer


def run(cwd: Path, *args: str, stdin: bytes | None = None) -> bytes:
    limit = timeout()
    try:
        done = subprocess.run(command(cwd, *args), input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL,
                              capture_output=True, env=environment(), check=False,
                              timeout=limit)
    except FileNotFoundError:
        raise InputError("git is not installed (needed to read a repository)") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {args[0]} did not answer within {limit:g} s (a FIFO or a "
                         f"device where git reads a file?)", str(cwd)) from None
    except OSError as exc:  # no such current folder, too long an argument list
        raise InputError(f"cannot run git: {exc.strerror or exc}", str(cwd)) from None
    if done.returncode != 0:
        raise GitFailed(done.returncode, _reason(done.stderr))
    return done.stdout


def _reason(stderr: bytes) -> str:
    """What git's error output says: the line that names a missing object (a partial
    clone), else the first."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    reason = next((line for line in lines if missing_object(line)), lines[0] if lines else "")
    for prefix in ("fatal: ", "error: "):
        reason = reason.removeprefix(prefix)
    return reason


class Batch:
    """One long-lived `git cat-file --batch` (or `--batch-check`): every object a run reads
    is asked of it, instead of starting git (two processes: sizes, then contents) for each
    read; a `check` made some thirty such calls, each forking this large process.

    Requests are lines of object ids, written at most `REQUEST_BYTES` at a time (git reads
    them all while this process does not read yet, so neither side waits on a full pipe);
    the answers are then read in order, within the time limit. A process forked from this
    one starts its own (the pipes are this process's). Anything unexpected (an answer cut
    short, the time limit) ends it: the next read starts another."""

    REQUEST_BYTES = 32 * 1024

    def __init__(self, cwd: Path, *args: str) -> None:
        try:
            self.process = subprocess.Popen(
                command(cwd, *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=environment())
        except FileNotFoundError:
            raise InputError("git is not installed (needed to read a repository)") from None
        except OSError as exc:
            raise InputError(f"cannot run git: {exc.strerror or exc}", str(cwd)) from None
        self.cwd, self.owner, self.buffer = cwd, os.getpid(), bytearray()
        self.errors = bytearray()  # what it said on stderr (the first 64 KiB)
        self.deadline = 0.0

    def ask(self, request: bytes) -> None:
        """Send request lines (at most REQUEST_BYTES); their answers are read next."""
        assert len(request) <= self.REQUEST_BYTES and self.process.stdin is not None
        import time

        self.deadline = time.monotonic() + timeout()
        try:
            self.process.stdin.write(request)
            self.process.stdin.flush()
        except OSError:  # it ended before reading (a broken repository): say why
            raise self._ended() from None

    def line(self) -> bytes:
        """The next answer line, without its newline."""
        while (end := self.buffer.find(b"\n")) < 0:
            self._fill()
        found = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        return found

    def take(self, size: int) -> bytes:
        """The next `size` bytes (and the newline after them, dropped)."""
        while len(self.buffer) < size + 1:
            self._fill()
        found = bytes(self.buffer[:size])
        del self.buffer[:size + 1]
        return found

    def _fill(self) -> None:
        """More of the answer; its error output read too, so that it never fills a pipe
        (and says why, should git end before answering)."""
        import select
        import time

        assert self.process.stdout is not None and self.process.stderr is not None
        out, err = self.process.stdout.fileno(), self.process.stderr.fileno()
        while True:
            ready = [out]
            if hasattr(select, "poll"):  # elsewhere (Windows: no FIFO for git to block on)
                poll = select.poll()     # the read waits as long as git takes
                poll.register(out, select.POLLIN)
                poll.register(err, select.POLLIN)
                left = self.deadline - time.monotonic()
                ready = [fd for fd, _ in poll.poll(left * 1000)] if left > 0 else []
                if not ready:
                    raise InputError(f"git cat-file did not answer within {timeout():g} s",
                                     str(self.cwd))
            if err in ready and out not in ready:
                said = os.read(err, 1 << 16)
                self.errors += said[:max(0, (1 << 16) - len(self.errors))]
                if said:
                    continue
            chunk = os.read(out, 1 << 20)
            if chunk:
                self.buffer += chunk
                return
            raise self._ended()

    def _ended(self) -> GitFailed:
        """Why it ended, as a one-shot call would say (its code, its first error line)."""
        assert self.process.stderr is not None
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # its pipes closed, itself still there
            self.process.kill()
            code = self.process.wait()
        self.errors += self.process.stderr.read(1 << 16)
        return GitFailed(code, _reason(bytes(self.errors)) or "git cat-file ended before answering")

    def end(self) -> None:
        """Close the request pipe (git then ends) and wait for it; end it if it does not."""
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with suppress(OSError, ValueError):
                    pipe.close()
        if self.owner != os.getpid():  # a forked child's copies of the pipes: closed
            return
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_BATCHES: dict[tuple[str, tuple[str, ...]], Batch] = {}


def batch(cwd: Path, *args: str) -> Batch:
    """The running `git cat-file` of these arguments in this repository, started if none
    runs in this process."""
    key = (str(cwd), args)
    found = _BATCHES.get(key)
    if found is not None and found.owner == os.getpid() and found.process.poll() is None:
        return found
    if found is not None:
        drop(found)
    _BATCHES[key] = started = Batch(cwd, *args)
    return started


def drop(running: Batch) -> None:
    """End one (its answers no longer follow its requests: an error mid-way)."""
    for key, value in list(_BATCHES.items()):
        if value is running:
            del _BATCHES[key]
    if running.owner == os.getpid() and running.process.poll() is None:
        running.process.kill()
    running.end()


def end_batches() -> None:
    """End this process's batches (at exit); in a forked child, close its copies of the
    parent's pipes (they are not its to use or end)."""
    while _BATCHES:
        _, running = _BATCHES.popitem()
        running.end()


atexit.register(end_batches)
if hasattr(os, "register_at_fork"):  # POSIX: elsewhere no process forks
    os.register_at_fork(after_in_child=end_batches)


def missing_object(reason: str) -> str | None:
    """The object id a failure names as missing or unfetchable (a partial clone), if any."""
    found = _OBJECT_ID.search(reason)
    if found is None or not any(word in reason for word in _MISSING):
        return None
    return found.group(1)


def missing_message(sha: str, top: Path) -> str:
    """What to say of an object a partial (or broken) clone lacks: git fetches it lazily
    for commands the user runs, never for this tool."""
    return (f"git object {sha} is not in this clone (a partial clone?); this tool never "
            f"fetches: run 'git -C {top} cat-file -e {sha}' to fetch it from the promisor "
            f"remote, or clone without --filter")


def guard_repository(folder: Path, display: str) -> None:
    """Before git is first asked about the repository holding `folder`: refuse one whose
    configuration (or a file it includes), HEAD, index, packed refs or exclude file is a
    FIFO, a device or a folder, on which git would block or read without end."""
    git_dir = git_dir_of(folder)
    if git_dir is None:
        return  # git says what is wrong (or finds what GIT_DIR names)
    pointer = _small_text(git_dir / "commondir")
    common = git_dir / pointer.strip() if pointer else git_dir
    for path in (git_dir / "HEAD", git_dir / "index", common / "packed-refs",
                 common / "info" / "exclude"):
        _regular(path, display)
    pending = [common / "config", git_dir / "config.worktree"]
    seen: set[str] = set()
    while pending and len(seen) < 64:
        path = pending.pop()
        if os.path.abspath(path) in seen:
            continue
        seen.add(os.path.abspath(path))
        if _regular(path, display) > _MAX_CONFIG_BYTES:
            raise InputError(f"git configuration file {path} is larger than "
                             f"{_MAX_CONFIG_BYTES // 2**20} MiB", display)
        pending.extend(_included(path))


def _regular(path: Path, display: str) -> int:
    """The size of a file git will open: 0 when absent (git skips it), InputError when it
    is no regular file."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return 0
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path} is not a regular file (git would block on a FIFO or a "
                         f"device)", display)
    return info.st_size


def git_dir_of(folder: Path) -> Path | None:
    """The git folder of the repository holding `folder`, found as git finds it (`$GIT_DIR`,
    a `.git` folder, a `.git` file naming one, a bare repository), without running git."""
    named = os.environ.get("GIT_DIR")
    if named:
        return folder / named
    for candidate in (folder, *folder.parents):
        dot = candidate / ".git"
        try:
            if dot.is_dir():
                return dot
            pointer = _small_text(dot)
            if pointer and pointer.startswith("gitdir:"):
                return candidate / pointer.removeprefix("gitdir:").strip()
            if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
                return candidate  # a bare repository
        except (OSError, ValueError):
            return None
    return None


def _small_text(path: Path, limit: int = 4096) -> str | None:
    """A regular file's first `limit` bytes as text (a `.git` or `commondir` pointer, a
    configuration file); None when it is absent or no regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(limit).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _included(path: Path) -> list[Path]:
    """The files a configuration file includes (`[include]`, `[includeIf ...]` path=)."""
    text = _small_text(path, _MAX_CONFIG_BYTES) or ""
    found: list[Path] = []
    inside = False
    for line in text.splitlines():
        if _SECTION.match(line):
            inside = _INCLUDE.match(line) is not None
            continue
        match = _PATH_KEY.match(line) if inside else None
        if match:
            value = match.group(1).strip('"')
            if value.startswith("~/"):
                value = os.path.join(os.path.expanduser("~"), value[2:])
            found.append(path.parent / value)
    return found
