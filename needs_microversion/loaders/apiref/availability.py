"""Microversions that api-ref writes only in sentences, not in `min_version` fields or
`rest_method` options.

Only sentences whose whole point is availability are read; a sentence that says anything
more is skipped, because "Starting with microversion 2.37, this field is required" and
"These will fail with a 404 starting from microversion 2.36" also name a version, and
neither is when the element appeared. Variants seen in the five corpus projects:

  parameter descriptions   "Available starting in the 3.54 microversion." (cinder)
                           "Added in API microversion 1.14." / "v1.20" (ironic)
                           "Introduced in API version 1.21." (ironic)
                           "Available starting with API microversion 1.114." (ironic)
                           "New in version 2.37" / "**New in version 2.37**" (os-api-ref's
                           rendering of min_version, copied into generated text)
                           "Since microversion 2.53." as a sentence of its own
                           ".. versionadded:: 3.64" with no text of its own
                           "Available until version 2.35" (os-api-ref's rendering of
                           max_version: the last version that has it)
  operation prose          "This API is available starting with microversion 2.55." (nova)
                           "Available starting in the 3.27 microversion." (cinder)
                           "Available since version 2.26" (nova, above the operations)
                           "Traits API requests are availiable starting from version 1.6."
                           "Method is available starting from version 1.7." (placement)
                           "Action ``force-down`` available as of microversion 2.11." (nova)
                           ".. note:: Microversion 2.22 or greater is required for this API."
  titles                   "(Since version 2.15)", "(Since API Version 2.86)" (manila),
                           "(microversion 2.26)"; ranges are `prose.version_range`

Never read as a bound: "Changed in", "Deprecated since", "Prior to", "Before", "Up to",
"As of ... this contains", "Starting with X, <behaviour>": each dates a change of something
that already existed. "Prior to X" could be a maximum, but api-ref uses it just as often for
behaviour that changed at X, so it is left alone.
"""

from __future__ import annotations

import re
from functools import lru_cache

from needs_microversion.model.versions import (
    Version, VersionRange, mention_of, parse_version, version_mention)

# "version 2.26", "microversion 2.26", "API microversion v1.20", "the 3.27 microversion".
_VERSION = version_mention()
# "available" is misspelt "availiable" in placement's api-ref.
_SINCE = (r"(?:(?:new|added|introduced)\s+(?:in|since|with)"
          r"|(?:availi?able|supported)\s+(?:starting\s+(?:in|with|from)|since|from|as\s+of)"
          r"|since)")
_UNTIL = r"availi?able\s+(?:until|up\s+to(?:\s+and\s+including)?)"
_BE = r"\s+(?:is|are|was|were)\s+(?:only\s+)?"
_PARAMETER_SUBJECT = (r"(?:(?:this|the)\s+)?(?:field|parameter|attribute|key|header|property|"
                      r"option|filter)" + _BE)
# "This API", "Method", "Traits API requests", "Resource class API calls".
# "Action ``force-down``" (nova), "The ``os-extend`` action": the section's own action.
_OPERATION_SUBJECT = (r"(?:(?:[A-Za-z][\w-]*\s+){0,3}?(?:API|APIs|method|methods|operation|"
                      r"operations|calls?|requests?|endpoints?)" + _BE +
                      r"|(?:the\s+)?(?:action\s+``[\w:.-]+``|``[\w:.-]+``\s+action)"
                      r"(?:\s+is)?\s+)")
_PARAMETER_SINCE = re.compile(rf"^(?:{_PARAMETER_SUBJECT})?(?:only\s+)?{_SINCE}\s+{_VERSION}$",
                              re.IGNORECASE)
_PARAMETER_UNTIL = re.compile(rf"^(?:{_PARAMETER_SUBJECT})?(?:only\s+)?{_UNTIL}\s+{_VERSION}$",
                              re.IGNORECASE)
_OPERATION_SINCE = re.compile(rf"^(?:{_OPERATION_SUBJECT})?(?:only\s+)?{_SINCE}\s+{_VERSION}$",
                              re.IGNORECASE)
_OPERATION_REQUIRES = re.compile(rf"^{_VERSION}\s+or\s+(?:greater|later|higher|newer)\s+is\s+"
                                 r"required(?:\s+for\s+this\s+(?:API|method|operation|action))?$",
                                 re.IGNORECASE)
# A sentence ends at ".", "!" or "?" followed by white space (never inside "2.26").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NOT_PROSE = re.compile(r"^(?:[-*+]\s|[|+=]|\.\.)")
# ".. versionadded:: 3.64" (or the one-colon comment form) alone in a description.
_VERSIONADDED = re.compile(r"^\.\.\s+versionadded::?\s+v?(\d+\.\d+)\s*$")
# A title's "(Since version 2.15)", "(Since API Version 2.86)", "(microversion 2.26)".
_TITLE_SINCE = re.compile(r"\(\s*(?:(?:since|new\s+in|added\s+in|available\s+since)\s+)?"
                          r"(?:API\s+)?(?:micro-?)?version\s+v?(\d+\.\d+)\s*\)", re.IGNORECASE)


