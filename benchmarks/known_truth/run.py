"""Running the tool on a built case in both modes, and the summary of a run.

Mode `check`: `needs-microversion check --from-ref BASE --to-ref NEW --format json` in the
case's bare clone (what a CI job runs: the repository's evidence is read). Mode `diff`:
`needs-microversion diff BASE:API_REF NEW:API_REF --format json` in the same clone (the two
api-ref trees only, no version file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

MODES = ("check", "diff")
TOOL = Path(sys.executable).parent / "needs-microversion"


def tool_path() -> str:
    """The console script beside this interpreter (the project's venv), else on PATH."""
    return str(TOOL) if TOOL.exists() else "needs-microversion"


def argv_for(mode: str, case: dict) -> list[str]:
    if mode == "check":
        return [tool_path(), "check", "--from-ref", case["base"], "--to-ref", case["new"],
                "--format", "json", "--no-validate"]
    if case.get("class") in CODE_CLASSES:  # the change is in the code: diff its contracts
        return [tool_path(), "diff", f"code:{case['base']}", f"code:{case['new']}",
                "--format", "json", "--no-validate"]
    folder = case["api_ref"]
    return [tool_path(), "diff", f"{case['base']}:{folder}", f"{case['new']}:{folder}",
            "--format", "json", "--no-validate"]


# Classes whose change only the code shows: `diff` compares the two revisions' code
# contracts (`code:REV`), as a user comparing them by hand would.
CODE_CLASSES = frozenset({"code-only", "code-done-right"})


def run_mode(mode: str, case: dict, timeout: float) -> dict:
    """One run: exit code, seconds, and what the JSON report said."""
    start = time.perf_counter()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    try:
        proc = subprocess.run(argv_for(mode, case), cwd=case["clone"], capture_output=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"exit": None, "seconds": round(time.perf_counter() - start, 2),
                "reason": f"timeout after {timeout:.0f} s", "findings": [], "next": None}
    seconds = round(time.perf_counter() - start, 2)
    out = {"exit": proc.returncode, "seconds": seconds}
    try:
        data = json.loads(proc.stdout.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        out.update(reason=(err[-1] if err else "no JSON output")[:200], findings=[],
                   next=None)
        return out
    out.update(read_report(data))
    return out


def _reports(data: dict) -> list[dict]:
    """`check` wraps one report per document; `diff` of two trees prints one."""
    if "documents" in data:
        return [doc.get("report") or {} for doc in data["documents"]]
    return [data]


def read_report(data: dict) -> dict:
    """The findings that decide (required and not provided first), the advised next
    microversion, and a one-line reason."""
    findings: list[str] = []
    unprovided: list[str] = []
    next_version = None
    verdicts = []
    for report in _reports(data):
        verdicts.append(str(report.get("verdict")))
        books = report.get("bookkeeping") or {}
        next_version = next_version or books.get("next_version")
        for change in report.get("changes") or []:
            line = (f"{change.get('rule')}: {change.get('operation')} "
                    f"{change.get('message', '')}")[:160]
            provided = {None: "", True: " provided", False: " NOT provided"}.get(
                change.get("provided"), "")
            findings.append(f"[{change.get('verdict')}{provided}] {line}")
            if change.get("verdict") == "required" and change.get("provided") is False \
                    and not change.get("acknowledged"):
                unprovided.append(line)
    if unprovided:
        reason = unprovided[0]
    elif findings:
        reason = findings[0]
    else:
        reason = "no changes found"
    return {"reason": reason[:200], "findings": findings[:8], "next": next_version,
            "verdicts": verdicts}


def score_case(case: dict, timeout: float) -> dict:
    """Both modes run; `agree` per mode (exit code == truth)."""
    if case.get("skipped"):
        return case
    for mode in MODES:
        result = run_mode(mode, case, timeout)
        result["agree"] = result["exit"] == case["truth"]
        case[mode] = result
    return case


# ---------------------------------------------------------------------------------------
# Summary


def _pct(hits: int, total: int) -> str:
    return f"{100 * hits / total:.0f}% ({hits}/{total})" if total else "-"


def summary(cases: list[dict], classes: list[str], header: str) -> str:
    built = [c for c in cases if not c.get("skipped")]
    skipped = [c for c in cases if c.get("skipped")]
    lines = [f"# Known-truth benchmark: {header}", "",
             f"{len(built)} cases built, {len(skipped)} skipped.", "",
             "## Agreement per class (exit code == truth)", "",
             "| class | truth | cases | check | diff |", "|---|---|---|---|---|"]
    for cls in classes:
        group = [c for c in built if c["class"] == cls]
        truths = sorted({c["truth"] for c in group})
        row = [cls, "/".join(map(str, truths)) or "-", str(len(group))]
        for mode in MODES:
            row.append(_pct(sum(1 for c in group if c[mode]["agree"]), len(group)))
        lines.append("| " + " | ".join(row) + " |")
    row = ["**all**", "", str(len(built))]
    for mode in MODES:
        row.append(_pct(sum(1 for c in built if c[mode]["agree"]), len(built)))
    lines.append("| " + " | ".join(row) + " |")
    lines += ["", "## Per project", "",
              "| project | built | skipped | check agree | diff agree | check s (median) |",
              "|---|---|---|---|---|---|"]
    projects = sorted({c["project"] for c in cases})
    for name in projects:
        group = [c for c in built if c["project"] == name]
        times = sorted(c["check"]["seconds"] for c in group)
        median = f"{times[len(times) // 2]:.1f}" if times else "-"
        lines.append(f"| {name} | {len(group)} | "
                     f"{sum(1 for c in skipped if c['project'] == name)} | "
                     f"{_pct(sum(1 for c in group if c['check']['agree']), len(group))} | "
                     f"{_pct(sum(1 for c in group if c['diff']['agree']), len(group))} | "
                     f"{median} |")
    lines += ["", "## Disagreements", ""]
    for mode in MODES:
        bad = [c for c in built if not c[mode]["agree"]]
        lines += [f"### {mode} ({len(bad)})", ""]
        for c in bad:
            lines.append(f"- {c['project']} {c['class']} `{c['id']}` "
                         f"{c['base'][:10]}..{c['new'][:10]}: truth {c['truth']}, "
                         f"exit {c[mode]['exit']}: {c[mode]['reason']}")
        lines.append("")
    if skipped:
        reasons: dict[str, int] = defaultdict(int)
        for c in skipped:
            reasons[f"{c['project']} {c['class']}: {c['skip_reason'][:90]}"] += 1
        lines += ["## Skipped", ""]
        lines += [f"- {k} (x{n})" for k, n in sorted(reasons.items())]
        lines.append("")
    return "\n".join(lines)
