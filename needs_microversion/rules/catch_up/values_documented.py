"""values-documented: allowed values written down for the first time in prose where none
were documented before. Gaining a list restricts the values (a "removed" change with no
list before); values added to a list the old prose already gave are a change like any
other."""

from __future__ import annotations

from needs_microversion.model.change import Change, describe

ID = "values-documented"


def message(change: Change) -> str | None:
    if change.aspect == "enum" and change.kind == "removed" and change.old is None \
            and change.inferred:
        return (f"{describe(change)}: values documented for the first time (read from "
                "prose); check the code already refused others")
    return None
