"""The configuration file: which documents belong to which service, and how to judge them.

Where it is read from
    `--config PATH` (a `pyproject.toml` or any `.toml` with a `[tool.needs-microversion]`
    table, or a `.yaml`/`.yml` file), else the first of `.needs-microversion.yaml` and
    `pyproject.toml` with a `[tool.needs-microversion]` table found from the current folder
    upwards (the dedicated file wins within one folder, as `.ruff.toml` beats `pyproject.toml`
    for ruff). The search stops after the folder holding `.git`, so a stray file above the
    repository never applies. Nothing found: an empty `Config` (no services, default settings).
    Relative paths in the file (documents, version files) are relative to its folder, the
    `root`.

The shape (TOML; the YAML file has the same keys at its top level)::

    [tool.needs-microversion]
    profile = "nova"                     # nova placement cinder manila ironic generic
    exempt-error-codes = [400, 403, 404, 415]  # replaces the profile's list; [] for none
    free-form = ["/server/metadata"]     # body pointers of free-form objects (* = any part)
    disable = ["security"]               # rule ids switched off
    silent-failures = ["POST /servers/{id}/action: reboot of a pausing server was ignored"]
    catch-up = true                      # rule catch-up (default: api-ref only)
    count-corrections = false            # rule correction off: corrections count
    fail-on = "warning"                  # required (default), warning, never: top level only
    baseline = ".needs-microversion-baseline.yaml"   # standing warnings silenced: top level

    [[tool.needs-microversion.services]]
    name = "compute"                     # required, unique
    documents = ["api-ref/source"]       # files, directories (api-ref) or globs
    version-file = "nova/api/openstack/api_version_request.py"
    released-max = "2.103"               # newest released microversion (cinder/nova folding)
    profile = "nova"                     # and any top-level key above, for this service
    free-form = ["/server/metadata"]

    [[tool.needs-microversion.services.acknowledge]]
    rule = "attribute"                   # rule id or finding id
    operation = "GET /servers/{server_id}"   # "POST /servers/{id}/action (reboot)" for actions
    pointer = "/server/locked"           # "" or absent for changes without one (status codes)
    status = 200                         # optional: only this status code
    reason = "documented late; shipped in 2.9"   # required
    expires = 2027-01-01                 # optional; after that day it no longer applies

Top-level settings are defaults for every service: scalars (`profile`, `exempt-error-codes`,
`catch-up`) are replaced by a service's own, lists (`free-form`, `disable`, `silent-failures`,
`acknowledge`) are added to. `fail-on` and `baseline` are the whole run's: top level only
(`--fail-on` and `--baseline` win); the baseline file is read as this file is (`read_confined`,
inside the repository). Every unknown key and every bad value is an `InputError` naming the
file and the key.

Stable API (the `check` command uses it): `Config`, `ServiceConfig`, `load_config`,
`service_for`, `read_confined`, `repository_top`. docs/configuration.md is the user's guide.
"""

from __future__ import annotations

import datetime
import fnmatch
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from needs_microversion.documents.files import current_folder, real
from needs_microversion.errors import InputError
from needs_microversion.model.fail_on import FAIL_ON, FailOn, as_fail_on
from needs_microversion.model.snapshot import OpKey, path_shape
from needs_microversion.model.verdict import Claim, Finding
from needs_microversion.model.versions import Version, parse_version
from needs_microversion.profiles import PROFILES
from needs_microversion.rules import RULES

TABLE = "tool.needs-microversion"
YAML_NAME = ".needs-microversion.yaml"
# Looked for in this order in each folder: the dedicated file wins over pyproject.toml.
CONFIG_NAMES = (YAML_NAME, "pyproject.toml")
MAX_CONFIG_BYTES = 1 * 2**20

