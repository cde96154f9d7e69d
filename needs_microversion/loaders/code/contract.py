"""The entry point: one revision's code -> its declared contract, or None.

    contract = read_code_contract(rev.read, rev.files(),
                                  read_many=lambda paths: dict(rev.read_many(paths)))
    contract.document      # OpenAPI 3.1 for loaders/openapi/builder.py
    contract.unread        # what could not be computed: file, line, reason (warnings)

The repository's code is read as text and parsed; it is never imported or run. A revision
whose code the reader cannot get through in its step or time budget (a hostile file) is an
InputError naming the file: the caller drops the code snapshot with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from needs_microversion.errors import InputError
from needs_microversion.loaders.code import (
    is_api_code, mapper, masakari, nova, pecan, placement)
from needs_microversion.loaders.code.decorators import ControllerReader
from needs_microversion.loaders.code.interpreter import Interpreter
from needs_microversion.loaders.code.output import Converter
from needs_microversion.loaders.code.records import CodeContract, Unread
from needs_microversion.loaders.code.source import Read, ReadMany, SourceTree
from needs_microversion.loaders.code.to_openapi import build_document, written_marks_of
from needs_microversion.loaders.code.values import BudgetExceeded
from needs_microversion.model.versions import Version, parse_version


def read_code_contract(read: Read, listing: Sequence[str], *,
                       read_many: ReadMany | None = None,
                       max_version: Version | None = None) -> CodeContract | None:
    """The contract nova's, masakari's, manila's, cinder's, placement's, ironic's or zun's
    code declares at one revision; None for a repository without such code. `read(path)` gives a
    file's bytes (None: absent); `read_many(paths)`, if given, reads many at once (one git
    call instead of hundreds); `max_version`: the version file's maximum at that revision
    (the caller reads it, with the rest of the repository's evidence), written as the
    document's `info.version`."""
    source = SourceTree(read, listing, read_many)
    router = mapper.router_of(source)
    app = pecan.app_of(source)
    if nova.has_routes(source):
        project, where = "nova", nova.VERSION_FILE
    elif masakari.has_routes(source):
        project, where = "masakari", masakari.VERSION_FILE
    elif router is not None:
        project, where = router.project, router.version_file
    elif placement.has_routes(source):
        project, where = "placement", placement.VERSION_FILE
    elif app is not None:
        project, where = app.project, app.version_file
    else:
        return None
    source.prefetch(p for p in sorted(source.files) if is_api_code(p, project))
    interp = Interpreter(source)
    unread: list[Unread] = []
    controllers = ControllerReader(interp, unread,
                                   int_major=app.int_major if app is not None else None)
    try:
        if project == "nova":
            operations = nova.read_routes(interp, controllers, unread)
        elif router is not None:
            operations = mapper.read_routes(router, interp, controllers, unread)
        elif project == "placement":
            operations = placement.read_routes(interp, unread)
        elif app is not None:
            operations = pecan.read_routes(app, interp, controllers, unread)
        else:
            operations = masakari.read_routes(interp, source, controllers, unread)
        converter = Converter(interp.origins)
        document = build_document(project, operations, max_version, converter,
                                  min_version=_min_version(source.text(where)),
                                  ranges_declared=app is None or app.ranges_declared)
    except (RecursionError, MemoryError):
        raise InputError("the code contract could not be read: nested too deeply or too large",
                         where) from None
    except BudgetExceeded as exc:
        raise InputError(f"the code contract could not be read: {exc}", where) from None
    found = {(u.file, u.line, u.reason): u for u in [*unread, *converter.unread.values()]}
    return CodeContract(project, operations, document, written_marks_of(document, converter),
                        unread=tuple(sorted(found.values(), key=lambda u: (u.file, u.line))),
                        symbolic=tuple(sorted(converter.symbolic)),
                        inputs=tuple(sorted(source.inputs)),
                        folders=tuple(sorted(source.folders.items())))


# `_MIN_API_VERSION = '2.1'` (nova), `"1.0"` (masakari): the first microversion the API
# serves. A range that starts there starts nowhere: `expected_errors((404,), '2.1', '2.101')`
# beside `expected_errors((404, 409), '2.102')` is the 404 of every version.
_MIN_API_VERSION = re.compile(r"""^_MIN_API_VERSION\s*=\s*['"](\d+\.\d+)['"]""", re.MULTILINE)


def _min_version(text: str | None) -> Version | None:
    found = _MIN_API_VERSION.search(text or "")
    return parse_version(found.group(1)) if found else None
