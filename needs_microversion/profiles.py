"""Project profiles: where a project's written rules differ from nova's flow chart.

Every project copies nova's chart; they differ in the exceptions around it (reference notes,
openstack-formats.md section 4). One policy for `check` and `diff`: a project differs only
where its own documentation says so, and `diff` of two api-ref trees picks the profile of
the project their `conf.py` names, as `check` picks the repository's.

| profile | 400/403/404/415 newly returned | free-form objects | other |
| --- | --- | --- | --- |
| nova | exempt (footnote f2) | `os:scheduler_hints` | 410 retires |
| placement | exempt: its rules are "modeled after" nova's (architecture.rst) | - | - |
| cinder | need a microversion | - | no Retry-After note |
| manila | need a microversion | - | changes to experimental APIs need none; no Retry-After note |
| ironic | exempt: webapi.rst lists no other rule for codes | `IRONIC_FREE_FORM`, at any depth | - |
| generic | exempt | `os:scheduler_hints` | 410 retires an API |

Only cinder's and manila's contributor guides (`api_microversion_dev.rst`) copy nova's chart
and footnote 1 ("changing the set of allowed status codes from a request is changing the
contract") without footnote f2: "newly returning 400, 403, 404, 415" is not exempt there.
placement's `architecture.rst` says its microversion rules are "modeled after" nova's, and
ironic's `webapi.rst` ("Exceptions from Versioning") adds free-form fields and says nothing
of status codes, so both keep nova's footnote.

`generic` is the profile when neither `--profile`, the configuration nor the api-ref tree
names one, and it keeps the behaviour the tool had before profiles existed (footnote f2 on,
`os:scheduler_hints` free-form). That is justified, not only compatible: the chart as the
seed documents state it (nova, cyborg) carries footnote f2, senlin's copy has no exception
that contradicts it, and the scheduler-hints pointer exists in no API but nova's, so it
never hides a change elsewhere. A project that wants the strict reading (cinder, manila, the
API-SIG guideline) picks its profile or sets `exempt-error-codes = []`.

Folding is not a profile's: cinder's contributor guide lets a follow-up change reuse a merged
but unreleased microversion, and every project does the same in practice (nova's 2.102 grew
over three commits), so whenever the newest released maximum is known (a release tag in the
repository, or `released-max` in the configuration) it is the old maximum.

Retiring an API (`retired_api_exemption`): nova removes an API at every microversion at once,
documenting it under "Obsolete APIs" with 410 Gone (os-fixed-ips, os-networks, os-cells after
nova-network was removed), without a microversion; a newly documented ungated 410 is that
removal. The other projects write no such practice down, so their profiles judge a 410 like
any other new code. `generic` follows nova, as it does for footnote f2.

cinder and manila do not repeat nova's "removing an inapplicable Retry-After needs none" note:
their profiles switch that exception of the `header` rule off.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from needs_microversion.errors import InputError
from needs_microversion.model.snapshot import OpKey, Snapshot

# nova footnote f2: newly returned 400, 403, 404 and 415 need no microversion (seed 000).
NOVA_EXEMPT_CODES = frozenset({"400", "403", "404", "415"})
# nova: "a new scheduler which adds a new attribute to os:scheduler_hints doesn't require one"
# (seed 000). `*` also matches the api-ref form, where the hints may be nested under /server.
DEFAULT_FREE_FORM = ("*/os:scheduler_hints", "*/OS-SCH-HNT:scheduler_hints")

MANILA_EXPERIMENTAL_HEADER = "x-openstack-manila-api-experimental"
# ironic webapi.rst "Exceptions from Versioning": the content of these JSON fields.
IRONIC_FREE_FORM = tuple(f"*/{name}" for name in (
    "properties", "driver_info", "instance_info", "driver_internal_info", "extra"))


@dataclass(frozen=True)
class BookkeepingStep:
    """A companion change a new microversion needs in one project (seed 001's "Other
    necessary changes", as that project writes them): `text` with `{v}` for the version,
    done when the change touches every path pattern (`{v}` allowed there too)."""

    text: str
    paths: tuple[str, ...]
    before_release_note: bool = False  # listed before the release note (else after)


@dataclass(frozen=True)
class Profile:
    name: str
    exempt_error_codes: frozenset[str] = frozenset()
    free_form_paths: tuple[str, ...] = ()
    experimental_header: str | None = None  # operations documenting it may change freely
    inapplicable_header_exemption: bool = True  # nova's Retry-After-on-a-4xx note
    retired_api_exemption: bool = False  # nova's obsolete APIs: 410 Gone at every version
    bookkeeping_steps: tuple[BookkeepingStep, ...] = ()


# nova's "Adding a new API microversion" (doc/source/contributor/microversions.rst): the
# versions samples, and samples for the new microversion.
_NOVA_STEPS = (
    BookkeepingStep("the versions samples doc/api_samples/versions/versions-get-resp.json and "
                    "v21-version-get-resp.json",
                    ("doc/api_samples/versions/versions-get-resp.json",
                     "doc/api_samples/versions/v21-version-get-resp.json")),
    BookkeepingStep("api samples in doc/api_samples/*/v{v}/ (if applicable)",
                    ("doc/api_samples/*/v{v}/*",)),
)
# cinder's api_microversion_dev.rst: a named constant in cinder/api/microversions.py.
_CINDER_STEPS = (BookkeepingStep("a named constant for {v} in cinder/api/microversions.py",
                                 ("cinder/api/microversions.py",), before_release_note=True),)
# ironic's contributor guide: the release mapping names the new API version.
_IRONIC_STEPS = (BookkeepingStep("RELEASE_MAPPING['master']['api'] = '{v}' in "
                                 "ironic/common/release_mappings.py",
                                 ("ironic/common/release_mappings.py",)),)


PROFILES: dict[str, Profile] = {profile.name: profile for profile in (
    Profile("nova", NOVA_EXEMPT_CODES, DEFAULT_FREE_FORM, retired_api_exemption=True,
            bookkeeping_steps=_NOVA_STEPS),
    Profile("placement", NOVA_EXEMPT_CODES),
    Profile("cinder", inapplicable_header_exemption=False, bookkeeping_steps=_CINDER_STEPS),
    Profile("manila", experimental_header=MANILA_EXPERIMENTAL_HEADER,
            inapplicable_header_exemption=False),
    Profile("ironic", NOVA_EXEMPT_CODES, IRONIC_FREE_FORM, bookkeeping_steps=_IRONIC_STEPS),
    Profile("generic", NOVA_EXEMPT_CODES, DEFAULT_FREE_FORM, retired_api_exemption=True),
)}
DEFAULT_PROFILE = "generic"


def get_profile(name: str) -> Profile:
    profile = PROFILES.get(name)
    if profile is None:
        raise InputError(f"--profile must be one of {', '.join(sorted(PROFILES))}, "
                         f"got {name!r}")
    return profile


def experimental_operations(old: Snapshot, keys: Iterable[OpKey], header: str | None
                            ) -> frozenset[OpKey]:
    """Of these operations, those the old document marks experimental: it lists the
    profile's experimental request header on them (manila:
    `X-OpenStack-Manila-API-Experimental`). Rule `experimental` judges their findings."""
    if header is None:
        return frozenset()
    found = set()
    for key in keys:
        op = old.operations.get(key)
        if op is not None and ("header", header) in op.parameters:
            found.add(key)
    return frozenset(found)
