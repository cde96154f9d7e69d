"""History rows judged by an earlier run, kept by what judging a commit depends on: a second
`history` over the same past reads them back instead of judging again.

    kept = KeptRows(repo, context(repo, options, config), config)   # once per run
    row = kept.get(commit, parent)        # a Judged (its row, or None: nothing to judge)
    kept.put(commit, parent, row)         # best effort

A commit and its first parent name every file both trees hold (git names content). What
else a verdict reads is in the context: this tool as installed (`documents.parsed`'s stamp,
in every key), the options that change a verdict, the configuration on disk, the release
tags (the release state of the time: a tag added later may make a microversion released),
and today's date where a configuration at the commit or on disk has acknowledgements that
expire. The release a commit shipped in and its link are not kept: they are added to every
row, kept or judged, after.

Entries are JSON written by `model.codec`: reading one builds only the records of a row,
checked against their types, and anything odd is a miss, never an error.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from needs_microversion.config import CONFIG_NAMES, Config
from needs_microversion.documents.parsed import ParsedCache
from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo
from needs_microversion.model import codec
from needs_microversion.model.history import HistoryRow
from needs_microversion.repository.revision import Revision

# nova's history is ~900 rows, cinder's ~400: room for several repositories and ranges.
_KEEP = 16384


@dataclass(frozen=True)
class Judged:
    row: HistoryRow | None  # None: the commit had nothing to judge


def context(repo: Repo, options: tuple[Any, ...], config: Config) -> str:
    """What besides the two commits a row depends on, as one digest."""
    tags = repo.git("for-each-ref", "--format=%(refname)%00%(objectname)", "refs/tags")
    parts = json.dumps([repr(options), repr(config), hashlib.sha256(tags).hexdigest()])
    return hashlib.sha256(parts.encode("utf-8", "surrogateescape")).hexdigest()


class KeptRows:
    def __init__(self, repo: Repo, context_digest: str, config: Config) -> None:
        self.repo = repo
        self.context = context_digest
        self._dated = any(ack.expires is not None for service in
                          (config.defaults, *config.services) for ack in service.acknowledgements)
        # `check` reads the configuration a revision holds only when none is on disk.
        self._per_commit = config.path is None
        self._cache = ParsedCache("history", keep=_KEEP)

    def get(self, commit: str, parent: str) -> Judged | None:
        """The row an earlier run judged; None when none is kept (or it cannot be read)."""
        data = self._cache.get(self._key(commit, parent))
        if not isinstance(data, dict) or set(data) != {"row"}:
            return None
        if data["row"] is None:
            return Judged(None)
        try:
            return Judged(codec.decode(data["row"], HistoryRow))
        except (codec.UnreadableData, RecursionError):
            return None

    def put(self, commit: str, parent: str, row: HistoryRow | None) -> None:
        try:
            data = None if row is None else codec.encode(row)
        except codec.UnknownValue:
            return  # a value with no exact form: judged again next time
        self._cache.put(self._key(commit, parent), {"row": data})

    def _key(self, commit: str, parent: str) -> str:
        inputs = [("context", self.context), ("commit", commit), ("parent", parent)]
        if self._dated or (self._per_commit and self._expiring(commit)):
            inputs.append(("today", datetime.date.today().isoformat()))
        return self._cache.key("history-row", inputs)

    def _expiring(self, commit: str) -> bool:
        """The configuration the commit holds (read when none is on disk) may have
        acknowledgements that expire: its verdicts may change with the day."""
        revision = Revision(self.repo, commit, commit[:12])
        try:
            return any("expires" in (revision.text(name) or "") for name in CONFIG_NAMES)
        except InputError:  # not readable as a file: judging the commit will say why
            return True
