"""Exit codes survive closed streams and readers that go away (issue 33): an input error is
exit 2 whatever is closed, a verdict keeps its code, nothing is a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ROOT = Path(__file__).resolve().parent.parent
# The console script as installed runs `launch.run`; so does `python -m needs_microversion`.
TOOL = f"{sys.executable} -m needs_microversion"
REDIRECTS = {"stdout-closed": ">&-", "stderr-closed": "2>&-", "both-closed": ">&- 2>&-",
             "stdin-closed": "<&-"}


def _shell(command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


@pytest.mark.parametrize("redirect", sorted(REDIRECTS))
@pytest.mark.parametrize("case,code", [
    (f"diff {EXAMPLES / 'missing.yaml'} {EXAMPLES / 'new.yaml'}", 2),  # input error
    (f"diff {EXAMPLES / 'old.yaml'} {EXAMPLES / 'new.yaml'}", 0),  # needed, provided
    (f"diff {EXAMPLES / 'new.yaml'} {EXAMPLES / 'old.yaml'} --format json", 1),  # not provided
    ("diff --no-such-option a b", 2),  # usage error, through the command line's parser
    ("rules attribute", 0),
], ids=["input-error", "provided", "required", "usage", "rules"])
def test_closed_streams_keep_the_exit_code(redirect: str, case: str, code: int) -> None:
    # The redirection closes the tool's stream only; the shell's echo still reaches us.
    done = _shell(f"{TOOL} {case} {REDIRECTS[redirect]}; echo code=$? >&2")
    assert f"code={code}" in done.stderr, (done.stdout, done.stderr)
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("case,code", [
    (f"diff {EXAMPLES / 'old.yaml'} {EXAMPLES / 'new.yaml'}", 0),
    (f"diff {EXAMPLES / 'new.yaml'} {EXAMPLES / 'old.yaml'} --format json", 1),
    ("rules", 0), ("--help", 0), ("diff --help", 0)])
def test_a_reader_that_goes_away_leaves_the_code(case: str, code: int) -> None:
    """`| head -c 1`: the pipe breaks while the report is written; the run ends quietly."""
    done = _shell(f"{{ {TOOL} {case}; echo code=$? >&2; }} | head -c 1 >/dev/null")
    assert f"code={code}" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "Broken pipe" not in done.stderr and "Exception ignored" not in done.stderr


@pytest.mark.parametrize("locale", ["C", "POSIX", "en_US.ISO-8859-1"])
def test_any_locale_prints_any_name(tmp_path: Path, locale: str) -> None:
    """A document named in characters the locale cannot spell, holding such text: the
    report is written with escapes where needed, never a crash."""
    import os

    name = tmp_path / "sérvér-\udcff.yaml".encode("utf-8", "surrogateescape").decode(
        "utf-8", "surrogateescape")
    text = (EXAMPLES / "new.yaml").read_text().replace("True when the server is locked.",
                                                       "Verrouillé ✓ 🔒")
    os.makedirs(tmp_path, exist_ok=True)
    with open(os.fsencode(str(name)), "w", encoding="utf-8") as handle:
        handle.write(text)
    env = {**os.environ, "LC_ALL": locale, "LANG": locale, "PYTHONIOENCODING": "",
           "PYTHONUTF8": "0"}
    for fmt in ("text", "json", "markdown"):
        done = subprocess.run([sys.executable, "-m", "needs_microversion", "diff",
                               str(EXAMPLES / "old.yaml"), os.fsencode(str(name)), "--format",
                               fmt, "--no-validate"], capture_output=True, env=env,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert b"Traceback" not in done.stderr


def test_an_interrupt_is_one_line(tmp_path: Path) -> None:
    import signal
    import time

    done = subprocess.Popen([sys.executable, "-c", "import time, sys\n"
                             "from needs_microversion import launch\n"
                             "launch.main = lambda ends: time.sleep(30)\nlaunch.run()"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    done.send_signal(signal.SIGINT)
    _, err = done.communicate(timeout=30)
    assert done.returncode == 130 and err == "needs-microversion: interrupted\n", err