_CLAIM = re.compile(r"^\s*([A-Za-z]+)\s+(\S+)\s*:\s*(.+)$")
# "GET /servers/{id}", "POST /servers/{id}/action (reboot)", "POST /servers/{id}/action#reboot"
_OPERATION = re.compile(r"^\s*([A-Za-z]+)\s+(/[^\s#]*)(?:#(\S+)|\s+\((\S+)\))?\s*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RULE_KEYS = ("profile", "exempt-error-codes", "free-form", "disable", "silent-failures",
              "catch-up", "count-corrections", "acknowledge")
# Settings of the whole run, not of one service's documents: top level only.
_RUN_KEYS = ("fail-on", "baseline")
_TOP_KEYS = frozenset({*_RULE_KEYS, *_RUN_KEYS, "services"})
_SERVICE_KEYS = frozenset({*_RULE_KEYS, "name", "documents", "version-file", "released-max"})
_ACK_KEYS = frozenset({"rule", "operation", "pointer", "status", "reason", "expires"})


@dataclass(frozen=True)
class Acknowledgement:
    """A finding the project accepts: it is reported, but no longer fails the run."""

    rule: str  # a rule id or a finding id
    operation: OpKey
    operation_text: str  # as written
    pointer: str
    status: str | None
    reason: str
    expires: datetime.date | None
    source: str  # where it is written, for notes

    def matches(self, finding: Finding) -> bool:
        change, key = finding.change, finding.change.op_key
        return (self.rule in (finding.rule, finding.id)
                and (self.operation.method, self.operation.shape) == (key.method, key.shape)
                and self.operation.action in (None, key.action)
                and self.pointer == change.pointer and self.status in (None, change.status))

    def describe(self) -> str:
        pointer = f" {self.pointer}" if self.pointer else ""
        status = f" (status {self.status})" if self.status else ""
        return f"{self.rule} on {self.operation_text}{pointer}{status}"

    def expired(self, today: datetime.date) -> bool:
        return self.expires is not None and today > self.expires


@dataclass(frozen=True)
class ServiceConfig:
    """The settings for one service's documents (top-level settings already merged in)."""

    name: str
    documents: tuple[str, ...] = ()  # relative to Config.root; files, directories or globs
    profile: str | None = None  # None: the repository's (detected), else generic
    version_file: str | None = None  # relative to Config.root
    released_max: Version | None = None
    exempt_error_codes: frozenset[str] | None = None  # None: the profile's
    free_form: tuple[str, ...] = ()
    disabled: tuple[str, ...] = ()
    silent_failures: tuple[Claim, ...] = ()
    catch_up: bool | None = None  # None: on for api-ref trees
    count_corrections: bool = False  # corrections count as contract changes (rule correction)
    acknowledgements: tuple[Acknowledgement, ...] = ()


@dataclass(frozen=True)
class Config:
    path: Path | None  # the file read; None when none was found
    root: Path  # relative paths in the file start here
    services: tuple[ServiceConfig, ...]
    defaults: ServiceConfig = ServiceConfig(name="")  # the top-level settings
    shown: str = ""  # how to name the file when it was not read from disk (REV:PATH)
    fail_on: FailOn | None = None  # None: the command line's, else required
    baseline: str | None = None  # relative to root, as written

    @property
    def display(self) -> str:
        if self.shown:
            return self.shown
        return display_name(self.path) if self.path else "(no configuration file)"


def load_config(explicit: str | None = None, start: Path | None = None) -> Config:
    """Read `explicit`, or the file found from `start` (default: the current folder) up."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise InputError(f"--config {explicit}: no such file")
        if path.suffix not in (".toml", ".yaml", ".yml"):
            raise InputError(f"--config must be a .toml or .yaml file, got {explicit!r}")
        config = parse_config(_read(path), path.name, real(path).parent, display_name(path),
                              path=real(path))
        if config is None:
            raise InputError(f"no [{TABLE}] table", display_name(path))
        return config
    folder = real(start or current_folder())
    searched = _searched(folder)
    top = searched[-1]  # the repository's top, else the filesystem root: reads stay below
    for candidate in searched:
        for name in CONFIG_NAMES:
            path = candidate / name
            if not os.path.lexists(path):
                continue
            text = read_confined(path, top if (top / ".git").exists() else candidate)
            config = parse_config(text, name, candidate, display_name(path), path=path)
            if config is not None:
                return config
    return Config(path=None, root=folder, services=())


def _searched(folder: Path) -> list[Path]:
    """The folders searched for a configuration: from `folder` up to the repository's top
    (the folder holding `.git`), or to the filesystem's root outside a repository."""
    found = []
    for candidate in (folder, *folder.parents):
        found.append(candidate)
        if os.path.lexists(candidate / ".git"):
            break
    return found


