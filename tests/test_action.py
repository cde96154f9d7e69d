"""The GitHub Action (action.yml): its steps run as the runner runs them, on a pull request;
its comment goes to a fake GitHub API on 127.0.0.1 (action/comment.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml
from conftest import ROOT, package_index_reachable
from gitrepo import LOCKED, api, commit, git, make_repo, quiet_git
from test_packaging import pyproject

__all__ = ["quiet_git"]  # the autouse fixture: git without the user's settings

ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "action" / "comment.py"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
CONTEXT = re.compile(r"\b(?:inputs|github|runner|steps)\.[\w.-]+")
MARKER = "<!-- needs-microversion -->"
REPOSITORY, NUMBER, TOKEN = "example/compute", 7, "token-of-the-job"
COMMENTS = f"/repos/{REPOSITORY}/issues/{NUMBER}/comments"
CONFIG = "services:\n  - name: compute\n    documents: [api/openapi.yaml]\n"
VERDICT = "## Yes, you need a microversion"


def action() -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load(ACTION.read_text())
    return spec


def test_a_composite_action_whose_scripts_never_paste_an_input() -> None:
    """A branch named `$(curl ...)` must stay a name: expressions only in `env` (and `if`)."""
    spec = action()
    assert spec["runs"]["using"] == "composite"
    assert set(spec["inputs"]) == {"base", "args", "python", "comment", "github-token"}
    for step in spec["runs"]["steps"]:
        assert step["shell"] == "bash" and not EXPRESSION.search(step["run"]), step["name"]


def test_the_summary_and_the_comment_cannot_fail_the_job() -> None:
    """After the check they run whatever it found, and their own failure is not the job's."""
    steps = {step["id"]: step for step in action()["runs"]["steps"]}
    for name in ("summary", "comment"):
        assert steps[name]["continue-on-error"] is True
        assert steps[name]["if"].startswith("${{ !cancelled() && ")


# -- the runner --------------------------------------------------------------------------------

@dataclass
class Run:
    """What the runner saw: each step's process (skipped steps absent), their outputs, and
    whether the action failed the job."""

    steps: dict[str, subprocess.CompletedProcess[str]]
    outputs: dict[str, dict[str, str]]
    failed: bool

    @property
    def code(self) -> int:
        return self.steps["check"].returncode


def _run_steps(workspace: Path, runner_temp: Path, inputs: dict[str, str],
               github: dict[str, str], runner_env: dict[str, str], *,
               bin_folder: Path | None = None) -> Run:
    """Each step's script with its `env` and `if` evaluated as the runner would. With
    `bin_folder`, the install step is taken as done, into that folder (no pip)."""
    spec = action()
    outputs: dict[str, dict[str, str]] = {}
    context = {"github.action_path": str(ROOT), "runner.temp": str(runner_temp)} | {
        f"github.{name}": value for name, value in github.items()}
    for name, declared in spec["inputs"].items():
        default = EXPRESSION.sub(lambda m: context[m.group(1)], str(declared["default"]))
        context[f"inputs.{name}"] = inputs.get(name, default)
    steps: dict[str, subprocess.CompletedProcess[str]] = {}
    failed = False
    for step in spec["runs"]["steps"]:
        if step["id"] == "install" and bin_folder is not None:
            outputs["install"] = {"bin": str(bin_folder)}
            continue
        if not _condition(step.get("if", "success()"), context, outputs, failed):
            continue
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("VIRTUAL_ENV", "PIP_", "GITHUB_"))}
        env |= runner_env | {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
        for name, value in step.get("env", {}).items():
            env[name] = EXPRESSION.sub(lambda m: _evaluate(m.group(1), context, outputs),
                                       str(value))
        output_file = runner_temp / f"{step['id']}.out"
        output_file.write_text("")
        env["GITHUB_OUTPUT"] = str(output_file)
        done = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=workspace, env=env,
                              capture_output=True, text=True, timeout=600, check=False)
        steps[step["id"]] = done
        outputs[step["id"]] = dict(line.split("=", 1) for line in
                                   output_file.read_text().splitlines() if "=" in line)
        if step["id"] == "install" and done.returncode:
            pytest.skip(f"pip could not install the action: {done.stderr[-300:]}")
        failed = failed or (done.returncode != 0 and not step.get("continue-on-error"))
    return Run(steps, outputs, failed)


