"""The GitHub Action's pull-request comment (action.yml): the markdown report in one comment
that carries a hidden marker, posted once and updated in place on later runs.

    NM_REPORT=report.md NM_EXIT_CODE=1 NM_TOKEN=... python action/comment.py

Kept outside the needs_microversion package, which never touches the network, and out of
what pip installs: only the action runs it, with the standard library alone. The runner
gives GITHUB_API_URL, GITHUB_REPOSITORY and GITHUB_EVENT_PATH (the event's payload, which
names the pull request); GITHUB_SERVER_URL and GITHUB_RUN_ID link the comment to the run.

A comment is a courtesy: whatever goes wrong (a token without `pull-requests: write`, as a
pull request from a fork gets; the API out of reach) is one warning and exit 0, so the job's
outcome stays the check's.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MARKER = "<!-- needs-microversion -->"
LIMIT = 65536  # characters: GitHub refuses a longer comment body
CUT = "\n\n(Cut short: the whole report is in the job summary.)"
TIMEOUT = 30  # seconds a request may take
PAGES = 100  # at most 100 pages of 100 comments: a Link header that never ends stops here
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class CommentError(Exception):
    """Why there is no comment: said in one warning."""


@dataclass(frozen=True)
class PullRequest:
    api: str  # https://api.github.com, or a GitHub Enterprise Server's https://HOST/api/v3
    repository: str  # OWNER/NAME
    number: int
    token: str

    @property
    def comments(self) -> str:
        return f"{self.api}/repos/{self.repository}/issues/{self.number}/comments"


def main(environ: Mapping[str, str] = os.environ) -> int:
    try:
        print(publish(environ))
    except CommentError as exc:
        print(f"::warning title=needs-microversion::{_escape(f'no pull-request comment: {exc}')}")
    return 0


def publish(environ: Mapping[str, str]) -> str:
    """Post the report, or update the comment posted before; what was done, in words."""
    pull = pull_request(environ)
    if pull is None:
        return "needs-microversion: not a pull request, no comment"
    try:
        report = Path(environ["NM_REPORT"]).read_text(encoding="utf-8")
    except (KeyError, OSError, UnicodeDecodeError) as exc:
        raise CommentError(f"no report to post ({exc})") from exc
    body = comment_body(report, run_url(environ))
    found = find_comment(pull)
    if found is not None:
        _call(pull, "PATCH", f"{pull.api}/repos/{pull.repository}/issues/comments/{found}",
              {"body": body})
        return f"needs-microversion: comment {found} updated"
    if environ.get("NM_EXIT_CODE") == "0":  # nothing to tell a pull request that passes
        return "needs-microversion: the check passes, no comment"
    posted, _ = _call(pull, "POST", pull.comments, {"body": body})
    where = posted.get("html_url", "") if isinstance(posted, dict) else ""
    return f"needs-microversion: commented, {where}"


def pull_request(environ: Mapping[str, str]) -> PullRequest | None:
    """The pull request the event is about (None: the event is not about one)."""
    try:
        payload = json.loads(Path(environ["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
    except (KeyError, OSError, ValueError) as exc:
        raise CommentError(f"no event payload to read ({exc})") from exc
    pull = payload.get("pull_request") if isinstance(payload, dict) else None
    number = pull.get("number") if isinstance(pull, dict) else None
    if not isinstance(number, int):
        return None
    token = environ.get("NM_TOKEN", "")
    repository = environ.get("GITHUB_REPOSITORY", "")
    if not token:
        raise CommentError("the github-token input is empty")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repository):
        raise CommentError(f"GITHUB_REPOSITORY is not OWNER/NAME: {repository!r}")
    api = (environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    return PullRequest(api, repository, number, token)


def find_comment(pull: PullRequest) -> int | None:
    """The id of the first comment that starts with the marker, page after page."""
    url: str | None = f"{pull.comments}?per_page=100"
    for _ in range(PAGES):
        if url is None:
            return None
        page, url = _call(pull, "GET", url)
        for comment in page if isinstance(page, list) else []:
            if (isinstance(comment, dict) and isinstance(comment.get("id"), int)
                    and str(comment.get("body") or "").startswith(MARKER)):
                return int(comment["id"])
    return None


def comment_body(report: str, run: str | None) -> str:
    footer = f"\n\n<sub>needs-microversion, [the run]({run})</sub>" if run else ""
    text = report.strip()
    room = LIMIT - len(MARKER) - len(footer) - len(CUT) - 1
    if len(text) > room:  # whole lines only: a table row cut in half would break the table
        text = text[:room].rsplit("\n", 1)[0] + CUT
    return f"{MARKER}\n{text}{footer}"


def run_url(environ: Mapping[str, str]) -> str | None:
    parts = [environ.get(name, "") for name in
             ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")]
    return f"{parts[0].rstrip('/')}/{parts[1]}/actions/runs/{parts[2]}" if all(parts) else None


def _call(pull: PullRequest, method: str, url: str, data: dict[str, str] | None = None
          ) -> tuple[Any, str | None]:
    """The API's JSON answer and the next page's address (Link: rel="next")."""
    if not _same_origin(url, pull.api):  # the token goes to the API and nowhere else
        raise CommentError(f"refused to follow {url} away from {pull.api}")
    request = urllib.request.Request(
        url, method=method, data=None if data is None else json.dumps(data).encode(),
        headers={"Accept": "application/vnd.github+json", "User-Agent": "needs-microversion",
                 "Authorization": f"Bearer {pull.token}", "X-GitHub-Api-Version": "2022-11-28",
                 "Content-Type": "application/json"})
    where = f"{method} {urllib.parse.urlsplit(url).path}"
    try:
        with _OPENER.open(request, timeout=TIMEOUT) as response:
            answer = json.loads(response.read() or b"null")
            found = _NEXT.search(response.headers.get("Link", ""))
    except urllib.error.HTTPError as exc:
        raise CommentError(f"{where}: HTTP {exc.code} {_message(exc)}{_hint(exc.code)}") from exc
    except (OSError, ValueError) as exc:  # unreachable, timed out, not JSON
        raise CommentError(f"{where}: {exc}") from exc
    return answer, found.group(1) if found else None


def _same_origin(url: str, api: str) -> bool:
    one, other = urllib.parse.urlsplit(url), urllib.parse.urlsplit(api)
    return (one.scheme, one.netloc) == (other.scheme, other.netloc)


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """A renamed repository answers with a redirect: followed on the API's host only, since
    urllib would send the Authorization header along to any host."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> urllib.request.Request | None:
        if not _same_origin(newurl, req.full_url):
            raise CommentError(f"refused a redirect to {newurl}")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


def _message(error: urllib.error.HTTPError) -> str:
    """GitHub's own words ({"message": ...}), else the status's."""
    try:
        message = json.loads(error.read(4096) or b"{}").get("message")
    except (OSError, ValueError, AttributeError):
        message = None
    return " ".join(str(message or error.reason).split())[:200]


def _hint(code: int) -> str:
    if code in (401, 403, 404):
        return (" (the workflow's token needs `permissions: pull-requests: write`; a pull "
                "request from a fork only gets a read-only one)")
    return ""


def _escape(text: str) -> str:
    """A workflow command's message: its own escapes, on one line."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


if __name__ == "__main__":
    sys.exit(main())