@lru_cache(maxsize=8192)  # one definition is shown by many tables
def parameter_range(description: str) -> VersionRange | None:
    """The bounds a parameter's description states in sentences of their own; None when it
    states none, or states two different starting versions (then neither is sure)."""
    if "version" not in description.lower():
        return None
    since: set[Version] = set()
    until: set[Version] = set()
    for paragraph in _paragraphs(description):
        added = _VERSIONADDED.match(paragraph[0])
        if added:
            if len(paragraph) == 1:  # with text it may date a value, not the field
                _add(since, added.group(1))
            continue
        for sentence in _sentences(paragraph):
            for pattern, found in ((_PARAMETER_SINCE, since), (_PARAMETER_UNTIL, until)):
                match = pattern.match(sentence)
                if match:
                    _add(found, mention_of(match))
    if len(since) > 1 or len(until) > 1 or not (since or until):
        return None
    return VersionRange(next(iter(since), None), next(iter(until), None))


@lru_cache(maxsize=8192)  # old and new trees share most paragraphs
def operation_since(text: str) -> Version | None:
    """The version from which a paragraph of an operation's (or its group's) prose says
    the operation exists; None unless one sentence says exactly that."""
    if "version" not in text.lower():
        return None  # most paragraphs: skip the sentence split
    found: set[Version] = set()
    for paragraph in _paragraphs(text):
        for sentence in _sentences(paragraph):
            match = _OPERATION_SINCE.match(sentence) or _OPERATION_REQUIRES.match(sentence)
            if match:
                _add(found, mention_of(match))
    return next(iter(found)) if len(found) == 1 else None


def title_since(title: str) -> Version | None:
    """"Start Migration (Since version 2.15)" -> 2.15."""
    match = _TITLE_SINCE.search(title)
    return parse_version(match.group(1)) if match else None


def _paragraphs(text: str) -> list[list[str]]:
    """Blank-line separated blocks, as lists of stripped lines."""
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _sentences(paragraph: list[str]) -> list[str]:
    if _NOT_PROSE.match(paragraph[0]):
        return []  # list items, tables and directives are never availability sentences
    text = " ".join(paragraph)
    return [_bare(s) for s in _SENTENCE_END.split(text)]


def _bare(sentence: str) -> str:
    """Without the markup around a whole sentence: "**New in version 2.37**",
    "(New in version 2.26)", the final full stop."""
    sentence = sentence.strip().strip("*").rstrip(".!").strip()
    if sentence.startswith("(") and sentence.endswith(")"):
        sentence = sentence[1:-1].strip().rstrip(".")
    return sentence


def _add(found: set[Version], text: str) -> None:
    version = parse_version(text)
    if version is not None:
        found.add(version)


# A status code's own version gate, in a sentence that names the code: "Starting with
# microversion 2.102, this API returns 409 Conflict ...", "Since microversion 3.71 the
# request fails with HTTP 409", "New in version 1.115: returns 409 when ...", ".. note::
# Microversion 2.38 or later returns 400 ...". The sentence must say where the code starts:
# a word that only names a version ("Prior to 2.102 ...", "no longer returns 409 from
# 2.36", "202 instead of 200") dates something else.
_CODE_VERSION = r"(?:the\s+)?(?:API\s+)?(?:micro-?)?(?:version\s+)?v?(\d{1,4}\.\d{1,4})(?![\d.]*\d)"
_CODE_SINCE = re.compile(
    rf"(?:\b(?:starting|beginning)\s+(?:with|from|in|at)\s+|\bsince\s+|\bas\s+of\s+"
    rf"|\b(?:new|added|introduced)\s+in\s+|\bfrom\s+){_CODE_VERSION}"
    rf"|\b(?:API\s+)?(?:micro-?)?version\s+v?(\d{{1,4}}\.\d{{1,4}})\s+(?:or|and)\s+"
    rf"(?:later|greater|higher|newer|above)",
    re.IGNORECASE)
_CODE_NOT_SINCE = re.compile(r"\b(?:no\s+longer|not|never|instead|rather\s+than|replac\w*|"
                             r"prior|before|until|up\s+to|removed|earlier|older)\b",
                             re.IGNORECASE)
_STATUS = re.compile(r"(?<![\d.])([1-5]\d\d)(?![\d.])")


@lru_cache(maxsize=4096)
def code_gates(text: str) -> tuple[tuple[int, Version], ...]:
    """(status, first version) for each code a sentence of `text` says starts at a
    microversion; a code two sentences date differently is left out (neither is sure)."""
    if "version" not in text.lower():
        return ()
    found: dict[int, set[Version]] = {}
    for paragraph in _paragraphs(text):
        if _NOT_PROSE.match(paragraph[0]):
            continue
        for sentence in _SENTENCE_END.split(" ".join(paragraph)):
            since = _CODE_SINCE.search(sentence)
            if since is None or _CODE_NOT_SINCE.search(sentence):
                continue
            version = parse_version(since.group(1) or since.group(2))
            if version is None:
                continue
            rest = sentence[:since.start()] + " " + sentence[since.end():]
            for status in {int(code) for code in _STATUS.findall(rest)}:
                found.setdefault(status, set()).add(version)
    return tuple((status, next(iter(versions)))
                 for status, versions in sorted(found.items()) if len(versions) == 1)

