"""Hand-written api-ref samples read the way a reviewer reads them, slips and all.

A sample that is not JSON used to say nothing about where its rows sit, so the day someone
fixed a missing comma every row seemed to move (watcher's data model list, manila's access
rules, ironic's BIOS settings). A reader sees the intended structure through the common
slips, so `loads` does too: a missing `,` between members or items, a missing `:` after a
key, a trailing or doubled `,`, Python's `None`/`True`/`False`, raw control characters in
strings, a byte-order mark. The repair walks the tokens with a small state machine; it
never guesses past a token it does not know, and the repaired text must still parse as JSON.
"""

from __future__ import annotations

import json
import re

# A string runs to its closing quote, or to the end of an unterminated one: it never fails
# to match, so no quote is scanned from twice (a sample of escaped quotes stays linear).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.DOTALL)
_PYTHON = {"None": "null", "True": "true", "False": "false"}
_OPENERS = {"{": "}", "[": "]"}


# Real samples nest a dozen levels; what the loader walks below must stay far from Python's
# recursion limit.
MAX_DEPTH = 100


def loads(text: str) -> object:
    """The JSON value of `text`, repaired as above; ValueError (the strict parser's own
    message) when even the repaired text is not JSON, or when it nests deeper than
    MAX_DEPTH."""
    try:
        try:
            value = json.loads(text)
        except ValueError as problem:
            try:  # a byte-order mark is invisible to a reader
                value = json.loads(_repaired(text.removeprefix("\ufeff")), strict=False)
            except ValueError:
                raise problem from None
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    return _shallow(value)


def _shallow(value: object) -> object:
    """`value`, if it nests at most MAX_DEPTH levels (walked without recursion)."""
    level: list[object] = [value]
    for _ in range(MAX_DEPTH):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return value
    if any(isinstance(item, (dict, list)) for item in level):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def _repaired(text: str) -> str:
    """`text` with the slips above mended, whitespace kept."""
    out: list[str] = []
    stack: list[str] = []  # the open containers: "{" or "["
    # What the innermost container expects next: "key", "colon", "value" or "comma".
    expect = "value"
    end = 0
    for match in _TOKEN.finditer(text):
        token = _PYTHON.get(match.group(), match.group())
        out.append(text[end:match.start()])
        end = match.end()
        in_object = bool(stack) and stack[-1] == "{"
        if token == "," and _last_is_comma(out):
            continue  # a doubled comma
        if token in (",", ":"):
            if token == ":" and expect != "colon":
                return text  # not a slip this knows: leave it to the parser
            expect = ("key" if in_object else "value") if token == "," else "value"
        elif token in ("}", "]"):
            if not stack or _OPENERS[stack.pop()] != token:
                return text
            if expect in ("key", "value") and _last_is_comma(out):
                _drop_last_comma(out)  # a trailing comma
            expect = "comma"
        else:
            if expect == "comma":  # a value where a comma belongs: the comma is missing
                out.append(",")
                expect = "key" if in_object else "value"
            if expect == "colon":  # a key followed by its value: the colon is missing
                out.append(":")
                expect = "value"
            if expect == "key":
                if not token.startswith('"'):
                    return text
                expect = "colon"
            elif token in _OPENERS:
                stack.append(token)
                expect = "key" if token == "{" else "value"
            else:
                expect = "comma"
        out.append(token)
    out.append(text[end:])
    return "".join(out)


def _last_is_comma(out: list[str]) -> bool:
    return next((piece for piece in reversed(out) if piece.strip()), "") == ","


def _drop_last_comma(out: list[str]) -> None:
    for i in range(len(out) - 1, -1, -1):
        if out[i].strip():
            out[i] = ""
            return
