"""The one error type every user-facing failure is raised as.

The CLI turns it into exit code 2 and a one-line message; nothing else catches it.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage: the message names the file (and line where known)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = " ".join(message.split())  # without the file and line
        where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
        # One line only: the CLI prints this verbatim.
        super().__init__(where + " ".join(message.split()))