def _evaluate(expression: str, context: dict[str, str], outputs: dict[str, dict[str, str]]
              ) -> str:
    match = re.fullmatch(r"steps\.(\w+)\.outputs\.([\w-]+)", expression)
    if match:  # a step that did not run has no outputs: ''
        return outputs.get(match.group(1), {}).get(match.group(2), "")
    return context[expression]


def _condition(text: str, context: dict[str, str], outputs: dict[str, dict[str, str]],
               failed: bool) -> bool:
    """A step's `if`, in the part of the expression language the action writes: status
    functions, `!`, `&&`, `||`, `==`, `!=`, quoted strings and context values."""
    inner = EXPRESSION.fullmatch(text.strip())
    python = (inner.group(1) if inner else text).replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    python = CONTEXT.sub(lambda m: repr(_evaluate(m.group(0), context, outputs)), python)
    functions = {"success": lambda: not failed, "failure": lambda: failed,
                 "always": lambda: True, "cancelled": lambda: False}
    return bool(eval(python, {"__builtins__": {}}, functions))  # noqa: S307 - our own text


# -- a fake GitHub API -------------------------------------------------------------------------

@dataclass
class FakeGitHub:
    """The issue-comments API of one pull request: pages of `page_size` comments (fewer
    than the 100 asked for, as a server may give) with Link headers; `refuse` answers
    every request with that status."""

    url: str = ""
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    page_size: int = 2
    refuse: int | None = None
    link_base: str | None = None  # where Link points (default: this server)

    def add(self, body: str, login: str = "a-reviewer") -> dict[str, Any]:
        comment = {"id": 1000 + len(self.comments), "body": body, "user": {"login": login},
                   "html_url": f"https://github.example/{REPOSITORY}/pull/{NUMBER}"}
        self.comments.append(comment)
        return comment

    def ours(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["body"].startswith(MARKER)]

    def answer(self, handler: BaseHTTPRequestHandler) -> None:
        where = urlsplit(handler.path)
        self.requests.append((handler.command, handler.path))
        if self.refuse:
            return _send(handler, self.refuse, {"message": "Resource not accessible by "
                                                "integration"})
        if handler.headers["Authorization"] != f"Bearer {TOKEN}":
            return _send(handler, 401, {"message": "Bad credentials"})
        size = int(handler.headers.get("Content-Length") or 0)
        data: dict[str, Any] = json.loads(handler.rfile.read(size)) if size else {}
        patched = re.fullmatch(rf"/repos/{REPOSITORY}/issues/comments/(\d+)", where.path)
        if handler.command == "GET" and where.path == COMMENTS:
            query = parse_qs(where.query)
            assert query["per_page"] == ["100"]
            page = int(query.get("page", ["1"])[0])
            end = page * self.page_size
            link = (f'<{self.link_base or self.url}{COMMENTS}?per_page=100&page={page + 1}>; '
                    f'rel="next"') if end < len(self.comments) else None
            return _send(handler, 200, self.comments[end - self.page_size:end], link)
        if handler.command == "POST" and where.path == COMMENTS:
            return _send(handler, 201, self.add(data["body"], "github-actions[bot]"))
        if handler.command == "PATCH" and patched:
            [comment] = [c for c in self.comments if c["id"] == int(patched.group(1))]
            comment["body"] = data["body"]
            return _send(handler, 200, comment)
        return _send(handler, 404, {"message": "Not Found"})


def _send(handler: BaseHTTPRequestHandler, status: int, answer: object,
          link: str | None = None) -> None:
    body = json.dumps(answer).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    if link:
        handler.send_header("Link", link)
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def github_api() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's names
            fake.answer(self)

        do_POST = do_PATCH = do_GET

        def log_message(self, *args: Any) -> None:  # quiet: pytest shows what failed
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    # A short poll: shutting the server down waits for one.
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


