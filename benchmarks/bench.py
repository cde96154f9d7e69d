"""Wall time and peak memory of `needs-microversion diff` on ../shared/bench, as users run it.

The tool is the console script installed beside this interpreter (the venv's
`needs-microversion`, bytecode caching on, as a user or a pre-commit hook runs it), timed
with and without validation beside the floor: python start-up plus reading and parsing both
files with the fastest parser at hand (json for JSON, yaml.CSafeLoader for YAML). The
validated run is timed twice: with no cache (every document validated, a first run), and
"again", with the problems the warm-up kept (a user's next run on the same files). Every
figure is the median of --repeat runs after one warm-up run; peak memory is the largest resident
size of one run (the operating system's accounting of the finished process).
A last line gives what every run pays before any work: Python starting, and the tool on two
documents with nothing in them (its start-up), to read the small pairs' ratios against.

Run: python benchmarks/bench.py [--repeat N] [--pairs NAME/EXT ...] [--no-validated]
                                [--tool EXECUTABLE] [--stages]
With --stages it also prints where the time goes (benchmarks/stages.py, in-process).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"
PAIRS = ["petstore/yaml", "openai/yaml", "stripe/json", "stripe/yaml", "github/json",
         "github/yaml", "kubernetes/json"]
FLOOR = """
import json, sys, yaml
for name in sys.argv[1:]:
    raw = open(name, "rb").read()
    json.loads(raw) if name.endswith(".json") else yaml.load(raw, Loader=yaml.CSafeLoader)
"""
# The start-up line's document, compared with itself: no operations, nothing to compare.
EMPTY = '{"openapi": "3.0.3", "info": {"title": "empty", "version": "1"}, "paths": {}}'


def run_once(argv: list[str], cache: str = "") -> tuple[float, float, int]:
    """(wall seconds, peak resident MB, exit code) of one run; `cache`: the folder of
    remembered validation problems ("": none, every document is validated)."""
    env = {**os.environ, "NEEDS_MICROVERSION_CACHE": cache}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return elapsed, usage.ru_maxrss / 1024, proc.returncode


def measure(argv: list[str], repeat: int, cache: str = "") -> tuple[float, float, int]:
    """Median wall time and peak memory of `repeat` runs after one warm-up."""
    run_once(argv, cache)  # warm-up: the page cache and bytecode (and the cache) are warm
    runs = [run_once(argv, cache) for _ in range(repeat)]
    codes = {code for _, _, code in runs}
    if not codes <= {0, 1}:
        print(f"  exit codes {sorted(codes)}: {' '.join(argv)}", file=sys.stderr)
    return (statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2])


def tool_command() -> list[str]:
    """The installed console script beside this interpreter (as users run it)."""
    script = Path(sys.executable).with_name("needs-microversion")
    found = str(script) if script.exists() else shutil.which("needs-microversion")
    if found is None:
        raise SystemExit("needs-microversion is not installed (pip install -e .)")
    return [found, "diff"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="counted runs (median)")
    parser.add_argument("--pairs", nargs="*", default=PAIRS, help="e.g. stripe/json")
    parser.add_argument("--no-validated", action="store_true",
                        help="skip the default (validated) run")
    parser.add_argument("--stages", action="store_true", help="print the time of each stage")
    parser.add_argument("--tool", help="another needs-microversion executable (A/B runs)")
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"no benchmark folder at {BENCH}")
        return 2
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ.clear()
    os.environ.update(env)
    tool = [args.tool, "diff"] if args.tool else tool_command()
    print(f"{'pair':<16}{'floor s':>9}{'novalid s':>10}{'x floor':>8}{'valid s':>9}"
          f"{'x noval':>8}{'again s':>9}{'x noval':>8}{'MB noval':>9}{'MB valid':>9}"
          f"{'exit':>5}")
    for pair in args.pairs:
        name, ext = pair.split("/")
        old, new = str(BENCH / name / f"old.{ext}"), str(BENCH / name / f"new.{ext}")
        floor, _, _ = measure([sys.executable, "-c", FLOOR, old, new], args.repeat)
        fast, fast_mb, code = measure([*tool, old, new, "--format", "json", "--no-validate"],
                                      args.repeat)
        row = (f"{pair:<16}{floor:>9.3f}{fast:>10.3f}{fast / floor:>8.2f}")
        if args.no_validated:
            row += f"{'-':>9}{'-':>8}{'-':>9}{'-':>8}{fast_mb:>9.0f}{'-':>9}"
        else:
            argv = [*tool, old, new, "--format", "json"]
            slow, slow_mb, code = measure(argv, args.repeat)
            with tempfile.TemporaryDirectory() as cache:
                again, _, _ = measure(argv, args.repeat, cache)
            row += (f"{slow:>9.3f}{slow / fast:>8.2f}{again:>9.3f}{again / fast:>8.2f}"
                    f"{fast_mb:>9.0f}{slow_mb:>9.0f}")
        print(row + f"{code:>5}", flush=True)
    print_startup(tool, args.repeat)
    if args.stages:
        print_stages(args.repeat, args.pairs)
    return 0


def print_startup(tool: list[str], repeat: int) -> None:
    """Python starting, and the tool comparing two documents with no operations."""
    python, _, _ = measure([sys.executable, "-c", "pass"], repeat)
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder) / "empty.json"
        empty.write_text(EMPTY)
        tool_s, tool_mb, _ = measure([*tool, str(empty), str(empty), "--format", "json",
                                      "--no-validate"], repeat)
    print(f"start-up: python {python:.3f} s; the tool on two empty documents {tool_s:.3f} s, "
          f"{tool_mb:.0f} MB")


def print_stages(repeat: int, pairs: list[str]) -> None:
    """The median of `repeat` runs of each stage, one fresh interpreter per run."""
    script = str(Path(__file__).with_name("stages.py"))
    names = ["imports", "parse", "index", "compare", "lines", "judge+render"]
    print(f"\n{'pair':<16}" + "".join(f"{n:>13}" for n in names) + f"{'changes':>9}")
    for pair in pairs:
        name, ext = pair.split("/")
        old, new = str(BENCH / name / f"old.{ext}"), str(BENCH / name / f"new.{ext}")
        runs = [json.loads(subprocess.run([sys.executable, script, old, new], check=True,
                                          capture_output=True, text=True).stdout)
                for _ in range(repeat)]
        middle = {n: statistics.median(run[n] for run in runs) for n in names}
        print(f"{pair:<16}" + "".join(f"{middle[n]:>13.3f}" for n in names)
              + f"{runs[0]['changes']:>9}")


if __name__ == "__main__":
    raise SystemExit(main())
