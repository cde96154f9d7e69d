"""python -m benchmarks.known_truth: build known-truth changes on real revisions of the
eleven OpenStack repositories and score needs-microversion on them in both modes.

    python -m benchmarks.known_truth --seed 1 --per-class 3 --out /tmp/kt
    python -m benchmarks.known_truth --seed 1 --per-class 2 --projects nova,ironic \\
        --classes forgotten,done-right --out /tmp/kt
    python -m benchmarks.known_truth --rescore /tmp/kt      # the tool again, same commits

Writes OUT/cases.jsonl (one case a line) and OUT/summary.md (also printed). The mirrors in
/work/.mirror are only read: each project gets a bare `--shared` clone in OUT/repos/, and a
case's commit is kept alive there by the ref refs/known-truth/<case id>.
See docs/known-truth.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from benchmarks.known_truth import projects
from benchmarks.known_truth.build import BUILDERS, CLASSES, Built, Context, Skip, \
    candidate_revisions, unreleased
from benchmarks.known_truth.git import GitError, Repo
from benchmarks.known_truth.run import score_case, summary

MIRRORS = Path("/work/.mirror")
REVISIONS = 4  # revisions drawn per case before it is counted as skipped
UNRELEASED_SCAN = 400  # revisions looked at to find one with a merged, unreleased maximum


def mirror_of(name: str) -> Path:
    return MIRRORS / f"openstack+{name}" / "repo"


def clone_of(out: Path, name: str) -> Path:
    return out / "repos" / f"{name}.git"


def _pick_revision(repo: Repo, profile: projects.Profile, cls: str, revs: list[str],
                   rng: random.Random) -> str | None:
    if cls != "unreleased-next":
        return rng.choice(revs)
    for rev in rng.sample(revs, min(UNRELEASED_SCAN, len(revs))):
        if unreleased(repo, profile, rev):
            return rev
    return None


def build_case(out: Path, name: str, cls: str, index: int, seed: int) -> dict:
    """One case: revisions drawn until the class can be built on one (or skipped)."""
    profile = projects.PROFILES[name]
    repo = Repo(clone_of(out, name))
    case_id = f"{name}-{cls}-{index}"
    rng = random.Random(f"{seed}:{case_id}")
    case: dict = {"id": case_id, "project": name, "class": cls, "seed": seed,
                  "clone": str(repo.path), "api_ref": profile.api_ref}
    revs = candidate_revisions(repo, profile)
    reasons = []
    for _ in range(REVISIONS):
        rev = _pick_revision(repo, profile, cls, revs, rng)
        if rev is None:
            reasons.append("no revision with a merged, unreleased maximum")
            break
        old_max = projects.read_version(profile, repo, rev)
        if old_max is None:
            reasons.append(f"{rev[:10]}: no version file")
            continue
        ctx = Context(name, profile, repo, rev, old_max, rng)
        try:
            built = BUILDERS[cls](ctx)
        except Skip as exc:
            reasons.append(f"{rev[:10]}: {exc}")
            continue
        except (GitError, SyntaxError, KeyError, ValueError, IndexError, AttributeError,
                TypeError, AssertionError, StopIteration) as exc:
            # a generator bug on this revision: counted, never hidden
            reasons.append(f"{rev[:10]}: generator error {type(exc).__name__}: {exc}")
            continue
        return _commit(case, repo, rev, old_max, built)
    case.update(skipped=True, skip_reason="; ".join(reasons[-2:]) or "no revision")
    return case


def _commit(case: dict, repo: Repo, rev: str, old_max: projects.Version,
            built: Built) -> dict:
    message = (built.message or built.description)[:72] + "\n\n" + built.description + \
        f"\n\nKnown-truth case {case['id']} (truth: exit {built.truth})."
    if built.base_changes:  # the case's base: the real revision, edited first
        rev = repo.commit(rev, built.base_changes, f"Known-truth base of {case['id']}")
    new = repo.commit(rev, built.changes, message)
    repo.set_ref(f"refs/known-truth/{case['id']}", new)
    stamp, subject = repo.commit_info(rev)
    case.update(base=rev, new=new, base_subject=subject, base_date=stamp, truth=built.truth,
                description=built.description, files=sorted(built.changes),
                old_max=projects.vstr(old_max),
                new_max=projects.vstr(built.new_max) if built.new_max else None,
                detail=built.detail)
    return case


def build_and_score(out: Path, name: str, cls: str, index: int, seed: int,
                    timeout: float) -> dict:
    return score_case(build_case(out, name, cls, index, seed), timeout)


def _run_pool(tasks: list, workers: int, fn, total_label: str) -> list[dict]:
    results = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(fn, *task) for task in tasks]
        for n, future in enumerate(as_completed(futures), 1):
            case = future.result()
            results.append(case)
            state = "skipped" if case.get("skipped") else \
                f"check {case['check']['exit']} diff {case['diff']['exit']} " \
                f"truth {case['truth']}"
            print(f"[{n}/{len(tasks)} {time.perf_counter() - start:5.0f}s] "
                  f"{case['id']}: {state}", file=sys.stderr, flush=True)
    order = {task_id(t): i for i, t in enumerate(tasks)}
    return sorted(results, key=lambda c: order.get(c["id"], 0))


def task_id(task: tuple) -> str:
    if isinstance(task[0], dict):
        return task[0]["id"]
    return f"{task[1]}-{task[2]}-{task[3]}"


def write_outputs(out: Path, cases: list[dict], classes: list[str], header: str) -> None:
    with open(out / "cases.jsonl", "w") as handle:
        for case in cases:
            handle.write(json.dumps(case, sort_keys=True) + "\n")
    text = summary(cases, classes, header)
    (out / "summary.md").write_text(text + "\n")
    print(text)


def build_all(args: argparse.Namespace) -> None:
    out = Path(args.out)
    names = args.projects.split(",") if args.projects else projects.ORDER
    classes = args.classes.split(",") if args.classes else CLASSES
    for name in names:
        if name not in projects.PROFILES:
            sys.exit(f"unknown project {name}")
        Repo.clone_shared(mirror_of(name), clone_of(out, name))
    tasks = [(out, name, cls, k, args.seed, args.timeout)
             for name in names for cls in classes for k in range(args.per_class)]
    cases = _run_pool(tasks, args.workers, build_and_score, "cases")
    write_outputs(out, cases, classes,
                  f"seed {args.seed}, {args.per_class} per class, {', '.join(names)}")


def rescore(args: argparse.Namespace) -> None:
    out = Path(args.rescore)
    cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()
             if line.strip()]
    tasks = [(case, args.timeout) for case in cases]
    scored = _run_pool(tasks, args.workers, score_case, "rescore")
    classes = [c for c in CLASSES if any(case["class"] == c for case in cases)]
    write_outputs(out, scored, classes, f"rescored {time.strftime('%Y-%m-%d %H:%M')}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.known_truth",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-class", type=int, default=2)
    parser.add_argument("--projects", help="comma-separated (default: all eleven)")
    parser.add_argument("--classes", help=f"comma-separated of {', '.join(CLASSES)}")
    parser.add_argument("--out", help="output folder (clones, cases.jsonl, summary.md)")
    parser.add_argument("--rescore", metavar="DIR",
                        help="run the tool again on the cases DIR/cases.jsonl holds")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per tool run")
    args = parser.parse_args(argv)
    if args.rescore:
        rescore(args)
    elif args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        build_all(args)
    else:
        parser.error("--out DIR or --rescore DIR")


if __name__ == "__main__":
    main()
