"""Time the api-ref loader on nova's tree (the budget: 0.7 s wall for one cold load).

    python benchmarks/apiref_load.py [SOURCE ...]

Without arguments it loads every nova `*/new` tree of ../shared/corpus/apiref. For each
source it prints the import time once, then the best and median of five cold loads (the
per-process parse caches cleared before each) and one warm load (every file cached, as when
the new tree of a diff shares most files with the old one).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus" / "apiref"
RUNS = 5


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    from needs_microversion.loaders.apiref import parameters_yaml as apiref_yaml
    from needs_microversion.loaders.apiref import tree as apiref_tree
    from needs_microversion.loaders.apiref.reader import load_apiref
    print(f"import: {time.perf_counter() - start:.3f} s")
    sources = [Path(a) for a in argv] or sorted(CORPUS.glob("nova-*/new"))
    if not sources:
        print(f"no sources given and {CORPUS} has no nova trees", file=sys.stderr)
        return 2
    for source in sources:
        cold = []
        for _ in range(RUNS):
            apiref_tree.parse_cached.cache_clear()  # a cold load is what is measured
            apiref_yaml.load_yaml.cache_clear()
            begin = time.perf_counter()
            result = load_apiref(source)
            cold.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        load_apiref(source)
        warm = time.perf_counter() - begin
        ops = sum(len(item) for item in result.document["paths"].values())
        print(f"{source}: {ops} operations; cold best {min(cold):.3f} s, median "
              f"{statistics.median(cold):.3f} s; warm {warm:.3f} s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
