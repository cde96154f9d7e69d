"""A JSON or YAML file as read: its text and its plain data (`documents/` reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


# eq=False: documents are compared (and cached) by identity, never by their megabytes of text.
@dataclass(frozen=True, eq=False)
class Document:
    path: Path  # absolute, resolved
    display: str  # the name shown to the user
    root: Path  # the folder tree `$ref`s may read from
    text: str
    data: Any  # dict / list / str / int / float that keeps its source text / bool / None
    format: str  # "json" or "yaml" ("api-ref" for the document an api-ref tree becomes)