def _runner_env(tmp_path: Path, api_url: str, payload: object | None = None) -> dict[str, str]:
    """The runner's variables: a pull request's event, a job summary file, the API."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": NUMBER}, "number": NUMBER}
                                if payload is None else payload))
    return {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "42"}


# -- the action, installed as a user's workflow installs it --------------------------------------

def _pull_request(tmp_path: Path, *, needs_microversion: bool = True) -> Path:
    """A checkout of `feature` (one commit above `origin/main`), as actions/checkout leaves
    it: the commit adds an attribute without a microversion, or only touches the code."""
    upstream = make_repo(tmp_path / "upstream", {"api/openapi.yaml": api(),
                                                 "app/servers.py": "# code\n",
                                                 ".needs-microversion.yaml": CONFIG})
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(upstream), str(workspace))
    git(workspace, "checkout", "-q", "-b", "feature")
    change: dict[str, str | None] = {"api/openapi.yaml": api(extra=LOCKED)} \
        if needs_microversion else {}
    commit(workspace, change | {"app/servers.py": "# code, returning 'locked'\n"}, "Add locked")
    return workspace


def _temp(tmp_path: Path) -> Path:
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    return temp


PULL = {"base_ref": "main", "event_name": "pull_request", "token": TOKEN}
HERE = Path(sys.executable).parent  # this environment's bin: the tool is installed there


def test_the_action_annotates_a_pull_request(tmp_path: Path, github_api: FakeGitHub) -> None:
    """Installed from its own folder into the runner's temp, run in a checkout whose
    `origin/main` is the base branch: the attribute added without a microversion is an
    error annotation on its line, the exit code fails the job, the report is the job's
    summary and the pull request's comment."""
    if not package_index_reachable():
        pytest.skip("the action pip-installs the project from the package index, unreachable")
    workspace = _pull_request(tmp_path)
    run = _run_steps(workspace, _temp(tmp_path), {"args": "--no-validate", "python": sys.executable,
                                                  "comment": "true"},
                     PULL, _runner_env(tmp_path, github_api.url))
    out = run.steps["check"].stdout
    assert run.code == 1 and run.failed and run.outputs["check"]["exit-code"] == "1", out
    line = api(extra=LOCKED).splitlines().index(LOCKED.rstrip("\n")) + 1
    assert f"::error file=api/openapi.yaml,line={line},title=attribute-added" in out
    assert out.rstrip().splitlines()[-1].startswith(
        "::notice title=needs-microversion::Yes, you need a microversion")
    summary = (tmp_path / "summary.md").read_text()
    assert VERDICT in summary and "| `attribute-added` |" in summary
    [comment] = github_api.comments
    assert comment["body"].startswith(f"{MARKER}\n## compute: ") and VERDICT in comment["body"]


# -- the steps after the install, with the tool of this environment (no package index) ---------

def test_the_comment_is_posted_then_updated_in_place(tmp_path: Path,
                                                     github_api: FakeGitHub) -> None:
    """The first run posts one comment with the marker; once the change is fixed, the next
    run finds it (past a page of others' comments) and says, in place, that it passes."""
    github_api.add("Looks fine to me.")
    github_api.add("One question.")
    workspace = _pull_request(tmp_path)
    inputs = {"args": "--no-validate", "comment": "true"}
    env = _runner_env(tmp_path, github_api.url)
    run = _run_steps(workspace, _temp(tmp_path), inputs, PULL, env, bin_folder=HERE)
    assert (run.code, run.failed, run.outputs["check"]["exit-code"]) == (1, True, "1")
    assert "::error file=api/openapi.yaml," in run.steps["check"].stdout
    assert run.steps["comment"].returncode == 0, run.steps["comment"].stdout
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## compute: ") and VERDICT in summary
    assert "| `attribute-added` | GET /servers/{server\\_id} |" in summary
    [posted] = github_api.ours()
    assert posted["body"] == f"{MARKER}\n{summary.strip()}\n\n<sub>needs-microversion, [the run]" \
        f"(https://github.example/{REPOSITORY}/actions/runs/42)</sub>"
    github_api.add("Please fix.")
    github_api.add("Fixed.")
    commit(workspace, {"api/openapi.yaml": api()}, "Without locked, for now")
    github_api.requests.clear()
    run = _run_steps(workspace, _temp(tmp_path), inputs, PULL, env, bin_folder=HERE)
    assert (run.code, run.failed, run.outputs["check"]["exit-code"]) == (0, False, "0")
    assert [c["id"] for c in github_api.ours()] == [posted["id"]] and len(github_api.comments) == 5
    assert "## No microversion needed" in posted["body"] and VERDICT not in posted["body"]
    assert [method for method, _ in github_api.requests] == ["GET", "GET", "PATCH"]


