"""openapi-spec-validator findings as warnings ("file:line: message").

Real published specs often fail validation, so problems are reported, not fatal, unless the
user asks for --strict. Imported only when validation runs: the validator is slow to import
(0.12 s without pydantic, `plain_settings`; most of a validated run on a small document),
so a helper process imports it while the documents are read (`ready`). Each document of a
diff is validated in a forked child process while this one compares them (`Beside`:
0.05-0.3 s more than an unvalidated run on the benchmark documents), and a document
validated in an earlier run is not validated again (`remembered`; then no helper is
started).
"""

from __future__ import annotations

import os
from pathlib import Path
import re
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from needs_microversion import forked
from needs_microversion.collector import collector_for_validation
from needs_microversion.documents.locate import line_of
from needs_microversion.documents.refs import RefResolver, RefusedRef
from needs_microversion.loaders.openapi.validation.remembered import (
    Checked, Remembered, files_read, folder)
from needs_microversion.model.document import Document

MAX_PROBLEMS = 20


class Beside:
    """The `problems` of some documents, found in forked child processes (one a document)
    while this one goes on (compares them): a validated run costs little more than an
    unvalidated one.

    The children are a `helper`'s when one was started before the documents were read (it
    imported the validator meanwhile: `ready`; the documents, every `$ref` read, are handed
    to it), else copies of this process that import it themselves (this process never
    needs it). Each runs under an audit hook that refuses the network and any file outside
    its document's tree and the Python installation. Where the platform cannot fork, or a
    child fails, its document is validated here when `problems` is asked: the same lists,
    later. A document whose problems are remembered (`remembered`) needs no child.
    """

    def __init__(self, sides: Sequence[tuple[Document, RefResolver]],
                 remembered: Remembered | None = None,
                 helper: forked.Helper | None = None) -> None:
        self._sides = list(sides)
        self._remembered = remembered if remembered is not None else Remembered(folder())
        # Answers known without validating: found in an earlier run (or asked before).
        self._known = [self._remembered.recall(doc, resolver) for doc, resolver in self._sides]
        unknown = [i for i, known in enumerate(self._known) if known is None]
        if helper is not None and not unknown:
            forked.dismiss(helper)  # nothing for it to do
            helper = None
        # None: no helper, or it is gone (`give` has ended it).
        given = forked.give(helper, [partial(_confined, *self._sides[i]) for i in unknown]) \
            if helper is not None else None
        self._helper = helper if given is not None else None
        self._children: list[forked.Child[Checked] | None] = [None] * len(self._sides)
        for n, i in enumerate(unknown):
            doc, resolver = self._sides[i]
            self._children[i] = given[n] if given is not None else forked.start(
                partial(_checked, doc, resolver), _confinement(resolver.root))

    def problems(self) -> list[list[str]]:
        """Each document's problems, in order (waits for the children)."""
        children = self._children or [None] * len(self._sides)  # asked again: here
        self._children = []
        for i, ((doc, resolver), child) in enumerate(zip(self._sides, children, strict=True)):
            if self._known[i] is None:
                checked = forked.result(child) if child is not None else None
                if checked is None:
                    checked = _checked(doc, resolver)
                self._remembered.keep(doc, resolver, checked)
                self._known[i] = checked.problems
        if self._helper is not None:
            forked.reap(self._helper)
            self._helper = None
        return [list(known or ()) for known in self._known]

    def cancel(self) -> None:
        """The answers are not wanted (the run failed first): end the children."""
        children, self._children = self._children, []
        if self._helper is not None:
            forked.end(self._helper.pid)  # its children with it
            self._helper = None
        for child in children:
            if child is not None:
                forked.stop(child)


def ready() -> None:
    """What a validating child needs before it is given a document: the validator imported
    (0.12 s, most of a small document's validation) while this process reads the documents.
    Imports make no cyclic garbage worth a collection: paused, they take 10% less."""
    from needs_microversion.collector import collector_paused
    from needs_microversion.loaders.openapi.validation import plain_settings

    with collector_paused():
        import jsonschema_path  # noqa: F401
        import referencing.jsonschema  # noqa: F401

        plain_settings.import_validators()  # without pydantic, for their settings
        _mime_types_built_in()


def _confined(doc: Document, resolver: RefResolver) -> Checked:
    """`_checked` in a helper's child: under the audit hook of `_confinement`."""
    sys.addaudithook(_confinement(resolver.root))
    return _checked(doc, resolver)


