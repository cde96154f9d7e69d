"""`needs-microversion export`: the contract a revision's code declares, written out as an
OpenAPI 3.1 document (with its `x-openstack` microversion bounds and the code's locations),
for other tools to read. It validates with openapi-spec-validator: path parameters the code
names only in its routes are written out, as OpenAPI asks."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from needs_microversion.documents.files import current_folder
from needs_microversion.errors import InputError

_PLACEHOLDER = re.compile(r"\{([^{}/]+)\}")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def run_export(revision: str | None, *, as_yaml: bool = False) -> str:
    from needs_microversion.loaders.git import Repo, cached
    from needs_microversion.repository.code import code_document
    from needs_microversion.repository.revision import Revision

    here = current_folder()
    with cached():
        repo = Repo.find(here, "not inside a git repository: export reads one", str(here))
        side = Revision.at(repo, revision) if revision else Revision.working(repo)
        document = code_document(side)
    if document is None:
        raise InputError("the code declares no contract the tool can read (nova's and "
                         "masakari's routes, decorators and schemas)", str(repo.top))
    exported = exportable(document)
    if as_yaml:
        import yaml

        return str(yaml.safe_dump(exported, sort_keys=False, allow_unicode=True))
    return json.dumps(exported, indent=2, ensure_ascii=False) + "\n"


def exportable(document: dict[str, Any]) -> dict[str, Any]:
    """The document with a path parameter for each placeholder of each operation's URL."""
    exported = copy.deepcopy(document)
    for path, item in exported.get("paths", {}).items():
        names = _PLACEHOLDER.findall(path.partition("#")[0])
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, dict) or not names:
                continue
            declared = {(p.get("in"), p.get("name")) for p in op.get("parameters", [])
                        if isinstance(p, dict)}
            op["parameters"] = [{"name": name, "in": "path", "required": True,
                                 "schema": {"type": "string"}}
                                for name in names if ("path", name) not in declared
                                ] + list(op.get("parameters", []))
    return exported