@pytest.mark.parametrize("needs_microversion", [False, True], ids=["passes", "fails"])
def test_a_refused_comment_leaves_the_outcome_to_the_check(
        tmp_path: Path, github_api: FakeGitHub, needs_microversion: bool) -> None:
    """A token without `pull-requests: write` (403): a warning; the exit code and the job's
    outcome are the check's."""
    github_api.refuse = 403
    github_api.add(f"{MARKER}\nan old report")
    workspace = _pull_request(tmp_path, needs_microversion=needs_microversion)
    run = _run_steps(workspace, _temp(tmp_path), {"args": "--no-validate", "comment": "true"},
                     PULL, _runner_env(tmp_path, github_api.url), bin_folder=HERE)
    code = int(needs_microversion)
    assert (run.code, run.failed, run.outputs["check"]["exit-code"]) == (code, bool(code),
                                                                         str(code))
    comment = run.steps["comment"]
    assert comment.returncode == 0
    assert comment.stdout.startswith("::warning title=needs-microversion::no pull-request "
                                     f"comment: GET {COMMENTS}: HTTP 403 Resource "
                                     "not accessible by integration (the workflow's token needs "
                                     "`permissions: pull-requests: write`")
    assert github_api.comments[0]["body"] == f"{MARKER}\nan old report"
    assert (tmp_path / "summary.md").read_text().startswith("## compute: ")


def test_bad_input_still_gets_a_short_summary(tmp_path: Path) -> None:
    """Exit 2: no report, a line that says the check could not run and the tool's error,
    HTML-escaped; no comment unless asked for."""
    workspace = _pull_request(tmp_path)
    run = _run_steps(workspace, _temp(tmp_path), {"base": "<b>nowhere</b>"}, PULL,
                     _runner_env(tmp_path, "http://127.0.0.1:9"), bin_folder=HERE)
    assert (run.code, run.failed, run.outputs["check"]["exit-code"]) == (2, True, "2")
    assert "comment" not in run.steps
    summary = (tmp_path / "summary.md").read_text()
    assert summary == ("## needs-microversion could not check this change (exit 2)\n\n<pre>\n"
                       f"error: --base &lt;b&gt;nowhere&lt;/b&gt;: unknown revision in {workspace}"
                       "\n</pre>\n")


def test_a_failed_report_run_leaves_the_checks_exit_code(tmp_path: Path) -> None:
    """The markdown run failing where the check did not (a bug, exit 3): the summary says
    so, and the exit code is still the check's."""
    stub = tmp_path / "bin"
    stub.mkdir()
    tool = stub / "needs-microversion"
    tool.write_text('#!/usr/bin/env bash\ncase " $* " in *" --format markdown "*)\n'
                    '  echo "needs-microversion: internal error: KeyError: \'<x>\'" >&2; exit 3;;\n'
                    'esac\necho "::error::found"; exit 1\n')
    tool.chmod(0o755)
    run = _run_steps(tmp_path, _temp(tmp_path), {}, PULL,
                     _runner_env(tmp_path, "http://127.0.0.1:9"), bin_folder=stub)
    assert (run.code, run.failed, run.outputs["check"]["exit-code"]) == (1, True, "1")
    assert (tmp_path / "summary.md").read_text() == (
        "## needs-microversion: exit 1, but no report (its run: exit 3)\n\n<pre>\n"
        "internal error: KeyError: '&lt;x&gt;'\n</pre>\n")


def test_no_summary_file_outside_github(tmp_path: Path) -> None:
    """A runner without job summaries (GITHUB_STEP_SUMMARY unset): the check as before."""
    workspace = _pull_request(tmp_path)
    env = _runner_env(tmp_path, "http://127.0.0.1:9")
    del env["GITHUB_STEP_SUMMARY"]
    run = _run_steps(workspace, _temp(tmp_path), {"args": "--no-validate"}, PULL, env,
                     bin_folder=HERE)
    assert (run.code, run.steps["summary"].returncode) == (1, 0)
    assert run.steps["summary"].stdout == "" and not (tmp_path / "summary.md").exists()


# -- the comment script alone ------------------------------------------------------------------

