"""Wall time and peak memory of `needs-microversion diff --no-validate` on ../shared/bench.

Beside each pair it measures the floor: python start-up plus reading and parsing both files
with the fastest parser at hand (json for JSON, yaml.CSafeLoader for YAML).
With --stages it also prints where the time goes (benchmarks/stages.py, in-process).
Run: python benchmarks/bench.py [--repeat N] [--validate] [--stages]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"
PAIRS = [("petstore", "yaml"), ("openai", "yaml"), ("stripe", "json"), ("stripe", "yaml"),
         ("github", "json"), ("github", "yaml"), ("kubernetes", "json")]
FLOOR = """
import json, sys, yaml
for name in sys.argv[1:]:
    raw = open(name, "rb").read()
    json.loads(raw) if name.endswith(".json") else yaml.load(raw, Loader=yaml.CSafeLoader)
"""


def timed(argv: list[str]) -> tuple[float, int]:
    """(seconds, exit code) of one run."""
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stderr.decode())
    return elapsed, proc.returncode


def best(argv: list[str], repeat: int) -> tuple[float, int]:
    """The fastest of `repeat` runs (the least disturbed by the machine)."""
    runs = [timed(argv) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[-1][1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--validate", action="store_true", help="also time with validation")
    parser.add_argument("--stages", action="store_true", help="print the time of each stage")
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"no benchmark folder at {BENCH}")
        return 2
    tool = [sys.executable, "-m", "needs_microversion", "diff"]
    print(f"{'pair':<16}{'floor s':>9}{'tool s':>9}{'ratio':>7}{'peak MB':>9}{'exit':>6}")
    for name, ext in PAIRS:
        old, new = str(BENCH / name / f"old.{ext}"), str(BENCH / name / f"new.{ext}")
        floor, _ = best([sys.executable, "-c", FLOOR, old, new], args.repeat)
        options = [] if args.validate else ["--no-validate"]
        wall, code = best([*tool, old, new, "--format", "json", *options], args.repeat)
        peak = _peak([*tool, old, new, "--format", "json", *options])
        print(f"{name + '/' + ext:<16}{floor:>9.3f}{wall:>9.3f}{wall / floor:>7.2f}"
              f"{peak:>9.0f}{code:>6}")
    if args.stages:
        print_stages(args.repeat)
    return 0


def print_stages(repeat: int) -> None:
    """The best of `repeat` runs of each stage, one fresh interpreter per run."""
    script = str(Path(__file__).with_name("stages.py"))
    names = ["imports", "parse", "index", "compare", "lines", "judge+render"]
    print(f"\n{'pair':<16}" + "".join(f"{n:>13}" for n in names) + f"{'changes':>9}")
    for name, ext in PAIRS:
        old, new = str(BENCH / name / f"old.{ext}"), str(BENCH / name / f"new.{ext}")
        runs = [json.loads(subprocess.run([sys.executable, script, old, new], check=True,
                                          capture_output=True, text=True).stdout)
                for _ in range(repeat)]
        for run in runs:
            run["index"] = run.pop("parse+index") - run["parse"]
        best = {n: min(run[n] for run in runs) for n in names}
        print(f"{name + '/' + ext:<16}" + "".join(f"{best[n]:>13.3f}" for n in names)
              + f"{runs[0]['changes']:>9}")


def _peak(argv: list[str]) -> float:
    """Peak resident MB of one run, measured by GNU time (0 if it is not installed)."""
    if not os.path.exists("/usr/bin/time"):
        return 0.0
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "0"
    return int(last) / 1024 if last.isdigit() else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
