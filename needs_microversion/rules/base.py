"""What every rule shares: options, the judging context, and the rule base class."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, ClassVar

from needs_microversion.model.change import Change, element
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.verdict import NOT_REQUIRED, Claim, Finding, Verdict
from needs_microversion.model.versions import FLOOR, Version

# nova footnote f1: clients are not expected to handle a 500 or 503.
SERVER_ERRORS = ("500", "503")


@dataclass(frozen=True)
class Options:
    """How to judge. The defaults are neutral (no project's exceptions): the profile, the
    configuration and the command line fill them in (`commands.diff.build_options`)."""

    exempt_error_codes: frozenset[str] = frozenset()
    free_form_paths: tuple[str, ...] = ()
    silent_failures: tuple[Claim, ...] = ()
    disabled: frozenset[str] = frozenset()
    documentation_catch_up: bool = False  # api-ref trees: see rule catch-up
    inapplicable_header_exemption: bool = True  # Retry-After removed from a 4xx: see header
    retired_api_exemption: bool = True  # 410 Gone at every microversion: see status-code
    experimental_header: str | None = None  # lower-case; see experimental
    # The operations whose old document lists the experimental header (set per comparison).
    experimental_operations: frozenset[OpKey] = frozenset()
    # Whether the change touches the API's code (repository evidence; None: not known), and
    # the code lines it adds or removes, lower-cased (None: not read).
    code_changed: bool | None = None
    code_diff: str | None = None
    view_diff: str | None = None  # those of the code that makes responses (not schemas)
    corrections: bool = True  # see rule correction; --count-corrections turns it off
    # Whether either document writes microversions, in an element or its version-discovery
    # sample (set per comparison).
    gated_documents: bool = False
    # The snapshots are the contract a service's code declares (set per comparison), and
    # whether the change edits code that returns bodies (controllers, views: not only the
    # schema modules); None: not known.
    code_contract: bool = False
    view_code_changed: bool | None = None


@dataclass(frozen=True)
class Context:
    options: Options
    # Operations where a documented 500/503 went away: their new 4xx codes are the fix.
    fixed_server_errors: frozenset[OpKey] = field(default=frozenset())
    old_max: Version | None = None
    new_max: Version | None = None
    # Elements whose new entry starts at an already released microversion -> that version.
    documented_late: Mapping[tuple[Any, ...], Version] = field(default_factory=dict)
    # Operations a 410 Gone retires at every version (compare tells why: `Change.retired`).
    retired: frozenset[OpKey] = field(default=frozenset())
    # Microversions the change's own version record names (a history document entry, a
    # release note): what the change says it delivers.
    announced: frozenset[Version] = field(default=frozenset())

    @classmethod
    def build(cls, options: Options, changes: Iterable[Change],
              old_max: Version | None = None, new_max: Version | None = None) -> Context:
        changes = tuple(changes)
        fixed = frozenset(c.op_key for c in changes if c.area == "status-code"
                          and c.kind == "removed" and c.status in SERVER_ERRORS)
        late = {element(c): c.since for c in changes
                if c.since is not None and c.gated is None and old_max is not None
                and FLOOR < c.since <= old_max}
        retired = frozenset(c.op_key for c in changes if c.area == "status-code"
                            and c.kind == "added" and c.status == "410" and c.gated is None
                            and c.retired)
        announced = frozenset(c.gated for c in changes if c.area == "version"
                              and c.version_event == "named" and c.gated is not None)
        return cls(options, fixed, old_max, new_max, late, retired, announced)

    def in_free_form_path(self, change: Change) -> bool:
        """The change adds or removes a key below a configured free-form object."""
        return _below_any(self.options.free_form_paths).match(change.pointer) is not None


@cache
def _below_any(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for "below one of these globs" (asked of every change of a large diff)."""
    globs = [fnmatch.translate(pattern.rstrip("/") + "/*") for pattern in patterns]
    return re.compile("|".join(f"(?:{glob})" for glob in globs) or "(?!)")


class Rule:
    """Base of every rule: the docstring of a subclass is its documentation."""

    id: ClassVar[str]
    order: ClassVar[int]
    question: ClassVar[str]
    finding_ids: ClassVar[tuple[str, ...]]
    review: ClassVar[bool] = False  # its findings ask a reviewer to check the code
    # Its findings that rest only on what the documents write (a `needs:*` marker, prose, an
    # element gone from every version): a reading of the documents, not evidence about the
    # API. The judge sets them aside when the change edits the API's code.
    wording_ids: ClassVar[frozenset[str]] = frozenset()

    def rests_on_wording(self, finding: Finding) -> bool:
        """Whether the finding is only the documents' word for what the API did."""
        return finding.id in self.wording_ids

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        """Return a Finding when this question answers for the change, else None."""
        raise NotImplementedError

    def finding(self, finding_id: str, verdict: Verdict, change: Change, message: str
                ) -> Finding:
        assert finding_id in self.finding_ids, finding_id
        return Finding(finding_id, self.id, self.question, verdict, change, message,
                       review=self.review)


class OverrideRule(Rule):
    """A rule asked of the chart's answer rather than of the change: it may turn a finding
    into one of its own (judge applies it after the first rule answered)."""

    def evaluate(self, change: Change, context: Context) -> Finding | None:
        return None  # never answers a change itself

    def override(self, finding: Finding, context: Context) -> Finding:
        """The finding, or the one this rule turns it into."""
        raise NotImplementedError

    def not_required(self, finding: Finding, reason: str) -> Finding:
        """The finding answered by this rule (its one finding id): no microversion, why."""
        return replace(finding, id=self.finding_ids[0], rule=self.id, question=self.question,
                       verdict=NOT_REQUIRED, message=f"{finding.message}: {reason}")