def _comment(tmp_path: Path, api_url: str, exit_code: str, *, report: str = f"{VERDICT}\n",
             payload: object | None = None) -> subprocess.CompletedProcess[str]:
    """action/comment.py as the comment step runs it (its Python: this one)."""
    (tmp_path / "report.md").write_text(report)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env |= _runner_env(tmp_path, api_url, payload) | {
        "NM_REPORT": str(tmp_path / "report.md"), "NM_EXIT_CODE": exit_code, "NM_TOKEN": TOKEN,
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    return subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_comment_is_found_on_a_later_page(tmp_path: Path, github_api: FakeGitHub) -> None:
    """Pages are followed (Link: rel="next") until the marked comment: that one is updated,
    no page after it is read, no comment added."""
    for number in range(5):
        github_api.add(f"comment {number}, quoting {MARKER} in passing")
    ours = github_api.add(f"{MARKER}\nthe last run's report")
    github_api.add("after it")
    github_api.add("and after that")
    done = _comment(tmp_path, github_api.url, "1")
    assert done.returncode == 0 and done.stdout == f"needs-microversion: comment {ours['id']} " \
        "updated\n", done.stdout + done.stderr
    assert ours["body"].startswith(f"{MARKER}\n{VERDICT}") and len(github_api.comments) == 8
    assert github_api.requests == [
        ("GET", f"{COMMENTS}?per_page=100"), ("GET", f"{COMMENTS}?per_page=100&page=2"),
        ("GET", f"{COMMENTS}?per_page=100&page=3"),
        ("PATCH", f"/repos/{REPOSITORY}/issues/comments/{ours['id']}")]


@pytest.mark.parametrize(("exit_code", "posted"), [("0", False), ("1", True), ("2", True)],
                         ids=["passes-no-comment", "needs-one-posted", "bad-input-posted"])
def test_a_new_comment_only_when_there_is_something_to_say(
        tmp_path: Path, github_api: FakeGitHub, exit_code: str, posted: bool) -> None:
    github_api.add("A reviewer's comment.")
    done = _comment(tmp_path, github_api.url, exit_code)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(github_api.ours()) == int(posted)
    assert ("POST", COMMENTS) in github_api.requests if posted else \
        [method for method, _ in github_api.requests] == ["GET"]


def test_no_comment_outside_a_pull_request(tmp_path: Path, github_api: FakeGitHub) -> None:
    done = _comment(tmp_path, github_api.url, "1", payload={"ref": "refs/heads/main"})
    assert (done.returncode, done.stdout) == (0, "needs-microversion: not a pull request, "
                                                 "no comment\n")
    assert github_api.requests == []


@pytest.mark.parametrize("status", [403, 500])
def test_an_api_failure_is_a_warning(tmp_path: Path, github_api: FakeGitHub,
                                     status: int) -> None:
    github_api.refuse = status
    done = _comment(tmp_path, github_api.url, "1")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith(f"::warning title=needs-microversion::no pull-request "
                                  f"comment: GET {COMMENTS}: HTTP {status} Resource not")
    assert ("pull-requests: write" in done.stdout) is (status == 403)


def test_an_unreachable_api_is_a_warning(tmp_path: Path) -> None:
    done = _comment(tmp_path, "http://127.0.0.1:9", "1")  # the discard port: nobody there
    assert done.returncode == 0 and done.stdout.startswith("::warning title=needs-microversion::")


def test_the_token_goes_nowhere_but_the_api(tmp_path: Path, github_api: FakeGitHub) -> None:
    """A next page on another host is not followed (the token would go with it)."""
    github_api.link_base = github_api.url.replace("127.0.0.1", "localhost")
    for number in range(3):
        github_api.add(f"comment {number}")
    done = _comment(tmp_path, github_api.url, "1")
    assert done.returncode == 0 and "::warning" in done.stdout and "refused" in done.stdout
    assert len(github_api.requests) == 1 and not github_api.ours()


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("action_comment", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_long_report_is_cut_at_a_line_to_fit_a_comment() -> None:
    script = _script()
    row = "| `attribute-added` | GET /servers | a response attribute added | required |\n"
    body = script.comment_body(f"{VERDICT}\n\n" + row * 2000, "https://github.example/run")
    assert len(body) <= script.LIMIT == 65536
    assert body.startswith(f"{MARKER}\n{VERDICT}\n")
    text = body.split("\n\n(Cut short")[0]
    assert text.endswith("| required |") and "(Cut short: the whole report is in the job " \
        "summary.)" in body and body.endswith("[the run](https://github.example/run)</sub>")


def test_the_script_stays_out_of_what_pip_installs() -> None:
    """The wheel holds the package alone (tests/test_packaging.py checks its files): the
    script, the one that talks to the network, is not in it."""
    find = pyproject()["tool"]["setuptools"]["packages"]["find"]
    assert find == {"include": ["needs_microversion*"]}
    assert not (ROOT / "action" / "__init__.py").exists()
