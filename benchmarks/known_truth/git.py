"""Git plumbing on a bare working copy: read blobs, write blobs, trees and commits, refs.

Nothing here checks a tree out. A case commit is the base tree with some files replaced,
added or deleted, written through a temporary index and committed with a fixed identity
and a date derived from the base commit, so the same edit on the same base always gives
the same commit id.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

IDENTITY = {"GIT_AUTHOR_NAME": "Known Truth", "GIT_AUTHOR_EMAIL": "known-truth@example.invalid",
            "GIT_COMMITTER_NAME": "Known Truth",
            "GIT_COMMITTER_EMAIL": "known-truth@example.invalid"}


class GitError(RuntimeError):
    pass


class Repo:
    """A bare repository (our own clone of a read-only mirror)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        # blobs and listings of fixed revisions never change: cached for the process
        self._blobs: dict[tuple[str, str], str | None] = {}
        self._files: dict[tuple[str, str], tuple[str, ...]] = {}

    @classmethod
    def clone_shared(cls, mirror: Path, dest: Path) -> Repo:
        """`git clone --bare --shared mirror dest` once; the mirror is never written."""
        if not (dest / "HEAD").exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "clone", "-q", "--bare", "--shared", str(mirror), str(dest)],
                           check=True)
        return cls(dest)

    def git(self, *args: str, input: bytes | None = None, env: dict | None = None,
            check: bool = True) -> bytes:
        full_env = dict(os.environ)
        full_env.pop("GIT_INDEX_FILE", None)
        full_env.update(env or {})
        proc = subprocess.run(["git", "--git-dir", str(self.path), *args], input=input,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env)
        if check and proc.returncode != 0:
            raise GitError(f"git {' '.join(args)}: {proc.stderr.decode(errors='replace')}")
        return proc.stdout

    def text(self, *args: str, input: bytes | None = None, env: dict | None = None) -> str:
        return self.git(*args, input=input, env=env).decode("utf-8", errors="replace")

    def lines(self, *args: str) -> list[str]:
        return [line for line in self.text(*args).splitlines() if line]

    def rev(self, name: str) -> str:
        return self.text("rev-parse", "--verify", name + "^{commit}").strip()

    def blob(self, rev: str, path: str) -> str | None:
        """A file's text at a revision; None when absent."""
        key = (rev, path)
        if key not in self._blobs:
            if len(self._blobs) > 4096:
                self._blobs.clear()
            self._blobs[key] = self._read_blob(rev, path)
        return self._blobs[key]

    def _read_blob(self, rev: str, path: str) -> str | None:
        proc = subprocess.run(["git", "--git-dir", str(self.path), "cat-file", "blob",
                               f"{rev}:{path}"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("utf-8", errors="surrogateescape")

    def files(self, rev: str, folder: str = "") -> tuple[str, ...]:
        """Every file path under `folder` at `rev` (recursive)."""
        key = (rev, folder)
        if key not in self._files:
            self._files[key] = self._list(rev, folder)
        return self._files[key]

    def _list(self, rev: str, folder: str) -> tuple[str, ...]:
        args = ["ls-tree", "-r", "--name-only", rev]
        if folder:
            args += ["--", folder.rstrip("/") + "/"]
        return tuple(self.lines(*args))

    def commit_info(self, rev: str) -> tuple[int, str]:
        """(committer time, subject)."""
        out = self.text("log", "-1", "--format=%ct%x00%s", rev)
        stamp, subject = out.rstrip("\n").split("\x00", 1)
        return int(stamp), subject

    def write_blob(self, text: str) -> str:
        data = text.encode("utf-8", errors="surrogateescape")
        return self.text("hash-object", "-w", "--stdin", input=data).strip()

    def commit(self, base: str, changes: dict[str, str | None], message: str) -> str:
        """A commit on top of `base` whose tree is base's with `changes` applied
        (path -> new text, None = delete)."""
        with tempfile.TemporaryDirectory(prefix="kt-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self.git("read-tree", base, env=env)
            for path, text in sorted(changes.items()):
                if text is None:
                    self.git("update-index", "--force-remove", "--", path, env=env)
                else:
                    sha = self.write_blob(text)
                    mode = self.mode(base, path)  # an executable file stays executable
                    self.git("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}",
                             env=env)
            tree = self.text("write-tree", env=env).strip()
        stamp, _ = self.commit_info(base)
        date = f"{stamp + 3600} +0000"
        env = {**IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        return self.text("commit-tree", tree, "-p", base, "-m", message, env=env).strip()

    def mode(self, rev: str, path: str) -> str:
        """The file's mode at `rev` (100644 for a new file)."""
        out = self.text("ls-tree", rev, "--", path).split()
        return out[0] if out and out[0].startswith("100") else "100644"

    def set_ref(self, name: str, sha: str) -> None:
        self.git("update-ref", name, sha)

    def changed_files(self, base: str, head: str) -> list[str]:
        return self.lines("diff", "--name-only", base, head)
