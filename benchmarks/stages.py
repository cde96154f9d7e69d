"""Where the time of one `diff --no-validate --format json` goes, stage by stage.

Run in a fresh interpreter per pair (bench.py --stages does): the first stage is the import
of everything a plain `diff` imports before it reads a file (`launch`: no typer). Each
document is parsed once and indexed from that parse (as `load_pair` does), the collector
paused as the command pauses it, so no stage pays for another's garbage.
Run: python benchmarks/stages.py OLD NEW
"""

from __future__ import annotations

import json
import sys
import time


def main(old_path: str, new_path: str) -> dict[str, float]:
    stages: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        stages[name] = now - clock
        clock = now

    import needs_microversion.launch  # noqa: F401  (the console script)
    from needs_microversion.collector import collector_paused

    with collector_paused():  # as `launch.main` imports
        import needs_microversion.commands.diff  # noqa: F401  (what a plain diff pays)
        import needs_microversion.console  # noqa: F401
    from needs_microversion.compare import compare, with_lines
    from needs_microversion.documents.document import read_document
    from needs_microversion.judge import judged
    from needs_microversion.loaders.openapi.builder import SnapshotBuilder
    from needs_microversion.report import render
    from needs_microversion.rules.base import Options
    lap("imports")
    with collector_paused():
        docs = [read_document(path) for path in (old_path, new_path)]
        lap("parse")
        builders = [SnapshotBuilder(doc) for doc in docs]
        for builder in builders:
            builder.check_refs()
        old, new = (builder.build() for builder in builders)
        lap("index")
        changes = compare(old, new)
        lap("compare")
        changes = with_lines(changes, (old, new))
        lap("lines")
        report = judged(changes, Options(), old, new)
        render(report, "json")
        lap("judge+render")
    stages["changes"] = len(changes)
    return stages


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:3])))
