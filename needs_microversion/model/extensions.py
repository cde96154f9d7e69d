"""The `x-...` extension keys, defined once (docs/contract-model.md).

`x-openstack` is OpenStack's own (microversion bounds, microversion and action containers);
the `x-needs-microversion-*` keys are what the api-ref loader writes into the OpenAPI
document it makes, for the stages after it to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from needs_microversion.model.versions import ALL, VersionRange, parse_version

OPENSTACK_KEY: Final = "x-openstack"
# Inside `x-openstack`: the bounds, each in two spellings (the first is read first, and is
# the one the api-ref loader writes), the container kind, an action body's name.
MIN_VERSION_KEYS: Final = ("min-ver", "min_ver")
MAX_VERSION_KEYS: Final = ("max-ver", "max_ver")
DISCRIMINATOR_KEY: Final = "discriminator"
ACTION_NAME_KEY: Final = "action-name"

LOCATION_KEY: Final = "x-needs-microversion-location"  # "file:line (file:line)" of a row
INFERRED_KEY: Final = "x-needs-microversion-inferred"  # read from prose or layout
EXAMPLE_KEY: Final = "x-needs-microversion-example"  # what the document's own example shows
EXAMPLE_KEYS_KEY: Final = "x-needs-microversion-example-keys"  # examples gave the keys
# On an object schema: the keys its examples show there that its table does not list.
EXAMPLE_UNLISTED_KEY: Final = "x-needs-microversion-example-unlisted"
MAJORS_KEY: Final = "x-needs-microversion-majors"  # on `info`: paths keep version prefixes
# On `info`: the highest microversion the version-discovery sample (`GET /`) lists.
ADVERTISED_KEY: Final = "x-needs-microversion-advertised"
# On `info`: the files an api-ref tree marks unverified (`.. needs:method_verification`,
# nova's and cyborg's burndown comments) and for what: {"servers.inc": ["body", "method"]}.
UNVERIFIED_KEY: Final = "x-needs-microversion-unverified"
# On `info`: the names of table rows an api-ref file lists whose reference parameters.yaml
# does not define (the row is read as nothing): {"os-services.inc": ["binary"]}.
UNREAD_KEY: Final = "x-needs-microversion-unread"
# On `info`: the words of an api-ref tree's files, as written (read only to tell which
# microversions the documents already name, `Snapshot.prose`).
PROSE_KEY: Final = "x-needs-microversion-prose"
# On an operation: its groups' introductions, later notes, captions and example file names,
# where api-ref names microversions outside the description (read for announcements only).
ASIDES_KEY: Final = "x-needs-microversion-asides"
# On an operation: the bodies its examples show, ["request", "response"], read or not.
EXAMPLE_BODIES_KEY: Final = "x-needs-microversion-example-bodies"
# What the code loader writes (loaders/code): a schema where the code declares none (it
# validates nothing there, so anything goes); an operation's whole query schema as written
# (OpenAPI parameters cannot say "no other query parameter"); the release that removed an
# operation (410 Gone, nova's `@wsgi.removed`); a value the static reader could not compute.
UNDECLARED_KEY: Final = "x-needs-microversion-undeclared"
# An operation whose microversions the code checks in its body (ironic's `allow_*()`), not
# in a declaration the reader reads: listed at every microversion, the range unknown.
RANGE_UNDECLARED_KEY: Final = "x-needs-microversion-range-undeclared"
QUERY_KEY: Final = "x-needs-microversion-query"
REMOVED_KEY: Final = "x-needs-microversion-removed"
OPAQUE_KEY: Final = "x-needs-microversion-opaque"
# On `info`: the project whose api-ref tree this is, as its Sphinx `conf.py` names the
# repository (`openstackdocs_repo_name = 'openstack/cinder'`): its profile, when none is given.
PROJECT_KEY: Final = "x-needs-microversion-project"
# On `info`: the document is the contract a service's code declares (loaders/code).
CODE_KEY: Final = "x-needs-microversion-code"


def openstack_range(node: Mapping[str, Any]) -> VersionRange:
    """The `x-openstack` min/max microversion of a node (both spellings), ALL if none.

    An unreadable bound reads as no bound; `loaders/openapi/version_warnings.py` reports it.
    """
    ext = node.get(OPENSTACK_KEY)
    if not isinstance(ext, dict):
        return ALL
    lo, lo_alt = MIN_VERSION_KEYS
    hi, hi_alt = MAX_VERSION_KEYS
    return VersionRange(parse_version(ext.get(lo, ext.get(lo_alt))),
                        parse_version(ext.get(hi, ext.get(hi_alt))))


def version_ext(versions: VersionRange) -> dict[str, str]:
    """The `x-openstack` bounds that write a range (empty for every version), as the
    loaders write them and `openstack_range` reads them."""
    ext = {}
    if versions.lo is not None:
        ext[MIN_VERSION_KEYS[0]] = str(versions.lo)
    if versions.hi is not None:
        ext[MAX_VERSION_KEYS[0]] = str(versions.hi)
    return ext


def is_container(node: Mapping[str, Any], kind: str) -> bool:
    """A `oneOf` whose `x-openstack` discriminator is `kind` (microversion or action)."""
    ext = node.get(OPENSTACK_KEY)
    return isinstance(ext, dict) and ext.get(DISCRIMINATOR_KEY) == kind and isinstance(
        node.get("oneOf"), list)


def splits_by_action(raw_op: Mapping[str, Any]) -> bool:
    """Whether a raw operation's request body, written in place (no `$ref`), is an action
    container: one operation per action."""
    body = raw_op.get("requestBody")
    content = body.get("content") if isinstance(body, dict) else None
    return isinstance(content, dict) and any(
        isinstance(media, dict) and isinstance(media.get("schema"), dict)
        and is_container(media["schema"], "action") for media in content.values())
