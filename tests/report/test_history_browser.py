"""`history --format html` in a real browser: the page a real repository gives loads with no
error and fetches nothing, draws its chart, lists its commits, and its filters hide rows.

Chromium from Debian's packages (`apt-get install chromium`; .ci/run installs it where it
can), driven headless over its DevTools pipe (headless_chromium.py). Without a browser the
test skips and says so. The screenshot stays in pytest's temporary folder, and is copied to
tests/artifacts/history.png when NEEDS_MICROVERSION_ARTIFACTS is set (CI keeps it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from headless_chromium import Chromium, find
from repositories import NOVA_PARAMETERS, NOVA_SERVERS, Project, git, nova_like

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
ROWS = "#commits tbody tr"
VISIBLE = f"Array.from(document.querySelectorAll('{ROWS}')).filter(r => !r.hidden).length"


def _param(name: str, since: str | None) -> str:
    bound = f"  min_version: {since}\n" if since else ""
    return f"{name}:\n  description: {name}.\n  in: body\n  required: true\n  type: boolean\n" \
        + bound


def _release(repo: Project, name: str) -> None:
    git(repo.top, "tag", "-a", "-m", f"nova {name}", name)


def _on(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    """Commits and tags from now on are dated `day` (the chart's x axis)."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, f"{day}T12:00:00+00:00")


def nova_over_two_releases(top: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """Two releases and a tail over a year: microversions 2.2 and 2.3 with their changes,
    an attribute added with no microversion, a title rewritten, then 2.4 raised with nothing
    documented."""
    _on(monkeypatch, "2023-01-10")
    repo = nova_like(top)
    git(repo.top, "remote", "add", "origin", "https://opendev.org/openstack/nova")
    params, listed = NOVA_PARAMETERS, "  - status: status\n"
    for day, name, since, subject in (
            ("2023-02-01", "locked", "2.2", "Microversion 2.2: locked"),
            ("2023-05-15", "pinned", None, "pinned, with no microversion"),
            ("2023-07-20", "tags", "2.3", "Microversion 2.3: tags")):
        _on(monkeypatch, day)
        params += _param(name, since)
        listed += f"  - {name}: {name}\n"
        repo.commit({"api-ref/source/parameters.yaml": params,
                     "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                         "  - status: status\n", listed),
                     "nova/api/openstack/compute/servers.py": f"# {name}\n"},
                    subject, max_version=since, history=since)
        if since == "2.2":
            _on(monkeypatch, "2023-03-22")
            _release(repo, "2.0.0")
    _on(monkeypatch, "2023-08-30")
    repo.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace(
        "  - status: status\n", listed).replace("Show Server\n===========",
                                                 "Show Server Details\n===================")},
                "api-ref: a better title")
    _on(monkeypatch, "2023-10-04")
    _release(repo, "3.0.0")
    _on(monkeypatch, "2024-01-12")
    repo.commit({"doc/api_samples/servers/server-get-resp.json": '{"name": "b"}\n',
                 "nova/api/openstack/compute/servers.py": "# 2.4\n"},
                "Microversion 2.4 with nothing documented", max_version="2.4")
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.delenv(name)
    return repo


@pytest.fixture
def browser(tmp_path: Path):  # type: ignore[no-untyped-def]
    program = find()
    if program is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set "
                    "NEEDS_MICROVERSION_CHROMIUM): the html page is not tried in a browser")
    if shutil.which("sh") is None:
        pytest.skip("no POSIX shell to hand Chromium its DevTools pipe")
    with Chromium.launch(program, tmp_path / "chromium") as running:
        yield running


def test_the_history_page_in_a_browser(tmp_path: Path, monkeypatch, run_cli,
                                       browser: Chromium) -> None:
    repo = nova_over_two_releases(tmp_path / "nova", monkeypatch)
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("history", "--format", "html")
    assert code == 0, err
    page_file = tmp_path / "history.html"
    page_file.write_text(out, encoding="utf-8")

    page = browser.open(page_file.as_uri())
    assert page.problems() == []  # no console error, no exception, nothing requested
    assert page.evaluate("document.title") == "Microversion history"
    assert page.evaluate("document.querySelector('svg.chart').getBoundingClientRect().width"
                         ) > 600
    steps = page.evaluate("document.querySelector('svg.chart path.maximum')"
                          ".getTotalLength()")
    assert steps > 100  # the line is drawn, not just present
    assert page.evaluate("document.querySelectorAll('svg.chart circle').length") == 4
    assert page.evaluate("document.querySelectorAll('svg.chart .release').length") == 2
    assert page.evaluate(f"document.querySelectorAll('{ROWS}').length") == 5
    assert page.evaluate(VISIBLE) == 5

    page.evaluate("(b => { b.value = 'pinned'; b.dispatchEvent(new Event('input')); })"
                  "(document.getElementById('filter-text'))")
    assert page.evaluate(VISIBLE) == 1
    assert page.evaluate("document.getElementById('shown').textContent") == \
        "1 of 5 commits shown"
    page.evaluate("(b => { b.value = ''; b.dispatchEvent(new Event('input')); })"
                  "(document.getElementById('filter-text'))")
    # 2.4 raised with nothing documented is required too (maximum-raised); the pinned
    # attribute is the one disagreement with the version file.
    for verdict, shown in (("required", 4), ("not-required", 1), ("disagree", 1), ("", 5)):
        page.evaluate(f"(s => {{ s.value = '{verdict}'; s.dispatchEvent(new Event('change')); "
                      f"}})(document.getElementById('filter-verdict'))")
        assert page.evaluate(VISIBLE) == shown, verdict
    assert page.problems() == []

    shot = page.screenshot(tmp_path / "history.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    if os.environ.get("NEEDS_MICROVERSION_ARTIFACTS"):
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copyfile(shot, ARTIFACTS / "history.png")
