"""The ordered rule registry: chart questions first (Q1..Q6), then the wider contract."""

from __future__ import annotations

from needs_microversion.errors import InputError
from needs_microversion.model.verdict import NOT_REQUIRED, Finding
from needs_microversion.rules.allowed_values import AllowedValues
from needs_microversion.rules.announced import Announced
from needs_microversion.rules.attribute import Attribute
from needs_microversion.rules.base import Rule
from needs_microversion.rules.catch_up import CatchUp
from needs_microversion.rules.correction import CorrectionRule
from needs_microversion.rules.coverage import Coverage
from needs_microversion.rules.documentation_only import DocumentationOnly
from needs_microversion.rules.drift import Drift
from needs_microversion.rules.experimental import Experimental
from needs_microversion.rules.header import Header
from needs_microversion.rules.media_type import MediaType
from needs_microversion.rules.prior_500 import PriorServerError
from needs_microversion.rules.query_parameter import QueryParameter
from needs_microversion.rules.resource_url import ResourceUrl
from needs_microversion.rules.response_schema import ResponseSchema
from needs_microversion.rules.security import Security
from needs_microversion.rules.silent_failure import SilentFailure
from needs_microversion.rules.status_code import StatusCode
from needs_microversion.rules.unread_value import UnreadValue
from needs_microversion.rules.version_discovery import VersionDiscovery

RULES: tuple[Rule, ...] = (
    SilentFailure(), PriorServerError(), CatchUp(), CorrectionRule(), Coverage(),
    ResponseSchema(), UnreadValue(), Announced(), StatusCode(),
    Attribute(), QueryParameter(), ResourceUrl(), Header(), AllowedValues(), MediaType(),
    Security(),
    Experimental(), DocumentationOnly(), VersionDiscovery(),
)
# Rules that judge no change, and the reports they make (`needs-microversion drift`): every
# finding id the tool can emit is declared in RULES or here.
DRIFT = Drift()
REPORT_RULES: tuple[Rule, ...] = (*RULES, DRIFT)


def get(rule_id: str) -> Rule:
    for rule in REPORT_RULES:
        if rule.id == rule_id:
            return rule
    raise InputError(f"unknown rule {rule_id!r} (see 'needs-microversion rules')")


def walk(finding: Finding) -> list[tuple[str, str]]:
    """The chart walked for one finding: (question, answer) up to the one that decided."""
    steps = []
    for rule in RULES:
        if rule.id == finding.rule:
            steps.append((rule.question, "yes" if finding.verdict != NOT_REQUIRED else
                          "yes, but an exception applies"))
            break
        steps.append((rule.question, "no"))
    return steps
