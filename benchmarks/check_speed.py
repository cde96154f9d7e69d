"""Wall and CPU time of `check` on real commits, as CI and the pre-commit hook run it, with
the cache cold, with the base side cached, and with both sides cached; and of `history`,
cold and warm. Optionally a second build of the tool beside the first, in the same run
(interleaved, so that a busy shared machine slows both alike), with the ratios.

    python benchmarks/check_speed.py /work/.mirror/openstack+nova/repo 94ae45c1d1 b07f737b57
    python benchmarks/check_speed.py REPO COMMIT --against /tmp/old/.venv/bin/needs-microversion
    python benchmarks/check_speed.py REPO --history [--since TAG]

`check --from-ref C~1 --to-ref C` is timed in the repository (a bare mirror will do):
- cold: an empty cache folder;
- base: what an earlier run on the branch kept: `check C~2..C~1` and `export C~1` (the base
  revision's api-ref tree and code contract) ran first;
- both: `check C~1..C` ran first (a second run on the same change: the Action's summary).
CPU is the process's user and system time with every child it waited for (git, forked
readers), as `time` counts it. Every figure is the median of --repeat runs. Not a test:
the machines are shared and noisy; read ratios taken in one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL = Path(sys.executable).with_name("needs-microversion")
MODES = ("cold", "base", "both")


def timed(tool: Path, args: list[str], repo: Path, cache: Path) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one run of the tool."""
    env = {**os.environ, "NEEDS_MICROVERSION_CACHE": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as users run it
    start = time.perf_counter()
    process = subprocess.Popen([str(tool), *args], cwd=repo, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, process.returncode


def prepared(tool: Path, repo: Path, commit: str, mode: str) -> Path:
    """A cache folder holding what `mode` says was kept before."""
    cache = Path(tempfile.mkdtemp(prefix="nm-speed-"))
    runs = {"cold": [],
            "base": [["check", "--from-ref", f"{commit}~2", "--to-ref", f"{commit}~1"],
                     ["export", f"{commit}~1", "-o", os.devnull]],
            "both": [["check", "--from-ref", f"{commit}~1", "--to-ref", commit]]}[mode]
    for args in runs:
        timed(tool, args, repo, cache)
    return cache


def check_speed(tools: list[Path], repo: Path, commits: list[str], repeat: int,
                modes: tuple[str, ...] = MODES) -> None:
    print(f"check --from-ref C~1 --to-ref C in {repo}, median of {repeat}")
    header = "commit       mode " + "".join(f"  wall {i}  cpu {i}" for i in range(len(tools)))
    print(header + ("   cpu 1/0" if len(tools) == 2 else ""))
    for commit in commits:
        for mode in modes:
            figures: list[list[tuple[float, float]]] = [[] for _ in tools]
            codes = set()
            for _ in range(repeat):
                for at, tool in enumerate(tools):  # interleaved: the same load for each
                    cache = prepared(tool, repo, commit, mode)
                    try:
                        wall, cpu, code = timed(
                            tool, ["check", "--from-ref", f"{commit}~1", "--to-ref", commit],
                            repo, cache)
                    finally:
                        shutil.rmtree(cache, ignore_errors=True)
                    figures[at].append((wall, cpu))
                    codes.add(code)
            medians = [(statistics.median(w for w, _ in f), statistics.median(c for _, c in f))
                       for f in figures]
            line = f"{commit[:12]:12} {mode:5}" + "".join(
                f"  {wall:6.2f}  {cpu:5.2f}" for wall, cpu in medians)
            if len(tools) == 2:
                line += f"   {medians[1][1] / medians[0][1]:6.2f}"
            print(line + f"   exit {sorted(codes)}", flush=True)


def history_speed(tools: list[Path], repo: Path, since: str | None) -> None:
    args = ["history", "--format", "json", *(["--since", since] if since else [])]
    print(f"history in {repo}{f' since {since}' if since else ''}: cold, then warm")
    for at, tool in enumerate(tools):
        cache = Path(tempfile.mkdtemp(prefix="nm-speed-"))
        try:
            cold = timed(tool, args, repo, cache)
            warm = timed(tool, args, repo, cache)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        print(f"tool {at}: cold wall {cold[0]:.1f} s cpu {cold[1]:.1f} s; "
              f"warm wall {warm[0]:.2f} s cpu {warm[1]:.2f} s (exit {cold[2]}, {warm[2]})",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("commits", nargs="*")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tool", type=Path, default=TOOL)
    parser.add_argument("--against", type=Path, help="a second build, timed beside")
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"which of {', '.join(MODES)} to time (comma-separated)")
    parser.add_argument("--history", action="store_true", help="time history instead")
    parser.add_argument("--since", help="history's --since")
    options = parser.parse_args()
    tools = [options.tool, *([options.against] if options.against else [])]
    if options.history:
        history_speed(tools, options.repo, options.since)
    else:
        check_speed(tools, options.repo, options.commits, options.repeat,
                    tuple(options.modes.split(",")))


if __name__ == "__main__":
    main()
