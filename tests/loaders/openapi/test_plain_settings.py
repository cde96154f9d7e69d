"""The validators' settings stand-ins (loaders/openapi/validation/plain_settings.py) say what the real
modules say when no setting is given, and spare the import of pydantic."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# What a fresh interpreter reports about the settings modules: every name defined in them
# (classes and functions by kind, the rest by value) and the settings they give.
_REPORT = """
import json, sys, types
if sys.argv[1] == "plain":
    from needs_microversion.loaders.openapi.validation import plain_settings
    plain_settings.install()
import openapi_schema_validator.settings as schema, openapi_spec_validator.settings as spec
def names(module, own):
    found = {}
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType) \\
                or getattr(value, "__module__", module.__name__) not in own:
            continue
        found[name] = type(value).__name__ if callable(value) else sorted(value) \\
            if isinstance(value, set) else value
    return found
own = {schema.__name__, spec.__name__, "needs_microversion.loaders.openapi.validation.plain_settings"}
print(json.dumps({
    "schema": names(schema, own), "spec": names(spec, own),
    "schema cache": schema.get_settings().compiled_validator_cache_max_size,
    "schema class": schema.OpenAPISchemaValidatorSettings().compiled_validator_cache_max_size,
    "spec cache": spec.get_resolved_cache_maxsize(),
    "spec backend": spec.get_schema_validator_backend(),
    "spec class": [spec.OpenAPISpecValidatorSettings().resolved_cache_maxsize,
                   spec.OpenAPISpecValidatorSettings().schema_validator_backend],
    "given": spec.OpenAPISpecValidatorSettings(resolved_cache_maxsize=5).resolved_cache_maxsize,
}, sort_keys=True))
"""


def _report(kind: str, **env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items()
             if not k.upper().startswith(("OPENAPI_SCHEMA_VALIDATOR_", "OPENAPI_SPEC_VALIDATOR_"))}
    out = subprocess.run([sys.executable, "-c", _REPORT, kind], env={**clean, **env},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _kinds(names: object) -> dict[str, object]:
    # A pydantic class and a plain one are both "type"-like; compare what they are called by.
    assert isinstance(names, dict)
    return {k: ("callable" if v in ("type", "function", "_lru_cache_wrapper",
                                    "ModelMetaclass") else v) for k, v in names.items()}


def test_the_stand_ins_say_what_the_real_settings_say() -> None:
    real, plain = _report("real"), _report("plain")
    assert {k: v for k, v in plain.items() if k not in ("schema", "spec")} == \
        {k: v for k, v in real.items() if k not in ("schema", "spec")}
    for module in ("schema", "spec"):
        assert _kinds(plain[module]) == _kinds(real[module])


def test_the_validator_imports_without_pydantic() -> None:
    code = ("import sys; from needs_microversion.loaders.openapi.validation.validate import ready; "
            "ready(); print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={k: v for k, v in os.environ.items()
                                          if not k.upper().startswith("OPENAPI_")})
    assert out.stdout.strip() == "False"


def test_a_setting_given_in_the_environment_is_read_by_the_real_module() -> None:
    given = _report("plain", openapi_spec_validator_resolved_cache_maxsize="7")
    assert given["spec cache"] == 7


def test_a_release_needing_a_name_the_stand_ins_lack_gets_the_real_settings() -> None:
    # A stand-in without a name the validators import stands for a later release's.
    code = """
import sys
from needs_microversion.loaders.openapi.validation import plain_settings
made = plain_settings._spec_settings
def lacking():
    module = made()
    del module.OpenAPISpecValidatorSettings
    return module
plain_settings._spec_settings = lacking
plain_settings.import_validators()
import openapi_spec_validator.settings as spec
print(hasattr(spec, "BaseSettings"), "needs_microversion.loaders.openapi.validation.spec_validators" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={k: v for k, v in os.environ.items()
                                          if not k.upper().startswith("OPENAPI_")})
    assert out.stdout.split() == ["True", "True"]  # the real module, and the validators
