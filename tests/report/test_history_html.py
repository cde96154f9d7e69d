"""`history --format html`: one self-contained page. The static checks here; the page in a
real browser in test_history_browser.py."""

from __future__ import annotations

import re

from history_samples import row, sample_history

from needs_microversion.model.history import History, summarize
from needs_microversion.report.history import render_history
from needs_microversion.report.history_chart import chart


def test_the_page_loads_nothing() -> None:
    page = render_history(sample_history(), "html")
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")
    assert "Content-Security-Policy\" content=\"default-src 'none';" in page
    assert not re.search(r"\ssrc=|@import|url\(|<link(?![^>]*href=\"data:)", page)
    # Every address is a commit link; none is a resource.
    addresses = set(re.findall(r"https?://[^\"'<> ]+", page))
    assert addresses - {f"https://opendev.org/openstack/nova/commit/{r.commit}"
                        for r in sample_history().rows} == {"http://www.w3.org/2000/svg"}


def test_repository_text_is_escaped() -> None:
    page = render_history(sample_history(), "html")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "\x1b" not in page
    unsafe = row(1, "x", "2.1", "2.2", None)
    unsafe = type(unsafe)(**{**unsafe.__dict__, "link": "javascript:alert(1)"})
    page = render_history(History((unsafe,), summarize((unsafe,))), "html")
    assert "javascript:" not in page  # only http(s) becomes a link


def test_the_chart() -> None:
    history = sample_history()
    svg = chart(history.rows)
    path = re.search(r'<path class="maximum" d="([^"]+)"', svg)
    assert path and path.group(1).count("V") == 6  # a step for each of the 6 judged rows
    assert svg.count('<circle class="raised"') == 3 and svg.count('class="unprovided"') == 1
    assert [name for name in re.findall(r'rotate\(-45\)">([^<]+)<', svg)] == [
        "1.0.0", "2.0.0", "3.0.0"]
    assert chart(history.rows) == svg  # the same rows, the same bytes
    assert "no microversion to draw" in chart(())


def test_rows_filters_and_releases_are_on_the_page() -> None:
    page = render_history(sample_history(), "html")
    assert page.count('<tr data-verdict="') == 7
    assert page.count('data-disagree="yes"') == 2
    assert 'id="filter-text"' in page and '<option value="required">' in page
    assert "Where the verdict and the version file disagree" in page
    assert page.count('<span class="bar required"') == 4  # one per release, unreleased too
