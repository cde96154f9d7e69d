from __future__ import annotations

import re
from typing import Any

from needs_microversion.model.change import Change, describe
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.base import Context, Rule

# A value the static code reader computes by name, not by running it:
# `<_build_regex_range(ws=True)#5f1c0a2e>` (the hash is the helper's source), or one it
# could not read at all (`x-needs-microversion-opaque`).
_SYMBOLIC = re.compile(r"<[\w.]+\(.*?\)#[0-9a-f]{8,}>")
_OPAQUE = "x-needs-microversion-opaque"


class UnreadValue(Rule):
    """Is the changed value one the code computes and the tool cannot read?

    What it checks
        A change of the code's contract whose old or new value a helper computes at run
        time (`helper-changed`: its source changed, so its value may have) or that the
        static reader could not compute at all (`value-unread`).

    Why it is reported for review
        The tool never runs the code it reads. A helper's value is named by the helper and a
        digest of its source (nova's `_build_regex_range`, which builds a Unicode pattern
        from 65,535 characters): equal while the source is, different once it is edited.
        Whether the accepted values changed cannot be read, so it is never silently equal:
        a reviewer reads the helper's diff.

    Example
        `parameter_types.valid_name_regex` is built by `_build_regex_range`; a change that
        edits that function changes the `pattern` of every name it guards.

    No microversion needed when
        The helper's diff shows it computes the same values (a rename, a faster loop). If it
        accepts other values, the change needs one like any other.

    Options
        None.
    """

    id = "unread-value"
    order = 7
    question = "Is the changed value one the code computes and the tool cannot read?"
    finding_ids = ("helper-changed", "value-unread")
    review = True

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        text = f"{_text(change.old)}\n{_text(change.new)}"
        if _OPAQUE in text:
            return self.finding("value-unread", NOT_REQUIRED, change,
                                f"{describe(change)}: the tool could not read this value in "
                                "the code; review it")
        if _SYMBOLIC.search(text):
            return self.finding("helper-changed", NOT_REQUIRED, change,
                                f"{describe(change)}: computed by a helper whose code changed; "
                                "review whether the values it accepts changed")
        return None


def _text(value: Any) -> str:
    return repr(value) if value is not None else ""
