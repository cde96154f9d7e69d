from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

# Every document is validated, as on a first run: no test reads or writes the user's cache of
# validation problems (tests of that cache give it a folder of their own).
os.environ["NEEDS_MICROVERSION_CACHE"] = ""


def package_index_reachable() -> bool:
    """Whether pip can install from the package index (pre-commit and the GitHub Action
    install the project as a user's machine does)."""
    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy")):
        return True
    index = urlparse(os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple"))
    try:
        socket.create_connection((index.hostname or "pypi.org", index.port or 443),
                                 timeout=5).close()
    except OSError:
        return False
    return True


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    from needs_microversion.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def run_diff(request, fmt="text", explain=False):  # type: ignore[no-untyped-def]
    """`diff` as the CLI runs it, its report rendered at the edge: (output, warnings, code)."""
    from needs_microversion.commands.diff import run_diff as diff
    from needs_microversion.report import render

    report = diff(request)
    return (render(report, fmt, explain=explain), list(report.warnings), report.exit_code)
