"""The cache can never destroy a file it did not write, follow a link, hang on a FIFO or be
taken over by a folder someone else uses (issue 33); anything odd is a miss."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from needs_microversion.cache_folder import ENV, TAG_NAME, CacheFolder

DIGEST = "ab" * 32
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _strangers(folder: Path, count: int = 600) -> dict[Path, bytes]:
    """Files of someone else's, named the way this tool names its entries."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for index in range(count):
        path = folder / f"{index:064x}.json"
        path.write_bytes(f"{{\"theirs\": {index}}}".encode())
        files[path] = path.read_bytes()
    return files


def _untouched(files: dict[Path, bytes]) -> None:
    assert all(path.is_file() and path.read_bytes() == data for path, data in files.items())


def _fill(store: CacheFolder, count: int) -> None:
    for index in range(count):
        store.write(store.name(f"{index:064x}"), b"{}")
        store.prune(keep=8)


def test_a_folder_of_ours_keeps_and_prunes_its_own(tmp_path: Path) -> None:
    store = CacheFolder(tmp_path / "kind", ".json")
    assert store.read(store.name(DIGEST), 100) is None
    assert store.write(store.name(DIGEST), b"{}") and store.read(store.name(DIGEST), 100) == b"{}"
    assert (tmp_path / "kind" / TAG_NAME).read_bytes().startswith(b"Signature: 8a477f59")
    mine = tmp_path / "kind" / "notes.txt"  # a file of the user's, put in the folder
    mine.write_text("keep me")
    _fill(store, 20)
    assert len(list((tmp_path / "kind").glob("*.json"))) <= 8 and mine.read_text() == "keep me"


def test_a_linked_folder_is_never_used(tmp_path: Path) -> None:
    elsewhere = tmp_path / "someone-else"
    files = _strangers(elsewhere)
    (elsewhere / TAG_NAME).write_bytes(b"Signature: 8a477f597d28d172789f06886806bc55\n")
    (tmp_path / "kind").symlink_to(elsewhere)
    store = CacheFolder(tmp_path / "kind", ".json")
    assert not store.write(store.name(DIGEST), b"{}")
    _fill(store, 20)
    assert store.read(store.name(f"{0:064x}"), 100) is None
    _untouched(files)


def test_a_folder_someone_else_uses_is_left_alone(tmp_path: Path) -> None:
    files = _strangers(tmp_path / "kind")  # no tag: not this tool's folder
    store = CacheFolder(tmp_path / "kind", ".json")
    _fill(store, 20)
    _untouched(files)
    assert not (tmp_path / "kind" / TAG_NAME).exists()


def test_entries_that_are_links_or_fifos_are_misses(tmp_path: Path) -> None:
    store = CacheFolder(tmp_path / "kind", ".json")
    assert store.write(store.name(DIGEST), b"{}")
    secret = tmp_path / "secret.json"
    secret.write_text('{"secret": 1}')
    linked = tmp_path / "kind" / store.name("cd" * 32)
    linked.symlink_to(secret)
    fifo = tmp_path / "kind" / store.name("ef" * 32)
    os.mkfifo(fifo)
    assert store.read(linked.name, 100) is None and store.read(fifo.name, 100) is None
    assert not store.has(linked.name) and not store.has(fifo.name)
    for index in range(20):
        store.write(store.name(f"{index:064x}"), b"{}")
    store.prune(keep=4)
    assert secret.read_text() == '{"secret": 1}' and linked.is_symlink() and fifo.exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="giving a folder to another user needs root")
def test_a_folder_of_another_user_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "kind"
    store = CacheFolder(folder, ".json")
    assert store.write(store.name(DIGEST), b"{}")
    os.chown(folder, 65534, 65534)
    assert store.read(store.name(DIGEST), 100) is None
    assert not store.write(store.name("cd" * 32), b"{}")


def test_a_world_writable_folder_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "kind"
    store = CacheFolder(folder, ".json")
    assert store.write(store.name(DIGEST), b"{}")
    folder.chmod(0o777)
    assert store.read(store.name(DIGEST), 100) is None


def _diff_with_cache(cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "needs_microversion", "diff", str(EXAMPLES / "old.yaml"),
         str(EXAMPLES / "new.yaml")], capture_output=True, text=True, timeout=60,
        env={**os.environ, ENV: str(cache)})


def test_the_command_line_never_loses_a_file_or_hangs(tmp_path: Path) -> None:
    """The cache named by the environment holds someone else's files in the folder this
    tool would use, one of them where an entry of this pair would be, and a FIFO."""
    cache = tmp_path / "shared"
    files = _strangers(cache / "problems")
    files.update(_strangers(cache / "validation", 50))
    os.mkfifo(cache / "problems" / f"{'f' * 64}.json")
    for _ in range(2):
        done = _diff_with_cache(cache)
        assert done.returncode == 0, done.stderr
    _untouched(files)
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "problems").symlink_to(cache / "problems")
    assert _diff_with_cache(linked).returncode == 0
    _untouched(files)
