"""os-api-ref ("api-ref") source trees -> an OpenAPI 3.1 document (docs/contract-model.md).

    result = load_apiref(Path("nova/api-ref/source"))
    result.document      # plain dicts and lists, OpenAPI 3.1 with our x- conventions
    result.warnings      # "file:line: message"
    result.max_version   # "2.104": the highest microversion written in structured places

Reading: every `.inc` and `.rst` below `source` (document order: index.rst's includes
first; a file included twice counts once). Files are scanned by `rst`, a line-based
reader that follows docutils' rules for what we read (titles and levels, directive blocks,
section-level paragraphs); files it finds ambiguous or broken are re-read by docutils
(`rst_docutils`), whose system messages become the warnings, and a test checks that both
readers agree on all 844 distinct corpus files. Why not docutils for every file: it takes
~0.75 s for nova's 67 .inc files (a new state machine per nested block) against ~0.04 s; the
whole load must fit in 0.7 s. Parsed files and parameters.yaml are cached by content hash
within a process, so the files an old and a new tree share are read once. Names outside
the sandbox (the repository folder) are never read. Parameter tables resolve against
parameters.yaml as os-api-ref does. How tables become bodies: `body`; how sections
become paths and operations: `to_openapi`.

Locations (`x-needs-microversion-location`), file names relative to `source`:
  operation             "servers.inc:100"                   the rest_method line
  parameter, property   "servers.inc:120 (parameters.yaml:3456)"
                        the table row, then the parameters.yaml definition in parentheses
  response              "servers.inc:199"                   the status-code line or row
  body root             "servers.inc:366"                   the rest_parameters line
The text before the first space is always "file:line".

Microversions come from parameter min_version/max_version, rest_method options, ranged
section titles ("Response (microversions 1.20 - )" for its tables; "Server tags
(microversion 2.26)", "Start Migration (Since version 2.15)" for the operations in and
below it), ranged status codes ("200 (microversions 2.0 - 2.100)"), versionadded/
versionchanged notes, and sentences that say only that ("Added in API microversion 1.14."
in a description, "This API is available starting with microversion 2.55." in an
operation's or its group's prose: `availability`); `info.version` is the highest of
them, a last version (`max_version: 2.56`) counting as the next (the API went on to 2.57).
Bounds read from notes, sentences and single-version titles, nesting guessed from
examples or wrappers, and allowed values read from descriptions (literal lists, bullets,
the first column of a table) carry `x-needs-microversion-inferred: true`.

Operation `description`: the prose of the operation's section up to its first subsection,
bold `**Request**`/`**Response**` paragraph or table (paragraphs before and after the
rest_method, notes and warnings as written, RST markup kept; version notes as Sphinx shows
them, "New in version 2.26: ..."; status-code lines are codes, not prose), so the engine can
see a microversion the prose announces ("... prior microversion 2.31. Now ..."). Sections
merged into one operation join their descriptions.

Example evidence, written when a body's operation has example JSON of that kind
(literalinclude of a file inside the tree, only the part its `:lines:`, `:start-after:`...
options show; request examples for the request body, the others for the response bodies).
Documentation, never contract:
  x-needs-microversion-example-keys: true       on the body root (and on each variant root
                                                of a ranged body): examples were read, so a
                                                field without the key below is absent there
  x-needs-microversion-example: {"type": T}     on each property, array-items and map-value
                                                schema the examples reach at its place in
                                                the schema; T is the JSON type shown (object,
                                                array, string, integer, number, boolean,
                                                null), or the sorted list of types when the
                                                examples disagree (integer beside a fraction
                                                is number)
  x-needs-microversion-example-unlisted: [K]   on each object schema (the root too) whose
                                                examples show keys K its table lists no
                                                row for (not in a free-form map, not uuids)
e.g. manila's table said `members` is a string while the sample always had `"members": []`:
a later correction to array agrees with the example the old tree already showed; cinder's
volume list example showed `volumes_links` before a row listed it.

Tables outside any operation (nova's request-ids.inc global headers) are ignored, silently:
the contract model has no place for global headers, and they never change per operation.

Files that say they are not yet checked against the code, with the os-api-ref comment
`.. needs:method_verification` (`parameter`, `example`, `body`), are listed on `info`:
  x-needs-microversion-unverified: {"limits.inc": ["example", "method"]}
Rows whose reference parameters.yaml does not define are read as nothing (with a warning);
their names are listed on `info` per file, since the table did list them:
  x-needs-microversion-unread: {"os-services.inc": ["binary"]}
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from needs_microversion.documents.files import DISK, Files
from needs_microversion.errors import InputError
from needs_microversion.loaders.apiref.context import TreeContext
from needs_microversion.loaders.apiref.records import Section
from needs_microversion.loaders.apiref.sections import read_sections
from needs_microversion.loaders.apiref.to_openapi import build_document
from needs_microversion.loaders.apiref.tree import open_tree
from needs_microversion.loaders.openapi.builder import MAX_OPERATIONS
from needs_microversion.model.extensions import (
    ADVERTISED_KEY, PROSE_KEY, UNREAD_KEY, UNVERIFIED_KEY)

# An RST comment os-api-ref projects put atop a file until its part is checked against the
# code (nova's 2016 burndown: method, parameter, example, body).
_UNVERIFIED = re.compile(r"^\.\. needs:([a-z]+)_verification[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class ApiRefResult:
    document: dict[str, Any]
    warnings: tuple[str, ...]
    max_version: str | None


def load_apiref(source: Path, *, display: str | None = None, keep_major: bool | None = None,
                fs: Files = DISK, sandbox: Path | None = None) -> ApiRefResult:
    """Read one api-ref source folder (or a sub-folder such as `v3/`); `keep_major`: keep
    version prefixes in paths (None: only when the tree documents several versions); `fs`:
    where its files are (a git revision's, in memory); `sandbox`: no file outside it is
    read (default: the repository holding the tree, else the folder itself)."""
    shown = display or str(source)  # a git revision's tree is named as the user wrote it
    try:
        return _load(source, shown, display, keep_major, fs, sandbox)
    except InputError as exc:  # named from the tree's folder: name it as the user wrote it
        if exc.file is None or exc.file.startswith("/") or exc.file == shown:
            raise
        raise InputError(exc.reason, posixpath.join(shown, exc.file), exc.line) from None


def _load(source: Path, shown: str, display: str | None, keep_major: bool | None,
          fs: Files, sandbox: Path | None) -> ApiRefResult:
    if not fs.is_dir(source):
        raise InputError("not an api-ref source folder", shown)
    tree = open_tree(source, fs, sandbox)
    if not tree.files:  # a wrong folder would otherwise read as an API with no operations
        raise InputError("not an api-ref source folder (no .inc or .rst files)", shown)
    ctx = TreeContext(tree)
    sections: list[Section] = []
    for file in tree.files:
        sections.extend(read_sections(file, ctx))
        if len(sections) > MAX_OPERATIONS:  # each section is one rest_method
            raise InputError(f"has more than {MAX_OPERATIONS} operations (the limit)", shown)
    if ctx.outside:
        ctx.warn(ctx.outside[0], f"{len(ctx.outside)} example file(s) lie outside the "
                                 f"repository (or folder) of the tree and were not read "
                                 f"(nesting falls back to the table order)")
    version = max(ctx.versions, default=None)
    max_version = str(version) if version is not None else None
    warnings: list[str] = []

    def warn(where: str, message: str) -> None:
        warnings.append(f"{where}: {message}")

    document = build_document(sections, title=display or str(source), version=max_version,
                              warn=warn, keep_major=keep_major)
    if ctx.advertised:
        document["info"][ADVERTISED_KEY] = str(max(ctx.advertised))
    unverified = {file.rel: what for file in tree.files if ".. needs:" in file.text
                  and (what := sorted(set(_UNVERIFIED.findall(file.text))))}
    if unverified:
        document["info"][UNVERIFIED_KEY] = unverified
    if ctx.unread:
        document["info"][UNREAD_KEY] = {file: sorted(names) for file, names in ctx.unread.items()}
    document["info"][PROSE_KEY] = "\n\n".join(file.text for file in tree.files)
    # Files are named from the tree's folder; with `display`, as the user wrote the folder.
    named = [posixpath.join(display, w) if display else w
             for w in (*tree.warnings, *ctx.warnings, *warnings)]
    if not sections:
        named.append(f"{shown}: no rest_method sections found")  # the tree itself
    # One definition used by many tables says the same thing many times: say it once.
    return ApiRefResult(document, tuple(dict.fromkeys(named)), max_version)
