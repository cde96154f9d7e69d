"""Work done in a forked child process while this one does other work.

A run has parts of the same cost that do not depend on each other (two api-ref trees or two
large YAML files to read, two documents to validate while the comparison runs): a copy of
this process does one of them, side by side. The child is a `fork`: it needs nothing read again, and its answer
comes back pickled through a pipe (it is our own data, made by our own code). The tool runs
no threads, so forking it is safe.
Where the platform cannot fork, or the child fails for any reason, `result` is None and
the caller does the work itself: the answer is the same either way, only slower.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")
AuditHook = Callable[[str, tuple[Any, ...]], None]


@dataclass(frozen=True)
class Child(Generic[T]):
    pid: int
    pipe: int  # the read end


def can_fork() -> bool:
    """Linux only: elsewhere forking a process that may hold other threads' locks is
    unsafe (macOS) or impossible (Windows)."""
    return sys.platform.startswith("linux")


def start(work: Callable[[], T], hook: AuditHook | None = None) -> Child[T] | None:
    """A child that runs `work` (under the audit hook, if given) and sends its answer."""
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
        answer = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as out:
            out.write(answer)
        code = 0
    finally:
        os._exit(code)


def result(child: Child[T]) -> T | None:
    """The child's answer; None when it failed (the caller then does the work itself)."""
    with os.fdopen(child.pipe, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    answer: T = pickle.loads(data)  # noqa: S301 - our own child's answer
    return answer


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


def stop(child: Child[T]) -> None:
    """End a child whose answer is no longer wanted (the parent failed first)."""
    import signal

    os.close(child.pipe)
    os.kill(child.pid, signal.SIGKILL)
    os.waitpid(child.pid, 0)
