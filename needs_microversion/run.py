"""The main job as a plain function: load both sides, compare, judge, render."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from needs_microversion.compare import compare, with_lines
from needs_microversion.errors import InputError
from needs_microversion.judge import Report, judge
from needs_microversion.load import load_snapshot
from needs_microversion.loaders.openapi import path_shape
from needs_microversion.report import render
from needs_microversion.rules import get
from needs_microversion.rules.base import DEFAULT_FREE_FORM, NOVA_EXEMPT_CODES, Claim, Options
from needs_microversion.snapshot import OpKey, Snapshot
from needs_microversion.versions import Version, parse_version

_CLAIM = re.compile(r"^\s*([A-Za-z]+)\s+(\S+)\s*:\s*(.+)$")


@dataclass(frozen=True)
class DiffRequest:
    old: str
    new: str
    fmt: str = "text"
    explain: bool = False
    strict: bool = False
    validate: bool = True
    silent_failures: tuple[str, ...] = ()
    exempt_error_codes: bool = True
    free_form: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    old_version: str | None = None
    new_version: str | None = None
    config: str | None = None  # a config file; None: look for one from the current folder
    profile: str | None = None  # nova, placement, cinder, manila, ironic, generic
    catch_up: bool | None = None  # rule released-microversion; None: on for api-ref trees


def run_diff(request: DiffRequest) -> tuple[str, list[str], int]:
    """Return (rendered report, warnings, exit code)."""
    options = build_options(request)
    old = _with_version(load_snapshot(request.old, validate=request.validate,
                                      strict=request.strict), request.old_version, "--old-version")
    new = _with_version(load_snapshot(request.new, validate=request.validate,
                                      strict=request.strict), request.new_version, "--new-version")
    catch_up = request.catch_up
    if catch_up is None:
        catch_up = "api-ref" in (old.source, new.source)
    options = replace(options, documentation_catch_up=catch_up)
    report = diff_snapshots(old, new, options)
    return render(report, request.fmt, explain=request.explain), list(report.warnings), \
        report.exit_code


def diff_snapshots(old: Snapshot, new: Snapshot, options: Options) -> Report:
    changes = with_lines(compare(old, new), (old, new))
    return judge(changes, options, old=old.display, new=new.display,
                 old_version=old.max_version, new_version=new.max_version,
                 warnings=(*old.warnings, *new.warnings))


def build_options(request: DiffRequest) -> Options:
    for rule_id in request.disabled:
        get(rule_id)  # unknown ids are a usage error
    return Options(
        exempt_error_codes=NOVA_EXEMPT_CODES if request.exempt_error_codes else frozenset(),
        free_form_paths=(*DEFAULT_FREE_FORM, *request.free_form),
        silent_failures=tuple(parse_claim(text) for text in request.silent_failures),
        disabled=frozenset(request.disabled),
    )


def parse_claim(text: str) -> Claim:
    match = _CLAIM.match(text)
    if match is None:
        raise InputError(f"--silent-failure needs 'METHOD /path: reason', got {text!r}")
    method, path, reason = match.groups()
    return Claim(OpKey(method.upper(), path_shape(path)), f"{method.upper()} {path}",
                 reason.strip())


def _with_version(snapshot: Snapshot, text: str | None, option: str) -> Snapshot:
    if text is None:
        return snapshot
    version: Version | None = parse_version(text)
    if version is None:
        raise InputError(f"{option} must look like 2.10, got {text!r}")
    return replace(snapshot, max_version=version)
