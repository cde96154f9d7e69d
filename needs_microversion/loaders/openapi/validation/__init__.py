"""Validating an OpenAPI document with openapi-spec-validator, fast: its checks asked of
compiled predicates first (`keyword_precheck`, `draft4_predicate`), its validators subclassed
(`spec_validators`), its settings read without pydantic (`plain_settings`), the work done in
a child process beside the comparison (`validate`), and its answers remembered by content
(`remembered`)."""
