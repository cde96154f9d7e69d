"""The version file's maximum, read with `ast` at any revision of the eleven services."""

from __future__ import annotations

import pytest

from needs_microversion.errors import InputError
from needs_microversion.model.versions import Version
from needs_microversion.repository.versionfile import read_version_file

WATCHER = '''\
import enum

BASE_VERSION = 1


class VERSIONS(enum.Enum):
    MINOR_0_ROCKY = 0
    MINOR_6_DATA_MODEL = 6
    MINOR_7_SKIP = 7
    MINOR_MAX_VERSION = 7


MIN_VER_STR = f"{BASE_VERSION}.{VERSIONS.MINOR_0_ROCKY.value}"
MAX_VER_STR = f"{BASE_VERSION}.{VERSIONS.MINOR_MAX_VERSION.value}"
'''


@pytest.mark.parametrize("text, version, convention", [
    ('_MIN_API_VERSION = "2.1"\n_MAX_API_VERSION = "2.104"\n', Version(2, 104),
     "_MAX_API_VERSION"),
    ("BASE_VER = '1.1'\nCURRENT_MAX_VER = '1.40'\n", Version(1, 40), "CURRENT_MAX_VER"),
    ("BASE_VERSION = 1\nMINOR_115_X = 115\nMINOR_MAX_VERSION = MINOR_115_X\n"
     "_MAX_VERSION_STRING = '{}.{}'.format(BASE_VERSION, MINOR_MAX_VERSION)\n",
     Version(1, 115), "MINOR_MAX_VERSION"),
    ("BASE_VERSION = 2\nMINOR_MAX_VERSION = 3\n"
     "MAX_VERSION_STRING = '%s.%s' % (BASE_VERSION, MINOR_MAX_VERSION)\n", Version(2, 3),
     "MINOR_MAX_VERSION"),
    ('_MAX_VERSION_STRING = "2.0"\n', Version(2, 0), "MINOR_MAX_VERSION"),
    (WATCHER, Version(1, 7), "MINOR_MAX_VERSION"),
    ("VERSIONS = [\n    '1.0',\n    '1.39',  # any-traits\n]\n", Version(1, 39), "VERSIONS"),
    ("_MAX_API_VERSION: str = '2.10'\n", Version(2, 10), "_MAX_API_VERSION"),
], ids=["nova", "zun", "ironic", "percent", "cyborg-early", "watcher-enum", "placement",
        "annotated"])
def test_every_spelling(text: str, version: Version, convention: str) -> None:
    parsed = read_version_file(text)
    assert (parsed.max_version, parsed.convention) == (version, convention)
    assert parsed.text == text


@pytest.mark.parametrize("text, message", [
    ("VERSION = '2.1'\n", "no maximum microversion found"),
    ("_MAX_API_VERSION = '2.1\n", "cannot parse the version file"),
    ("MINOR_MAX_VERSION = MINOR_9_X\n", "no maximum microversion found"),  # unresolvable
    ("A = B\nB = A\nMINOR_MAX_VERSION = A\nBASE_VERSION = 1\n", "no maximum"),  # a cycle
    ("x = 1\0\n", "cannot parse the version file"),
    ("_MAX_API_VERSION = '{:>999999999}'.format(2)\n", "no maximum"),  # no width formats
    ("_MAX_API_VERSION = '%999999999d' % 2\n", "no maximum"),
    ("_MAX_API_VERSION = 'x' + 'y' * 10**9\n", "no maximum"),
    ("_MAX_API_VERSION = '2.' + '1' * 5000\n", "no maximum"),
    ("_MAX_API_VERSION = " + "(" * 10000 + "'2.1'" + ")" * 10000 + "\n", "cannot parse"),
], ids=["none", "syntax", "unresolved", "cycle", "nul", "format-width", "percent-width",
        "power", "long", "deep"])
def test_unreadable_or_hostile_version_files(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_version_file(text, "nova/api/openstack/api_version_request.py")


def test_a_version_file_is_never_executed(tmp_path) -> None:
    marker = tmp_path / "ran"
    text = f"open({str(marker)!r}, 'w').close()\n_MAX_API_VERSION = '2.5'\n"
    assert read_version_file(text).max_version == Version(2, 5) and not marker.exists()
