"""Where the time of one `diff --no-validate --format json` goes, stage by stage.

Run in a fresh interpreter per pair (bench.py --stages does): the first stage is the import
of everything the command line imports before it reads a file.
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

    import needs_microversion.cli  # noqa: F401  (what every command pays)
    from needs_microversion.compare import compare, with_lines
    from needs_microversion.documents.document import read_document
    from needs_microversion.judge import judge
    from needs_microversion.load import load_snapshot
    from needs_microversion.report import render
    from needs_microversion.rules.base import Options
    lap("imports")
    read_document(old_path), read_document(new_path)
    lap("parse")
    old, new = load_snapshot(old_path, validate=False), load_snapshot(new_path, validate=False)
    lap("parse+index")
    changes = compare(old, new)
    lap("compare")
    changes = with_lines(changes, (old, new))
    lap("lines")
    report = judge(changes, Options(), old=old.display, new=new.display,
                   old_version=old.max_version, new_version=new.max_version)
    render(report, "json")
    lap("judge+render")
    stages["changes"] = len(changes)
    return stages


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:3])))