def repository_top(folder: Path) -> Path:
    """The top of the repository holding `folder` (the folder holding `.git`), else `folder`
    itself: where a file the configuration names (its baseline) must lie."""
    top = _searched(real(folder))[-1]
    return top if (top / ".git").exists() else real(folder)


def read_confined(path: Path, top: Path | None) -> str:
    """A file read as the configuration file is: a regular UTF-8 file of at most
    MAX_CONFIG_BYTES, and with `top` only when it lies inside `top` once its links are
    followed (a file named on the command line has no `top`: the user chose it)."""
    if top is not None:
        _inside(path, top)
    return _read(path)


def _inside(path: Path, top: Path) -> None:
    """A configuration file found by the search (or a file it names) is read only when it
    lies inside the repository (or its own folder, outside one) once its links are
    followed; its text is never shown otherwise."""
    real = os.path.realpath(path)
    base = os.path.realpath(top)
    if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
        raise InputError(f"leads outside {top} (a symlink?); not read", _shown(path))


def parse_config(text: str, name: str, root: Path, display: str, *,
                 path: Path | None = None) -> Config | None:
    """A configuration file's text: `.needs-microversion.yaml` (or any `.yaml`/`.yml`), or a
    `.toml` file; None for a `pyproject.toml` without our table. `root` is where relative
    paths in it start; `display` names it in messages (a path, or REV:PATH)."""
    if name.endswith(".toml"):
        if name == "pyproject.toml" and f"[{TABLE}" not in text:
            return None
        table = _toml_table(text, display)
        if table is None:
            return None
        return _parse(table, display, root, path, toml=True)
    return _parse(_yaml_mapping(text, display), display, root, path, toml=False)


def service_for(config: Config, document: str) -> ServiceConfig | None:
    """The service whose `documents` name this document (a path, relative to the current
    folder or to the root), or None."""
    # realpath, not Path.resolve: a symlink loop is a name here, never an error
    candidates = {os.path.normpath(os.path.realpath(document)),
                  os.path.normpath(config.root / document)}
    for service in config.services:
        for entry in service.documents:
            pattern = os.path.normpath(config.root / entry)
            for candidate in candidates:
                if (candidate == pattern or fnmatch.fnmatchcase(candidate, pattern)
                        or fnmatch.fnmatchcase(candidate, pattern.rstrip(os.sep) + os.sep + "*")):
                    return service
    return None


def parse_claim(text: str, where: str = "--silent-failure", file: str | None = None) -> Claim:
    """A Q1 claim, "METHOD /path: reason"."""
    match = _CLAIM.match(text)
    if match is None:
        raise InputError(f"{where} needs 'METHOD /path: reason', got {text!r}", file)
    method, path, reason = match.groups()
    return Claim(OpKey(method.upper(), path_shape(path)), f"{method.upper()} {path}",
                 reason.strip())


