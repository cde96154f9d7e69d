"""The commands, as plain functions that build reports from the stages: `diff` compares two
documents, `check` the configured documents of a repository against a base revision."""
