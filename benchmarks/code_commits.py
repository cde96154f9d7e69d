"""Real commits that edit a service's API code, judged the CI way (issue 35's measure).

    python -m benchmarks.code_commits /work/.mirror/openstack+nova/repo --since 33.0.0

Every first-parent commit after `--since` that edits the API's code (`nova/api/**.py`, not
tests) is checked as CI checks a pull request (`check --from-ref C~1 --to-ref C`, no
configuration). Two groups:

- commits that raise the version file's maximum: the tool must say a microversion is needed
  and provided (exit 0 with a required finding) and name the new maximum;
- commits that raise nothing: at most one in ten may be flagged (exit 1).

Not a test: it needs a real repository. It prints a table and the commits that miss.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TOOL = Path(sys.executable).with_name("needs-microversion")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def commits(repo: Path, since: str, project: str, version_file: str) -> list[tuple[str, bool]]:
    """(commit, raises the version file) of the first-parent commits editing the API code."""
    found = []
    for commit in git(repo, "log", "--first-parent", "--format=%H", f"{since}..HEAD").split():
        files = git(repo, "diff", "--name-only", f"{commit}~1", commit).split()
        if not any(f.startswith(f"{project}/api/") and f.endswith(".py") and "/tests/" not in f
                   for f in files):
            continue
        found.append((commit, version_file in files
                      and _maximum(repo, f"{commit}~1", version_file)
                      != _maximum(repo, commit, version_file)))
    return found


_MAXIMUM = re.compile(r"""^_MAX_API_VERSION\s*=\s*['"]([\d.]+)['"]""", re.M)


def _maximum(repo: Path, commit: str, version_file: str) -> str | None:
    """The version file's maximum at a commit (an edit of the file that keeps it raises
    nothing: nova a7e5377da4c0, a2b9dc1b4e10)."""
    found = _MAXIMUM.search(git(repo, "show", f"{commit}:{version_file}"))
    return found.group(1) if found else None


def judge(repo: Path, commit: str) -> dict:
    start = time.perf_counter()
    done = subprocess.run([str(TOOL), "check", "--from-ref", f"{commit}~1", "--to-ref", commit,
                           "--no-validate", "--format", "json"], cwd=repo, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "NO_COLOR": "1"})
    seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"commit": commit, "exit": done.returncode, "error": done.stderr[-300:],
                "seconds": seconds}
    changes = [c for doc in report.get("documents", []) for c in doc["report"]["changes"]]
    return {"commit": commit, "exit": done.returncode, "seconds": seconds,
            "required": sorted({c["id"] for c in changes if c["verdict"] == "required"}),
            "gated": sorted({c["gated"] for c in changes if c.get("gated")}),
            "unprovided": sorted({c["id"] for c in changes if c["verdict"] == "required"
                                  and not c["provided"]})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--since", required=True)
    parser.add_argument("--project", default="nova")
    parser.add_argument("--version-file", default="nova/api/openstack/api_version_request.py")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    listed = commits(args.repo, args.since, args.project, args.version_file)
    with ThreadPoolExecutor(args.workers) as pool:
        results = list(pool.map(lambda item: judge(args.repo, item[0]), listed))
    raised_ok = plain_flagged = 0
    misses = []
    raised = [(c, r) for (c, bump), r in zip(listed, results, strict=True) if bump]
    plain = [(c, r) for (c, bump), r in zip(listed, results, strict=True) if not bump]
    for commit, result in raised:
        new_max = git(args.repo, "show", f"{commit}:{args.version_file}")
        named = any(f"'{v}'" in new_max or f'"{v}"' in new_max for v in result.get("gated", []))
        if result["exit"] == 0 and result.get("required") and named:
            raised_ok += 1
        else:
            misses.append(("raised", commit, result))
    for commit, result in plain:
        if result["exit"] != 0:
            plain_flagged += 1
            misses.append(("plain", commit, result))
    seconds = sorted(r["seconds"] for r in results)
    print(f"| group | commits | as expected |\n|---|---|---|\n"
          f"| raised the maximum (required, provided, named) | {len(raised)} | {raised_ok} |\n"
          f"| raised nothing (not flagged) | {len(plain)} | {len(plain) - plain_flagged} |")
    if seconds:
        print(f"\ncheck seconds: median {seconds[len(seconds) // 2]:.2f}, max {seconds[-1]:.2f}")
    for group, commit, result in misses:
        print(f"- {group} {commit[:12]}: exit {result['exit']} required {result.get('required')}"
              f" unprovided {result.get('unprovided')} gated {result.get('gated')}"
              f" {result.get('error', '')}")


if __name__ == "__main__":
    main()