def _checked(doc: Document, resolver: RefResolver) -> Checked:
    with collector_for_validation():
        found, complete = _validated(doc, resolver)
    return Checked(tuple(found), files_read(resolver), complete)


def _confinement(root: str) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook (PEP 578) for the child: no socket, and no file opened outside the
    document's tree and the Python installation (where the validator's schemas are)."""
    # The package too (lazily imported modules), wherever it is installed from.
    package = str(Path(__file__).resolve().parents[3])  # needs_microversion/
    allowed = tuple({os.path.realpath(p) for p in (root, sys.prefix, sys.base_prefix,
                                                   sys.exec_prefix, package)})

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event.startswith(("socket.", "urllib.", "http.")):
            if event == "urllib.Request" and str(args[0]).startswith("file:"):
                return  # the validator's own schemas: the open that follows is checked
            raise RefusedRef(f"validation may not reach the network ({event})")
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if path != os.devnull and not any(
                    path == a or path.startswith(a + os.sep) for a in allowed):
                raise RefusedRef(f"validation may not read {path}")

    return hook


def _mime_types_built_in() -> None:
    import mimetypes

    # The validator reads its own schemas through urllib, which loads the system's MIME
    # tables (/etc/mime.types...) on first use: give it the built-in table instead, so no
    # file outside the installation and the document's tree is opened.
    if getattr(mimetypes, "_db", True) is None:
        mimetypes.inited = True
        mimetypes._db = mimetypes.MimeTypes()  # type: ignore[attr-defined]


def problems(doc: Document, resolver: RefResolver) -> list[str]:
    """Validation problems, each "file:line: message (at /pointer)"."""
    return _validated(doc, resolver)[0]


def _validated(doc: Document, resolver: RefResolver) -> tuple[list[str], bool]:
    """The problems, and whether the validator finished (not stopped by its own failure).

    The validator resolves `$ref`s itself; it is given a registry whose only way to read a
    file is `resolver` (inside the document's folder, regular files, size-capped), so it
    never opens a URL, an absolute path or a file outside the tree. The caller has already
    checked every `$ref` of the document's structure with the same resolver.
    """
    from jsonschema_path import SchemaPath
    from jsonschema_path.accessors import SchemaAccessor
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    from needs_microversion.loaders.openapi.validation import plain_settings

    plain_settings.import_validators()
    from needs_microversion.loaders.openapi.validation.spec_validators import spec_validator_for

    _mime_types_built_in()
    data: Any = doc.data
    cls = spec_validator_for(data)

    def retrieve(uri: str) -> Any:
        return DRAFT202012.create_resource(resolver.document_at(uri).data)

    base_uri = doc.path.as_uri()
    registry: Any = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    registry = registry.with_resource(base_uri, DRAFT202012.create_resource(data))
    spec = SchemaPath(SchemaAccessor(data, registry.resolver(base_uri=base_uri)))
    found: list[str] = []
    try:
        for error in cls(spec, base_uri=base_uri).iter_errors():
            pointer = tuple(str(p) for p in error.absolute_path) or _operation_named(
                str(error.message))
            line = line_of(doc, pointer)
            where = f"{doc.display}:{line}" if line else doc.display
            message = " ".join(str(error.message).split())
            if len(message) > 160:  # jsonschema starts with the whole offending value
                message = f"fails '{error.validator}' ({str(error.validator_value)[:80]})"
            at = "".join("/" + s.replace("~", "~0").replace("/", "~1") for s in pointer)
            found.append(f"{where}: {message} (at {at or '/'})")
            if len(found) >= MAX_PROBLEMS:
                break
    except Exception as exc:  # noqa: BLE001 - the validator's own failures are only warnings
        found.append(f"{doc.display}: the validator could not check this document: "
                     f"{_reason(exc)}")
        return found, False
    return found, True


def _reason(exc: BaseException) -> str:
    """The refusal behind a wrapped retrieval error, else the error itself (short)."""
    seen = exc
    while seen is not None:
        if isinstance(seen, RefusedRef):
            return str(seen)
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return f"{exc!r:.200}"


# openapi-spec-validator's own checks ("Path parameter 'id' for 'get' operation in
# '/servers/{id}' was not resolved") carry no path: the operation they name is the place.
_OPERATION = re.compile(r"for '(\w+)' operation in '([^']+)'")


def _operation_named(message: str) -> tuple[str, ...]:
    match = _OPERATION.search(message)
    return ("paths", match.group(2), match.group(1)) if match else ()