# -- reading ---------------------------------------------------------------------------------
def _read(path: Path) -> str:
    """A configuration file, bounded: a regular file of at most MAX_CONFIG_BYTES."""
    from needs_microversion.documents.reading import read_bounded

    try:
        return read_bounded(path, display_name(path), MAX_CONFIG_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not UTF-8 text", display_name(path)) from None


def _toml_table(text: str, display: str) -> dict[str, Any] | None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise InputError("a TOML configuration needs Python 3.11 or the tomli package "
                             f"(or use {YAML_NAME})", display) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", display) from None
    except RecursionError:
        raise InputError("not valid TOML: nested too deeply", display) from None
    tool = data.get("tool")
    table: Any = tool.get("needs-microversion") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise InputError(f"[{TABLE}] must be a table", display)
    return table


def _yaml_mapping(text: str, display: str) -> dict[str, Any]:
    """YAML read as documents are: safe, bounded in depth and alias expansion."""
    from needs_microversion.documents.document import parse_document

    data = parse_document(text.encode("utf-8"), path=Path(display), display=display,
                          root=Path("."), empty={}).data
    if not isinstance(data, dict):
        raise InputError("the top level must be a mapping", display)
    return data


def display_name(path: Path) -> str:
    """Relative to the current folder when below it: what the user would type."""
    absolute = real(path)
    try:
        return str(absolute.relative_to(real(current_folder())))
    except ValueError:
        return str(absolute)


def _shown(path: Path) -> str:
    """The path as found, its links not followed (where a link leads is not for display)."""
    try:
        return os.path.relpath(path, current_folder())
    except ValueError:
        return str(path)


# -- checking --------------------------------------------------------------------------------
class _Table:
    """One mapping of the file, with where it is, for error messages."""

    def __init__(self, data: Mapping[str, Any], where: str, file: str, allowed: frozenset[str]
                 ) -> None:
        self.data, self.where, self.file = data, where, file
        for key in data:
            if key not in allowed:
                self.fail(f"unknown key {key!r}")

    def fail(self, message: str) -> NoReturn:
        raise InputError(f"{self.where} {message}".strip(), self.file)

    def bad(self, key: str, expected: str) -> NoReturn:
        self.fail(f"{key!r} must be {expected}, got {self.data[key]!r}")

    def string(self, key: str) -> str | None:
        return self.required(key) if key in self.data else None

    def required(self, key: str) -> str:
        if key not in self.data:
            self.fail(f"needs {key!r}")
        value = self.data[key]
        if not isinstance(value, str) or not value.strip():
            self.bad(key, "a non-empty string")
        return value.strip()

    def strings(self, key: str) -> tuple[str, ...]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip()
                                                  for v in value):
            self.bad(key, "a list of non-empty strings")
        return tuple(v.strip() for v in value)

    def flag(self, key: str) -> bool | None:
        if key not in self.data:
            return None
        if type(self.data[key]) is not bool:
            self.bad(key, "true or false")
        return bool(self.data[key])

    def tables(self, key: str) -> list[Mapping[str, Any]]:
        value = self.data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            self.bad(key, "a list of tables")
        return list(value)

    def child(self, key: str, index: int, data: Mapping[str, Any], allowed: frozenset[str]
              ) -> _Table:
        name = data.get("name") if key == "services" else None
        label = f"{key}[{index}]" + (f" ({name})" if isinstance(name, str) else "")
        where = f"{self.where} {label}" if self.where else label
        return _Table(data, where, self.file, allowed)


def _parse(data: Mapping[str, Any], file: str, root: Path, path: Path | None, *, toml: bool
           ) -> Config:
    top = _Table(data, f"[{TABLE}]" if toml else "", file, _TOP_KEYS)
    defaults = _service(top, ServiceConfig(name=""), service=False)
    services: list[ServiceConfig] = []
    for i, raw in enumerate(top.tables("services")):
        table = top.child("services", i, raw, _SERVICE_KEYS)
        service = _service(table, defaults, service=True)
        if any(s.name == service.name for s in services):
            table.fail(f"'name' {service.name!r} is used twice")
        services.append(service)
    fail_on = top.string("fail-on")
    if fail_on is not None and fail_on not in FAIL_ON:
        top.bad("fail-on", "one of " + ", ".join(FAIL_ON))
    return Config(path=path, root=root, services=tuple(services), defaults=defaults,
                  shown="" if path is not None else file, fail_on=as_fail_on(fail_on),
                  baseline=top.string("baseline"))


