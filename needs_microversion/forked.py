"""Work done in a forked child process while this one does other work.

A run has parts of the same cost that do not depend on each other (two api-ref trees or two
large YAML files to read, two documents to validate while the comparison runs): a copy of
this process does one of them, side by side. The child is a `fork`: it needs nothing read
again, and its answer comes back pickled through a pipe (it is our own data, made by our own
code). Work that needs a slow import first (validation) goes to a `helper` started before
the inputs are read. The tool runs no threads, so forking it is safe.
Where the platform cannot fork, or the child fails for any reason, `result` is None and
the caller does the work itself: the answer is the same either way, only slower.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")
AuditHook = Callable[[str, tuple[Any, ...]], None]


@dataclass(frozen=True)
class Child(Generic[T]):
    pid: int | None  # None: a helper's child (the helper waits for it)
    pipe: int  # the read end


@dataclass(frozen=True)
class Helper:
    """A child started early to get ready (import what the work needs) while this process
    reads the inputs; then given the work (`give`), one child of its own per piece."""

    pid: int
    jobs: int  # the write end of the pipe the work goes through
    answers: tuple[int, ...]  # read ends, one per piece of work it can take


def can_fork() -> bool:
    """Linux only: elsewhere forking a process that may hold other threads' locks is
    unsafe (macOS) or impossible (Windows). Not inside `here_only`."""
    return sys.platform.startswith("linux") and not _here_only


_here_only = False


@contextmanager
def here_only() -> Iterator[None]:
    """Do every piece of work in this process for the rest of the block: the process is
    one of several already sharing the cores (`history`'s workers), and what it reads
    stays in its memory for the next piece (a child's reads are lost with it)."""
    global _here_only
    before, _here_only = _here_only, True
    try:
        yield
    finally:
        _here_only = before


def start(work: Callable[[], T], hook: AuditHook | None = None,
          after: Callable[[], object] | None = None) -> Child[T] | None:
    """A child that runs `work` (under the audit hook, if given) and sends its answer;
    then `after` (keeping what it read in the cache), while this process goes on with the
    answer. The child is waited for when this process ends (`wait_answered`), never left behind."""
    if not can_fork():
        return None
    try:
        read_end, write_end = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid:
        os.close(write_end)
        return Child(pid, read_end)
    code = 1
    try:  # the child: never returns, never runs the parent's clean-up or flushes its output
        os.close(read_end)
        if hook is not None:
            sys.addaudithook(hook)
        answer = _dumps((_DONE, work()))
        with os.fdopen(write_end, "wb") as out:
            out.write(answer)
        code = 0
        if after is not None:
            with suppress(Exception):  # the answer is given: what fails here is only lost
                _behind()
                after()
    finally:
        os._exit(code)


def aside(work: Callable[[], object]) -> bool:
    """`work` (keeping what was read in the cache) done by a child while this process goes
    on; False when no child could be started (the caller does it, or does without). What
    fails in the child is lost with it; it is waited for when this process ends."""
    if not can_fork():
        return False
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid:
        _later(pid)
        return True
    try:  # the child: never returns, never runs the parent's clean-up or flushes its output
        with suppress(Exception):
            _behind()
            work()
    finally:
        os._exit(0)


def _behind() -> None:
    """Work no one waits for (keeping what was read in the cache) yields the processor to
    the work the answer waits for: a child still reading, this process judging."""
    with suppress(OSError):
        os.nice(_BEHIND)


_BEHIND = 10  # of 19: the scheduler gives such a process about a tenth of a busy core


def result(child: Child[T]) -> T | None:
    """The child's answer; None when it failed (the caller then does the work itself). A
    whole answer is taken at once; the child, maybe still at its `after`, is waited for at
    the end (`wait_answered`)."""
    with os.fdopen(child.pipe, "rb") as pipe:
        data = pipe.read()
    try:
        done, answer = _loads(data)  # our own child's answer
    except Exception:  # noqa: BLE001 - a child that died mid-answer (or never began)
        done, answer = None, None
    if child.pid is not None:
        if done != _DONE:
            os.waitpid(child.pid, 0)
        else:
            _later(child.pid)
    return answer if done == _DONE else None


_DONE = "done"  # the mark of a whole answer (a child that died mid-answer sends none)
_pending: list[int] = []  # children that answered, not yet waited for


def _later(pid: int) -> None:
    """Wait for the child now if it has ended, else when this process ends."""
    with suppress(ChildProcessError):
        if os.waitpid(pid, os.WNOHANG)[0] == 0:
            if not _pending:
                import atexit

                atexit.register(wait_answered)
            _pending.append(pid)


def wait_answered() -> None:
    """Wait for every child that answered and went on (it keeps what it read)."""
    while _pending:
        with suppress(ChildProcessError):
            os.waitpid(_pending.pop(), 0)


# Linux lets any process give a pipe this much room (/proc/sys/fs/pipe-max-size). Work that
# fits is handed over at once; larger work waits until the helper is ready to read it.
_JOBS_PIPE_BYTES = 1 << 20


def helper(prepare: Callable[[], object], slots: int = 2) -> Helper | None:
    """A helper that runs `prepare` now and then waits for at most `slots` pieces of work.
    It leads a process group of its own, so `end` ends its children with it."""
    if not can_fork():
        return None
    try:
        jobs_read, jobs_write = os.pipe()
        with suppress(OSError, AttributeError):  # room for small documents: `give` won't wait
            fcntl.fcntl(jobs_write, fcntl.F_SETPIPE_SZ, _JOBS_PIPE_BYTES)
        answers = [os.pipe() for _ in range(slots)]
        pid = os.fork()
    except OSError:
        return None
    if pid:
        os.close(jobs_read)
        for _, write_end in answers:
            os.close(write_end)
        return Helper(pid, jobs_write, tuple(read_end for read_end, _ in answers))
    code = 1
    try:  # the helper: never returns (as in `start`)
        os.setpgid(0, 0)
        os.close(jobs_write)
        for read_end, _ in answers:
            os.close(read_end)
        prepare()
        works = _receive(jobs_read)
        children = []
        # Fewer pieces of work than slots: the last slots stay unused.
        for i, (work, (_, write_end)) in enumerate(zip(works, answers, strict=False)):
            last = i == len(works) - 1
            if last or (child := os.fork()) == 0:
                _answer(work, write_end)
                if not last:
                    os._exit(0)
            else:
                children.append(child)
                os.close(write_end)
        for child in children:
            os.waitpid(child, 0)
        code = 0
    finally:
        os._exit(code)


# Documents up to this size in all are handed to a helper: their pickled data (about twice
# the text) is held by it besides this process's; larger ones take seconds to validate, next
# to which the 0.2 s saved is nothing, so copies of this process (sharing its memory) do.
HELPER_BYTES = 4 * 2**20
# A helper started before the arguments were parsed, for the two files it guessed (launch.py).
_early: dict[tuple[str, ...], Helper] = {}


def small_files(paths: tuple[str, ...]) -> bool:
    """Whether the paths are regular files on disk of at most HELPER_BYTES in all (read
    when called, so a test may lower it)."""
    try:
        found = [os.stat(path) for path in paths]
    except (OSError, ValueError):  # not on disk (REV:PATH), not there, a NUL in the name
        return False
    return all(stat.S_ISREG(f.st_mode) for f in found) and \
        sum(f.st_size for f in found) <= HELPER_BYTES


def start_early(paths: tuple[str, ...], prepare: Callable[[], object]) -> None:
    """Start a helper now for work on `paths` that the command will likely ask for."""
    started = helper(prepare)
    if started is not None:
        _early[paths] = started


def take_early(paths: tuple[str, ...]) -> Helper | None:
    """The helper started early for exactly these paths, if any (taken once)."""
    return _early.pop(paths, None)


def give(helper: Helper, works: list[Callable[[], T]]) -> list[Child[T]] | None:
    """Hand the helper its work; each piece's answer comes back as a child's would (their
    pipes are the caller's now: `end` the helper if they are not read). None when the helper
    is gone; it is then ended (the caller does the work some other way)."""
    try:
        if len(works) > len(helper.answers):
            raise ValueError("more work than the helper has room for")
        data = _dumps(works)
    except Exception:  # noqa: BLE001 - work that cannot be handed over is done another way
        dismiss(helper)
        return None
    try:
        _write_all(helper.jobs, len(data).to_bytes(8, "big") + data)
    except OSError:  # it died before reading (BrokenPipeError)
        end(helper.pid)
        for read_end in helper.answers:
            os.close(read_end)
        return None
    finally:
        os.close(helper.jobs)
    for read_end in helper.answers[len(works):]:
        os.close(read_end)
    return [Child(None, read_end) for read_end in helper.answers[:len(works)]]


def reap(helper: Helper) -> None:
    """Wait for a helper whose answers were all read."""
    with suppress(ChildProcessError):
        os.waitpid(helper.pid, 0)


def dismiss(helper: Helper) -> None:
    """End a helper that was given no work."""
    end(helper.pid)
    for fd in (helper.jobs, *helper.answers):
        os.close(fd)


def end(pid: int) -> None:
    """End a helper and its children at once (their answers are not wanted)."""
    import signal

    with suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # it may not have made its group yet
    with suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _receive(pipe: int) -> list[Callable[[], Any]]:
    """The helper's work: a length, then that many bytes (no end of file to wait for: a
    child forked later holds the write end too). Nothing: the parent is gone."""
    with os.fdopen(pipe, "rb") as source:
        size = int.from_bytes(source.read(8) or b"\0", "big")
        data = source.read(size) if size else b""
    if not data or len(data) != size:
        os._exit(0)
    works: list[Callable[[], Any]] = _loads(data)  # our parent's work
    return works


def _answer(work: Callable[[], Any], write_end: int) -> None:
    answer = _dumps((_DONE, work()))
    with os.fdopen(write_end, "wb") as out:
        out.write(answer)


def alongside(work: Callable[[], T] | None, here: Callable[[], U]) -> tuple[T | None, U]:
    """`work` in a child (when given) while `here` runs in this process: the child's answer
    (None: no child, or it failed) and `here`'s. A failure here ends the child first."""
    child = start(work) if work is not None else None
    try:
        mine = here()
    except BaseException:
        if child is not None:
            stop(child)
        raise
    return (result(child) if child is not None else None), mine


class Later(Generic[T]):
    """`work` done by a child started now, its answer taken when first asked; done here
    instead when the platform cannot fork, the child fails (or answers None), or `fork`
    is False (the caller knows the work is light). (State, not a record: it stands for a
    process still running.)"""

    def __init__(self, work: Callable[[], T], *, hook: AuditHook | None = None,
                 after: Callable[[], object] | None = None,
                 here: Callable[[], T] | None = None, fork: bool = True) -> None:
        self.here = here or work  # what this process does when the child gives nothing
        self.child = start(work, hook, after) if fork else None
        self.taken = False
        self.value: T | None = None

    def __call__(self) -> T:
        if not self.taken:
            child, self.child, answer = self.child, None, None
            if child is not None:  # an answer is taken once
                answer = result(child)
            self.value = self.here() if answer is None else answer
            self.taken = True
        return self.value  # type: ignore[return-value]  # set above, None only when T allows

    def stop(self) -> None:
        """End the child when its answer was never taken (the run failed first)."""
        child, self.child = self.child, None
        if child is not None:
            stop(child)


def stop(child: Child[T]) -> None:
    """End a child whose answer is no longer wanted (the parent failed first)."""
    import signal

    os.close(child.pipe)
    if child.pid is not None:  # a helper's child ends with its helper (`end`)
        os.kill(child.pid, signal.SIGKILL)
        os.waitpid(child.pid, 0)


# pickle is imported only by a run that forks: a plain diff of two JSON files does not, and
# pickle (with struct and its tables) is 2 ms of start-up.
def _dumps(value: Any) -> bytes:
    import pickle

    return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def _loads(data: bytes) -> Any:
    import pickle

    return pickle.loads(data)  # noqa: S301 - our own process's data, made by our own code
