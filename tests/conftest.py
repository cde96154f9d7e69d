from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run the CLI in-process: (exit code, stdout, stderr)."""
    from needs_microversion.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def run_diff(request):  # type: ignore[no-untyped-def]
    """`diff` as the CLI runs it, its report rendered at the edge: (output, warnings, code)."""
    from needs_microversion.commands.diff import run_diff as diff
    from needs_microversion.report import render

    report = diff(request)
    return (render(report, request.fmt, explain=request.explain), list(report.warnings),
            report.exit_code)
