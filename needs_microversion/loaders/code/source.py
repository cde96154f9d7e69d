"""The files of one revision as the code reader sees them: bytes through a callback, parsed
once, and dotted module names resolved to repository paths.

Parsed trees are kept per file content (a SHA-1 of the bytes) for the whole process: the
two sides of a `check` share almost every file, so the second side parses only what the
change touched.
"""

from __future__ import annotations

import ast
import hashlib
import posixpath
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence

from needs_microversion.loaders.code.values import MAX_SOURCE_BYTES

Read = Callable[[str], "bytes | None"]
ReadMany = Callable[[Sequence[str]], Mapping[str, bytes]]

_CACHE_ENTRIES = 600  # nova's API is ~200 modules: two revisions' worth, with room
_parsed: OrderedDict[str, ast.Module | str] = OrderedDict()
_lock = threading.Lock()


class SourceTree:
    """One revision's Python files: reads, parses (cached) and resolves imports."""

    def __init__(self, read: Read, listing: Iterable[str],
                 read_many: ReadMany | None = None) -> None:
        self._read = read
        self._read_many = read_many
        self.files = frozenset(listing)
        self._bytes: dict[str, bytes | None] = {}
        self._dirs: set[str] | None = None
        # Every path whose presence or content the reading depended on, and every folder
        # asked about: what a kept reading must find unchanged to be reused.
        self.inputs: set[str] = set()
        self.folders: dict[str, bool] = {}

    def probe(self, path: str) -> bool:
        """Whether `path` is a file of the revision (the reading depends on the answer)."""
        self.inputs.add(path)
        return path in self.files

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read several files in one go when the caller can (one `git cat-file` call)."""
        wanted = [p for p in paths if p in self.files and p not in self._bytes]
        if not wanted or self._read_many is None:
            return
        found = self._read_many(wanted)
        for path in wanted:
            self._bytes[path] = found.get(path)

    def raw(self, path: str) -> bytes | None:
        self.inputs.add(path)
        if path not in self._bytes:
            self._bytes[path] = self._read(path) if path in self.files else None
        return self._bytes[path]

    def text(self, path: str) -> str | None:
        raw = self.raw(path)
        if raw is None or len(raw) > MAX_SOURCE_BYTES:
            return None
        return raw.decode("utf-8", "replace")

    def parse(self, path: str) -> ast.Module | str:
        """The module's tree, or why it has none (absent, too large, a syntax error)."""
        raw = self.raw(path)
        if raw is None:
            return "the file is absent"
        if len(raw) > MAX_SOURCE_BYTES:
            return f"the file is larger than {MAX_SOURCE_BYTES // 2**20} MiB"
        key = hashlib.sha1(raw).hexdigest()
        with _lock:
            hit = _parsed.get(key)
            if hit is not None:
                _parsed.move_to_end(key)
                return hit
        result = _parse(raw)
        with _lock:
            _parsed[key] = result
            while len(_parsed) > _CACHE_ENTRIES:
                _parsed.popitem(last=False)
        return result

    # -- module names ---------------------------------------------------------------------
    def module_path(self, dotted: str) -> str | None:
        """`nova.api.validation` -> its file (a module, else a package's `__init__.py`)."""
        if not dotted or not all(part.isidentifier() for part in dotted.split(".")):
            return None
        base = dotted.replace(".", "/")
        for path in (base + ".py", base + "/__init__.py"):
            if self.probe(path):
                return path
        return None

    def is_package_dir(self, dotted: str) -> bool:
        """A folder of modules without `__init__.py` (a namespace package) or with one."""
        if self._dirs is None:
            self._dirs = {posixpath.dirname(name) for name in self.files if name.endswith(".py")}
            for folder in list(self._dirs):
                while folder:
                    folder = posixpath.dirname(folder)
                    self._dirs.add(folder)
        folder = dotted.replace(".", "/")
        self.folders[folder] = folder in self._dirs
        return self.folders[folder]

    @staticmethod
    def dotted_name(path: str) -> str:
        name = path[:-3] if path.endswith(".py") else path
        if name.endswith("/__init__"):
            name = name[: -len("/__init__")]
        return name.replace("/", ".")

    @staticmethod
    def absolute(module_path: str, level: int, name: str | None) -> str:
        """The dotted name a relative import (`from .. import x`) means in `module_path`."""
        if level == 0:
            return name or ""
        package = posixpath.dirname(module_path)
        for _ in range(level - 1):
            package = posixpath.dirname(package)
        dotted = package.replace("/", ".")
        return f"{dotted}.{name}" if name else dotted


def _parse(raw: bytes) -> ast.Module | str:
    try:
        return ast.parse(raw.decode("utf-8", "replace"))
    except SyntaxError as exc:
        return f"a syntax error at line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError):  # a NUL byte; nesting too deep
        return "the file cannot be parsed (nested too deeply, or a NUL byte)"
