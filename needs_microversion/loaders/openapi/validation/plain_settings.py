"""The validators' settings without pydantic, as they read when none is set.

openapi-schema-validator and openapi-spec-validator (0.9) each read a few settings (cache
sizes, which schema backend) through pydantic-settings, whose import, with pydantic's and
asyncio's, is a third of the validator's import: much of what a validated run of a small
document waits for. With none of their environment variables set, every setting is its
default, and these stand-ins give the same defaults, so the validators behave the same.
With any of them set, nothing is installed and the real modules read them. Should a
release import a name the stand-ins lack, the validators are imported again with the real
modules (`import_validators`). `tests/loaders/openapi/test_plain_settings.py` holds the
stand-ins to the real modules.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from functools import lru_cache
from typing import Any

SCHEMA_SETTINGS = "openapi_schema_validator.settings"
SPEC_SETTINGS = "openapi_spec_validator.settings"
_PREFIXES = ("OPENAPI_SCHEMA_VALIDATOR_", "OPENAPI_SPEC_VALIDATOR_")
VALIDATORS = "needs_microversion.loaders.openapi.validation.spec_validators"
# Every module an import of VALIDATORS may leave half-made when a stand-in lacks a name.
_IMPORTED_WITH = ("openapi_schema_validator", "openapi_spec_validator", VALIDATORS,
                  "needs_microversion.loaders.openapi.validation.keyword_precheck")


class _Settings:
    """Defaults, overridden by keyword (as a settings object is); unknown keys ignored."""

    defaults: dict[str, Any] = {}

    def __init__(self, **given: Any) -> None:
        for name, default in self.defaults.items():
            setattr(self, name, given.get(name, default))


class SchemaValidatorSettings(_Settings):
    defaults = {"compiled_validator_cache_max_size": 128}


class SpecValidatorSettings(_Settings):
    defaults = {"resolved_cache_maxsize": 128, "schema_validator_backend": "auto"}


def install() -> None:
    """Put the stand-ins where the validators import their settings from, unless a setting
    is given in the environment (pydantic-settings reads names case-blind) or the real
    modules are already imported."""
    if any(name.upper().startswith(_PREFIXES) for name in os.environ):
        return
    for module in (_schema_settings(), _spec_settings()):
        sys.modules.setdefault(module.__name__, module)


def import_validators() -> None:
    """Import our validators with the stand-ins installed; if that fails for a name they
    lack (a later release), forget what was imported and import with the real modules."""
    install()
    try:
        importlib.import_module(VALIDATORS)
    except ImportError:
        for name in [n for n in sys.modules if n.startswith(_IMPORTED_WITH)]:
            del sys.modules[name]
        importlib.import_module(VALIDATORS)


def _schema_settings() -> types.ModuleType:
    module = types.ModuleType(SCHEMA_SETTINGS)

    @lru_cache(maxsize=1)
    def get_settings() -> SchemaValidatorSettings:
        return SchemaValidatorSettings()

    def reset_settings_cache() -> None:
        get_settings.cache_clear()

    module.__dict__.update(OpenAPISchemaValidatorSettings=SchemaValidatorSettings,
                           get_settings=get_settings, reset_settings_cache=reset_settings_cache)
    return module


def _spec_settings() -> types.ModuleType:
    module = types.ModuleType(SPEC_SETTINGS)
    defaults = SpecValidatorSettings.defaults
    module.__dict__.update(
        ENV_PREFIX="OPENAPI_SPEC_VALIDATOR_",
        RESOLVED_CACHE_MAXSIZE_DEFAULT=defaults["resolved_cache_maxsize"],
        SCHEMA_VALIDATOR_BACKEND_DEFAULT=defaults["schema_validator_backend"],
        SCHEMA_VALIDATOR_BACKEND_ALLOWED={"auto", "jsonschema", "jsonschema-rs"},
        OpenAPISpecValidatorSettings=SpecValidatorSettings,
        get_resolved_cache_maxsize=lambda: defaults["resolved_cache_maxsize"],
        get_schema_validator_backend=lambda: defaults["schema_validator_backend"])
    return module