def _service(table: _Table, base: ServiceConfig, *, service: bool) -> ServiceConfig:
    """The settings of one table, on top of `base` (the top-level settings)."""
    name = table.required("name") if service else ""
    profile = table.string("profile")
    if profile is not None and profile not in PROFILES:
        table.bad("profile", "one of " + ", ".join(sorted(PROFILES)))
    released = table.string("released-max")
    released_max = parse_version(released) if released is not None else None
    if released is not None and released_max is None:
        table.bad("released-max", "a microversion like '2.103'")
    disabled = table.strings("disable")
    known = {rule.id for rule in RULES}
    for rule_id in disabled:
        if rule_id not in known:
            table.fail(f"'disable': unknown rule {rule_id!r} (see 'needs-microversion rules')")
    free_form = table.strings("free-form")
    for pointer in free_form:
        if not pointer.startswith(("/", "*")):
            table.fail(f"'free-form': {pointer!r} must be a body pointer such as "
                       "'/server/metadata'")
    claims = tuple(parse_claim(text, f"{table.where} 'silent-failures':".strip(), table.file)
                   for text in table.strings("silent-failures"))
    acknowledgements = tuple(
        _acknowledgement(table.child("acknowledge", i, raw, _ACK_KEYS))
        for i, raw in enumerate(table.tables("acknowledge")))
    catch_up = table.flag("catch-up")
    count_corrections = table.flag("count-corrections")
    return ServiceConfig(
        name=name,
        documents=table.strings("documents") if "documents" in table.data else base.documents,
        profile=profile or base.profile,
        version_file=table.string("version-file") or base.version_file,
        released_max=released_max or base.released_max,
        exempt_error_codes=(_codes(table) if "exempt-error-codes" in table.data
                            else base.exempt_error_codes),
        free_form=(*base.free_form, *free_form),
        disabled=(*base.disabled, *disabled),
        silent_failures=(*base.silent_failures, *claims),
        catch_up=catch_up if catch_up is not None else base.catch_up,
        count_corrections=count_corrections if count_corrections is not None
        else base.count_corrections,
        acknowledgements=(*base.acknowledgements, *acknowledgements),
    )


def _codes(table: _Table) -> frozenset[str]:
    value = table.data["exempt-error-codes"]
    if not isinstance(value, list) or not all(
            type(v) in (int, str) and re.fullmatch(r"[1-5]\d\d", str(v)) for v in value):
        table.bad("exempt-error-codes", "a list of status codes such as [400, 404]")
    return frozenset(str(v) for v in value)


def _acknowledgement(table: _Table) -> Acknowledgement:
    rule = table.required("rule")
    known = {r.id for r in RULES} | {f for r in RULES for f in r.finding_ids}
    if rule not in known:
        table.fail(f"'rule': unknown rule {rule!r} (see 'needs-microversion rules')")
    operation_text = table.required("operation")
    match = _OPERATION.match(operation_text)
    if match is None:
        table.bad("operation", "'METHOD /path' (or 'POST /path (action)')")
    method, path, action_hash, action_paren = match.groups()
    reason = table.required("reason")
    pointer = table.data.get("pointer", "")
    if not isinstance(pointer, str):
        table.bad("pointer", "a body pointer such as '/server/locked', or a parameter or "
                  "header name")
    status = table.data.get("status")
    if status is not None and not (type(status) in (int, str)
                                   and re.fullmatch(r"[1-5]\d\d", str(status))):
        table.bad("status", "a status code such as 404")
    return Acknowledgement(
        rule=rule, operation=OpKey(method.upper(), path_shape(path),
                                   action_hash or action_paren),
        operation_text=operation_text, pointer=pointer, status=None if status is None
        else str(status), reason=reason, expires=_date(table, "expires"),
        source=f"{table.file} {table.where}")


def _date(table: _Table, key: str) -> datetime.date | None:
    if key not in table.data:
        return None
    value = table.data[key]
    if isinstance(value, datetime.datetime):
        table.bad(key, "a date YYYY-MM-DD")
    if isinstance(value, datetime.date):
        return value
    if isinstance(value, str) and _DATE.match(value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip())
        except ValueError:
            pass
    table.bad(key, "a date YYYY-MM-DD")
