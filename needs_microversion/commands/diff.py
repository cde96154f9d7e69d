"""`needs-microversion diff` as a plain function: load both sides, compare, judge; the
report is a value, rendered at the command line's edge."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from needs_microversion.bookkeeping import bookkeeping
from needs_microversion.collector import collector_paused, linger
from needs_microversion.compare import compare, with_lines, with_removal_places
from needs_microversion.config import (
    Acknowledgement, Config, ServiceConfig, load_config, parse_claim, service_for)
from needs_microversion.documents.files import possible_path
from needs_microversion.documents.reading import read_bounded
from needs_microversion.errors import InputError
from needs_microversion.judge import Judgement, judge, side_warnings
from needs_microversion.load import Validation, empty_snapshot, is_code, load_pair
from needs_microversion.loaders.openapi.folders import folder_files, is_spec_folder
from needs_microversion.loaders.openapi.folders import pair as spec_pairs
from needs_microversion.model.extensions import ADVERTISED_KEY, CODE_KEY, PROJECT_KEY
from needs_microversion.model.fail_on import FailOn
from needs_microversion.model.snapshot import Snapshot
from needs_microversion.model.verdict import Report
from needs_microversion.model.versions import Version, names_a_microversion, parse_version
from needs_microversion.profiles import (
    DEFAULT_PROFILE, NOVA_EXEMPT_CODES, PROFILES, Profile, experimental_operations, get_profile)
from needs_microversion.repository.evidence import RepositoryEvidence
from needs_microversion.repository.maxima import settle_maxima
from needs_microversion.repository.versionfile import MAX_SOURCE_BYTES, read_version_file
from needs_microversion.rules import get
from needs_microversion.rules.base import Options


@dataclass(frozen=True)
class DiffRequest:
    old: str
    new: str
    strict: bool = False
    validate: bool = True
    silent_failures: tuple[str, ...] = ()
    exempt_error_codes: bool | None = None  # None: as the configuration and profile say
    free_form: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    old_version: str | None = None
    new_version: str | None = None
    config: str | None = None  # a config file; None: look for one from the current folder
    loaded_config: Config | None = None  # already read (check: maybe from a revision)
    profile: str | None = None  # nova, placement, cinder, manila, ironic, generic
    catch_up: bool | None = None  # rule catch-up; None: on for api-ref trees
    count_corrections: bool | None = None  # rule correction off; None: the configuration's
    # The version file at both revisions (the check command reads them from git); None: the
    # old side is unknown and the new side is read from the working tree.
    old_version_file_text: str | None = None
    new_version_file_text: str | None = None
    changed_paths: tuple[str, ...] | None = None  # the change's files (None: unknown)
    # What the repository says (check, history): version file, release, history, files;
    # or how to find it once the documents are read (`check` may find it in a child).
    evidence: RepositoryEvidence | Callable[[], RepositoryEvidence] | None = None
    service: str | None = None  # a configured service by name; None: the documents' service
    root: str | None = None  # no file on disk is read outside this folder (None: each tree's)
    # The run's, not one comparison's: `console.diff` applies them to the reports it prints
    # (check's own request carries its run's).
    fail_on: FailOn | None = None  # what makes exit code 1; None: the configuration's
    baseline: str | None = None  # a baseline file; None: the configuration's, if any


def run_diffs(request: DiffRequest) -> list[tuple[str | None, Report]]:
    """The report of the comparison; for two folders of OpenAPI documents (openstack-openapi's
    `specs/`), one report per pair of documents, labelled with the pair's key, and a warning
    for a document on one side only."""
    for name in (request.old, request.new, *([request.config] if request.config else [])):
        if not possible_path(name):
            raise InputError("no such file (no file system takes a name this long, or one "
                             "holding a NUL character)", name)
    if request.root is not None and not Path(request.root).is_dir():
        raise InputError("--root must name a folder", request.root)
    old_names, new_names = _folder_names(request.old), _folder_names(request.new)
    if old_names is None or new_names is None or not (
            is_spec_folder(old_names) and is_spec_folder(new_names)):
        return [(None, run_diff(request))]
    reports: list[tuple[str | None, Report]] = []
    missing: list[str] = []
    for pair in spec_pairs(old_names, new_names):
        if pair.old is None or pair.new is None:
            side, there = ("new", request.new) if pair.new else ("old", request.old)
            missing.append(f"{_inside(there, pair.new or pair.old or '')}: {pair.key} is only "
                           f"in the {side} folder; nothing to compare with")
            continue
        reports.append((pair.key, run_diff(replace(
            request, old=_inside(request.old, pair.old), new=_inside(request.new, pair.new)))))
    if not reports:
        raise InputError("no OpenAPI document of one folder pairs with one of the other",
                         request.new)
    first, report = reports[0]
    reports[0] = (first, replace(report, warnings=(*missing, *report.warnings)))
    return reports


def diff_config(request: DiffRequest) -> Config:
    """The configuration of a diff, read once for all its pairs: `loaded_config`, else
    `--config`, else the file found from the current folder up."""
    if request.loaded_config is not None:
        return request.loaded_config
    if request.config is not None and not possible_path(request.config):
        raise InputError("no such file (no file system takes a name this long, or one holding "
                         "a NUL character)", request.config)
    return load_config(request.config)


def _folder_names(text: str) -> list[str] | None:
    """The files of a folder given as a path or as REV:PATH; None for anything else."""
    if is_code(text):
        return None  # a revision's code: one contract
    path = Path(text)
    if path.is_dir():
        return folder_files(path)
    if ":" in text and not path.exists():
        from needs_microversion.loaders.git import folder_listing  # git inputs only

        return folder_listing(text)
    return None


def _inside(folder: str, name: str) -> str:
    """A file of a folder given as a path or REV:PATH ("HEAD:specs" + "compute/v2.yaml")."""
    return folder.rstrip("/") + "/" + name if name else folder


def run_diff(request: DiffRequest) -> Report:
    """The report of the comparison (its warnings and exit code are the report's).

    Settings come from the command line, then the configuration (the service whose documents
    these are), then the profile; see docs/configuration.md.
    """
    with collector_paused():  # loaded data is no cyclic garbage: see collector.py
        return _run_diff(request)


def run_record(request: DiffRequest) -> Report:
    """The report of a change to an API that has no documents on either side, only its
    version record (`request.evidence`: the version file, history document, release notes):
    both sides are empty descriptions, so every finding is about the API's microversions
    (the maximum raised, a microversion the history names but the code does not serve)."""
    report = _run_diff(request, record=True)
    return replace(report, notes=("no API documents at either revision: the version file, "
                                  "history document and release notes are judged alone",
                                  *report.notes))


def _run_diff(request: DiffRequest, *, record: bool = False) -> Report:
    if request.strict and not request.validate:
        raise InputError("--strict turns validation problems into errors: it cannot go with "
                         "--no-validate")
    old, new, validation = (empty_snapshot(request.old), empty_snapshot(request.new),
                            Validation.none()) if record else load_pair(
        request.old, request.new, validate=request.validate, strict=request.strict,
        root=Path(request.root) if request.root else None)
    with validation:  # a failure below ends the child still validating
        report = _judged(request, old, new, validation)
    linger(old, new)  # two documents' snapshots: never freed one by one
    return report


def run_snapshots(request: DiffRequest, old: Snapshot, new: Snapshot,
                  version_record: bool = True) -> Report:
    """The report of two snapshots already read (the contract a revision's code declares,
    beside its documents: `check`); `version_record=False` leaves the changes of the API's
    maximum out (the documents' report says them)."""
    with collector_paused():
        return _judged(request, old, new, Validation.none(), version_record)


def _judged(request: DiffRequest, old: Snapshot, new: Snapshot, validation: Validation,
            version_record: bool = True) -> Report:
    config = request.loaded_config or load_config(request.config)
    service = choose_service(config, request)
    given = request.evidence() if callable(request.evidence) else request.evidence
    evidence = given or _evidence_from_texts(request, config, service)
    layout = None
    if evidence is None and not config.services and ":" in request.old and ":" in request.new:
        # Two revisions of a repository: read as `check` reads them (git loads only here).
        from needs_microversion.repository.revisions import revisions_evidence

        found = revisions_evidence(request.old, request.new)
        evidence, layout = found if found else (None, None)
    profile = get_profile(request.profile or service.profile or (layout and layout.profile)
                          or _documented_profile(old, new))
    options = build_options(request, service, profile)
    settled = settle_maxima(old, new, evidence, request.old_version, request.new_version,
                            service.released_max or (
                                evidence.released_max if evidence else None))
    old, new = settled.old, settled.new
    catch_up = request.catch_up if request.catch_up is not None else service.catch_up
    if catch_up is None:
        catch_up = "api-ref" in (old.source, new.source)
    # The code is the API, not a description of it: it corrects nothing (its response
    # schemas aside: rule response-schema reads those).
    code = any(side.source == "code" or side.info(CODE_KEY) is True for side in (old, new))
    options = replace(options, documentation_catch_up=catch_up and not code,
                      corrections=options.corrections and not code, code_contract=code,
                      view_code_changed=evidence.view_code_changed if evidence else None,
                      code_changed=evidence.code_changed if evidence else None,
                      code_diff=evidence.code_diff if evidence else None,
                      view_diff=evidence.view_diff if evidence else None)
    report = diff_snapshots(old, new, options, evidence, settled.doc_maxima, validation,
                            documents_decide=settled.documents_decide,
                            acknowledgements=service.acknowledgements,
                            version_record=version_record)
    if evidence is not None and (evidence.old_file or evidence.new_file):
        report = replace(report, bookkeeping=bookkeeping(
            evidence, report, profile=profile.name, released_max=old.max_version))
    return replace(report, notes=(*settled.notes, *_base_path_notes(old, new), *report.notes),
                   warnings=(*report.warnings, *_unknown_claims(options, old, new),
                             *_lower_maximum(old, new)))


def _unknown_claims(options: Options, old: Snapshot, new: Snapshot) -> list[str]:
    """A Q1 claim naming no operation of either document is a typo that would go unseen."""
    known = {(k.method, k.shape) for snapshot in (old, new) for k in snapshot.operations}
    return [f"--silent-failure: neither document has an operation {claim.text}; the claim "
            f"applies to nothing" for claim in options.silent_failures
            if (claim.operation.method, claim.operation.shape) not in known]


def _lower_maximum(old: Snapshot, new: Snapshot) -> list[str]:
    """A maximum that goes down is a typo (`--old-version`) or a document that lost its
    newest version: every comparison above the new maximum is against nothing."""
    if old.max_version is None or new.max_version is None or new.max_version >= old.max_version:
        return []
    return [f"the new maximum microversion {new.max_version} is below the old "
            f"{old.max_version}: versions only go up; check --old-version/--new-version or "
            f"the documents"]


def _base_path_notes(old: Snapshot, new: Snapshot) -> list[str]:
    """Paths are compared below the base path (`servers` URLs, Swagger `basePath`): where
    the API lives is the deployment's, but a moved base moves every URL, so say it."""
    if "api-ref" in (old.source, new.source):
        return []  # an api-ref tree normalises its version prefixes itself
    before, after = _base_paths(old), _base_paths(new)
    if before == after:
        return []
    return [f"the base path changed ({', '.join(sorted(before))} -> "
            f"{', '.join(sorted(after))}): every URL moves with it; paths are compared below it"]


def _base_paths(snapshot: Snapshot) -> frozenset[str]:
    data = snapshot.document.data
    if not isinstance(data, dict):
        return frozenset()
    if isinstance(data.get("basePath"), str):
        return frozenset({data["basePath"].rstrip("/") or "/"})
    servers = data.get("servers")
    urls = [s.get("url") for s in servers if isinstance(s, dict)] if isinstance(
        servers, list) else []
    paths = (urlsplit(u).path for u in urls if isinstance(u, str))
    found = frozenset(p.rstrip("/") or "/" for p in paths if "{" not in p)  # not templated
    return found or frozenset({"/"})  # no basePath, no servers: the API lives at the root


def choose_service(config: Config, request: DiffRequest) -> ServiceConfig:
    """The service the request names, else the one naming the new (else the old) document;
    the only one if there is one (the file describes this project); else the top level."""
    if request.service is not None:
        named = [s for s in config.services if s.name == request.service]
        if not named:
            raise InputError(f"no service {request.service!r} in {config.display}")
        return named[0]
    service = service_for(config, request.new) or service_for(config, request.old)
    if service is None and len(config.services) == 1:
        service = config.services[0]
    return service or config.defaults


def diff_snapshots(old: Snapshot, new: Snapshot, options: Options,
                   evidence: RepositoryEvidence | None = None,
                   doc_maxima: tuple[Version | None, Version | None] | None = None,
                   validation: Validation | None = None, documents_decide: bool = True,
                   acknowledgements: Sequence[Acknowledgement] = (),
                   version_record: bool = True) -> Report:
    """Compare, then judge (`judge`: every pass that makes or changes a verdict). The
    validation problems are waited for only after the comparison, which they never change.
    `documents_decide`: neither a version file nor the user says what the old maximum is."""
    changes = with_removal_places(with_lines(compare(old, new, documents_decide), (old, new)),
                                  old, new)
    if validation is not None:
        old, new = validation.attach(old, new)
    experimental = experimental_operations(old, {c.op_key for c in changes},
                                           options.experimental_header)
    options = replace(options, experimental_operations=experimental,
                      gated_documents=_microversioned(old) or _microversioned(new))
    return judge(Judgement(
        tuple(changes), options, old, new, evidence, doc_maxima, tuple(acknowledgements),
        datetime.date.today(), side_warnings((old.display, old.warnings),
                                             (new.display, new.warnings)),
        version_record=version_record))


def _microversioned(snapshot: Snapshot) -> bool:
    """Whether a document describes a microversioned API: it gates an element, its
    version-discovery sample lists microversions (an API without them lists ""), or its
    prose names one ("The API v2.12 microversion returns ...": nova's api-ref of 2016, whose
    markers came later)."""
    if snapshot.bounds or parse_version(snapshot.info(ADVERTISED_KEY)) is not None:
        return True
    return names_a_microversion(snapshot.prose())


def _documented_profile(old: Snapshot, new: Snapshot) -> str:
    """The profile of the project whose api-ref trees these are (their `conf.py` names the
    repository), so that `diff` of two trees judges as `check` in that repository does;
    else `generic`."""
    for side in (new, old):
        project = side.info(PROJECT_KEY)
        if isinstance(project, str) and project in PROFILES:
            return project
    return DEFAULT_PROFILE


def build_options(request: DiffRequest, service: ServiceConfig | None = None,
                  profile: Profile | None = None) -> Options:
    """Command line over configuration over profile; lists add up.

    `--(no-)exempt-error-codes` forces the nova f2 exemption on or off; without it the
    configuration and then the profile decide.
    """
    service = service or ServiceConfig(name="")
    profile = profile or get_profile(request.profile or service.profile or DEFAULT_PROFILE)
    for rule_id in request.disabled:
        get(rule_id)  # unknown ids are a usage error
    exempt = service.exempt_error_codes
    if request.exempt_error_codes is not None:  # the profile's own set, else footnote f2's
        exempt = (profile.exempt_error_codes or NOVA_EXEMPT_CODES) \
            if request.exempt_error_codes else frozenset()
    return Options(
        exempt_error_codes=profile.exempt_error_codes if exempt is None else exempt,
        free_form_paths=(*profile.free_form_paths, *service.free_form, *request.free_form),
        silent_failures=(*service.silent_failures,
                         *(parse_claim(text) for text in request.silent_failures)),
        disabled=frozenset((*service.disabled, *request.disabled)),
        inapplicable_header_exemption=profile.inapplicable_header_exemption,
        retired_api_exemption=profile.retired_api_exemption,
        experimental_header=profile.experimental_header,
        corrections=not (request.count_corrections if request.count_corrections is not None
                         else service.count_corrections),
    )


def _evidence_from_texts(request: DiffRequest, config: Config, service: ServiceConfig
                         ) -> RepositoryEvidence | None:
    """The version file given as texts (or the configured one, read from the working tree
    for the new side), when no repository was read."""
    new_text = request.new_version_file_text
    if new_text is None and service.version_file is not None:
        path = config.root / service.version_file
        if not path.is_file():
            raise InputError(f"'version-file' {service.version_file!r} not found in "
                             f"{config.root}", config.display)
        new_text = read_bounded(path, str(path), MAX_SOURCE_BYTES).decode("utf-8", "replace")
    old_text = request.old_version_file_text
    if old_text is None and new_text is None:
        return None
    source = service.version_file or "version file"
    return RepositoryEvidence(
        service.version_file,
        read_version_file(old_text, f"{source} (old)") if old_text is not None else None,
        read_version_file(new_text, f"{source} (new)") if new_text is not None else None,
        code_changed=None, changed_paths=request.changed_paths)


