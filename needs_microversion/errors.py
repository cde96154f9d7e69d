"""The one error type every user-facing failure is raised as.

The CLI turns it into exit code 2 and a one-line message; nothing else catches it.
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage: the message names the file (and line where known)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        self.file = file
        self.line = line
        self.reason = _shortened(" ".join(message.split()), _MAX_REASON)  # no file, no line
        shown = _shortened(" ".join(file.split()), _MAX_NAME) if file else file
        where = f"{shown}:{line}: " if shown and line else f"{shown}: " if shown else ""
        # One line only: the CLI prints this verbatim.
        super().__init__(where + self.reason)


# A name or reason this long (a 120 KB argument) is shown by its ends: the line stays
# readable and still says which input it was.
_MAX_NAME = 240
_MAX_REASON = 2000


def _shortened(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    keep = (limit - 40) // 2
    return f"{text[:keep]}...({len(text) - 2 * keep} characters)...{text[-keep:]}"
