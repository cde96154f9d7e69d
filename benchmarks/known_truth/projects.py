"""The eleven projects: where each keeps its version file, history document, API code, and
how each writes a version gate in its api-ref and in its code.

Sources: /work/shared/reference/openstack-formats.md (section 8 and 1.7) and the projects'
own history (git log -p of real microversion changes: nova 2.102/2.104, ironic 1.114/1.115,
senlin 1.13, masakari 1.1/1.2, cinder's microversions.py constants, watcher's allow_*
helpers, cyborg's MINOR_* constants, placement's VERSIONS list).

The version file is read and bumped here by this benchmark's own small readers (regular
expressions per project), never by the tool under test.
"""

from __future__ import annotations

import hashlib
import re
import textwrap
from dataclasses import dataclass, field

from benchmarks.known_truth.git import Repo

Version = tuple[int, int]


def vstr(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


@dataclass(frozen=True)
class Profile:
    name: str
    api_ref: str  # the folder diff mode compares (the project's current API)
    version_files: tuple[str, ...]
    history_docs: tuple[str, ...]
    code_dirs: tuple[str, ...]  # where the modules serving operations live
    doc_gate: str  # min_version | versionadded | new_in_version | prose_since
    schema_code: bool = False  # nova, masakari: JSON schemas per microversion in code
    max_version_removal: bool = False  # documents removals with max_version
    gates_codes_in_prose: bool = True  # gated-409 applies
    views_dirs: tuple[str, ...] = ()
    refactor: bool = False
    history_newest_first: bool = False
    extra: dict = field(default_factory=dict)


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("nova", "api-ref/source", ("nova/api/openstack/api_version_request.py",),
            ("nova/api/openstack/compute/rest_api_version_history.rst",
             "nova/api/openstack/rest_api_version_history.rst"),
            ("nova/api/openstack/compute",), "min_version", schema_code=True,
            max_version_removal=True, views_dirs=("nova/api/openstack/compute/views",),
            refactor=True),
    Profile("cinder", "api-ref/source/v3", ("cinder/api/openstack/api_version_request.py",),
            ("cinder/api/openstack/rest_api_version_history.rst",),
            ("cinder/api/v3", "cinder/api/contrib", "cinder/api/v2"), "min_version",
            schema_code=True, max_version_removal=True,
            views_dirs=("cinder/api/v3/views", "cinder/api/views")),
    Profile("manila", "api-ref/source", ("manila/api/openstack/api_version_request.py",),
            ("manila/api/openstack/rest_api_version_history.rst",),
            ("manila/api/v2", "manila/api/v1", "manila/api/contrib"), "min_version",
            schema_code=True, max_version_removal=True, views_dirs=("manila/api/views",)),
    Profile("ironic", "api-ref/source", ("ironic/api/controllers/v1/versions.py",),
            ("doc/source/contributor/webapi-version-history.rst",
             "doc/source/dev/webapi-version-history.rst"),
            ("ironic/api/controllers/v1",), "versionadded", history_newest_first=True),
    Profile("placement", "api-ref/source",
            ("placement/microversion.py", "placement/api/openstack/placement/microversion.py"),
            ("placement/rest_api_version_history.rst",
             "placement/api/openstack/placement/rest_api_version_history.rst"),
            ("placement/handlers", "placement/api/openstack/placement/handlers"),
            "min_version"),
    Profile("cyborg", "api-ref/source", ("cyborg/api/controllers/v2/versions.py",),
            ("cyborg/api/rest_api_version_history.rst",),
            ("cyborg/api/controllers/v2",), "min_version"),
    Profile("senlin", "api-ref/source",
            ("senlin/api/openstack/v1/version.py", "senlin/api/openstack/versions.py"),
            ("senlin/api/openstack/history.rst",),
            ("senlin/api/openstack/v1",), "prose_since"),
    Profile("watcher", "api-ref/source", ("watcher/api/controllers/v1/versions.py",),
            ("watcher/api/controllers/rest_api_version_history.rst",),
            ("watcher/api/controllers/v1",), "min_version"),
    Profile("masakari", "api-ref/source", ("masakari/api/api_version_request.py",), (),
            ("masakari/api/openstack/ha",), "new_in_version", schema_code=True,
            views_dirs=("masakari/api/openstack/ha/views",), refactor=True),
    # zun and magnum write no version marker in their api-ref at all; a gated change uses
    # os-api-ref's own min_version (the one structured marker the format has).
    Profile("zun", "api-ref/source", ("zun/api/controllers/versions.py",),
            ("zun/api/rest_api_version_history.rst",),
            ("zun/api/controllers/v1",), "min_version", gates_codes_in_prose=False,
            views_dirs=("zun/api/controllers/v1/views",)),
    Profile("magnum", "api-ref/source", ("magnum/api/controllers/versions.py",),
            ("magnum/api/rest_api_version_history.rst",),
            ("magnum/api/controllers/v1",), "min_version", gates_codes_in_prose=False),
)}

ORDER = ["nova", "cinder", "manila", "ironic", "placement", "cyborg", "senlin", "watcher",
         "masakari", "zun", "magnum"]


# ---------------------------------------------------------------------------------------
# Version files


_STRING_MAX = {
    "nova": r"_MAX_API_VERSION\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "cinder": r"_MAX_API_VERSION\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "manila": r"_MAX_API_VERSION\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "masakari": r"_MAX_API_VERSION\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "senlin": r"_MAX_API_VERSION\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "zun": r"CURRENT_MAX_VER\s*=\s*['\"](\d+)\.(\d+)['\"]",
    "magnum": r"CURRENT_MAX_VER\s*=\s*['\"](\d+)\.(\d+)['\"]",
}
_BASE = {"ironic": 1, "cyborg": 2, "watcher": 1}


def max_unraised(profile: Profile, text: str, old: Version) -> str | None:
    """The version file's text with its maximum put back to `old` (the rest of a bump, its
    docstring history, kept): the raise a contributor forgot. None where the maximum is not
    one string constant (ironic, cyborg, watcher, placement)."""
    pattern = _STRING_MAX.get(profile.name)
    match = re.search(pattern, text) if pattern else None
    if match is None:
        return None
    return text[:match.start(1)] + vstr(old) + text[match.end(2):]


def version_file(profile: Profile, repo: Repo, rev: str) -> tuple[str, str] | None:
    for path in profile.version_files:
        text = repo.blob(rev, path)
        if text is not None:
            return path, text
    return None


def read_max(profile: Profile, text: str) -> Version | None:
    """The maximum microversion a version file declares."""
    name = profile.name
    if name in _STRING_MAX:
        match = re.search(_STRING_MAX[name], text)
        return (int(match.group(1)), int(match.group(2))) if match else None
    if name == "placement":
        block = re.search(r"^VERSIONS\s*=\s*\[(.*?)^\]", text, re.M | re.S)
        if not block:
            return None
        found = re.findall(r"['\"](\d+)\.(\d+)['\"]", block.group(1))
        return (int(found[-1][0]), int(found[-1][1])) if found else None
    # ironic, cyborg, watcher: MINOR_MAX_VERSION = <int | MINOR_N_NAME>
    base = re.search(r"^BASE_VERSION\s*=\s*(\d+)", text, re.M)
    major = int(base.group(1)) if base else _BASE[name]
    match = re.search(r"^\s*MINOR_MAX_VERSION\s*=\s*\(?\s*([A-Za-z0-9_.]+)", text, re.M)
    if not match:
        return None
    value = match.group(1).split(".")[-1]
    if value.isdigit():
        return major, int(value)
    const = re.search(rf"^\s*{re.escape(value)}\s*=\s*\(?\s*(\d+)", text, re.M)
    return (major, int(const.group(1))) if const else None


def read_version(profile: Profile, repo: Repo, rev: str) -> Version | None:
    found = version_file(profile, repo, rev)
    return read_max(profile, found[1]) if found else None


def history_doc(profile: Profile, repo: Repo, rev: str) -> tuple[str, str] | None:
    for path in profile.history_docs:
        text = repo.blob(rev, path)
        if text is not None:
            return path, text
    return None


def _wrap_bullet(prefix: str, text: str, width: int = 79) -> list[str]:
    return textwrap.wrap(text, width, initial_indent=prefix,
                         subsequent_indent=" " * len(prefix)) or [prefix.rstrip()]


def _add_docstring_history(text: str, new: Version, summary: str) -> str:
    """A `    * X.Y - summary` line at the end of a REST_API_VERSION_HISTORY string."""
    items = list(re.finditer(r"^(\s*)\*\s+(\d+)\.(\d+)\s+-\s", text, re.M))
    if not items:
        return text
    last = items[-1]
    indent = last.group(1)
    # the end of the last item: the next line that is blank, a closing quote, or dedented
    pos = last.end()
    lines_after = text[pos:].split("\n")
    offset = pos + len(lines_after[0]) + 1
    for line in lines_after[1:]:
        stripped = line.strip()
        if not stripped or stripped.startswith('"""') or stripped.startswith("*") \
                or (len(line) - len(line.lstrip()) <= len(indent)):
            break
        offset += len(line) + 1
    entry = "\n".join(_wrap_bullet(f"{indent}* {vstr(new)} - ", summary)) + "\n"
    return text[:offset] + entry + text[offset:]


def _const_name(summary_slug: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", summary_slug.upper()).strip("_")[:40]


def bump(profile: Profile, repo: Repo, rev: str, new: Version, summary: str,
         slug: str) -> dict[str, str]:
    """The version file (and its companions) raised to `new`, as a contributor does."""
    found = version_file(profile, repo, rev)
    assert found is not None
    path, text = found
    name = profile.name
    changes: dict[str, str] = {}
    const = _const_name(slug)
    if name in _STRING_MAX:
        pattern = re.compile(_STRING_MAX[name])
        match = pattern.search(text)
        quote = text[match.start():match.end()][-1]
        prefix = text[match.start():match.start(1)]
        text = text[:match.start()] + f"{prefix}{vstr(new)}{quote}" + text[match.end():]
        if name in ("nova", "cinder", "manila", "masakari", "zun", "magnum"):
            text = _add_docstring_history(text, new, summary)
        changes[path] = text
        if name == "cinder":
            mv_path = "cinder/api/microversions.py"
            mv = repo.blob(rev, mv_path)
            if mv is not None:
                consts = list(re.finditer(r"^[A-Z][A-Z0-9_]*[ \t]*=[ \t]*'3\.\d+'[ \t]*$", mv,
                                         re.M))
                if consts:
                    at = consts[-1].end()
                    mv = mv[:at] + f"\n{const} = '{vstr(new)}'" + mv[at:]
                    changes[mv_path] = mv
    elif name == "placement":
        block = re.search(r"^VERSIONS\s*=\s*\[(.*?)^\]", text, re.M | re.S)
        entry = f"    '{vstr(new)}',  # " + summary
        lines = textwrap.wrap(entry, 79, subsequent_indent="             # ")
        at = block.end(1)
        text = text[:at] + "\n".join(lines) + "\n" + text[at:]
        changes[path] = text
    else:  # ironic, cyborg, watcher
        minor = new[1]
        cname = f"MINOR_{minor}_{const}"
        if name == "watcher":
            members = list(re.finditer(r"^(\s+)MINOR_(\d+)_\w+\s*=\s*(?:\(\s*\n\s*)?\d+[^\n]*"
                                       r"(?:\n\s*\))?", text, re.M))
            last = members[-1]
            indent = last.group(1)
            line = f"{indent}{cname} = {minor}  # v{vstr(new)}: {summary}"
            if len(line) > 79:
                line = (f"{indent}{cname} = (\n{indent}    {minor}  # v{vstr(new)}: "
                        f"{summary}"[:79 + len(indent) + 10] + f"\n{indent})")
            text = text[:last.end()] + "\n" + line + text[last.end():]
            text = re.sub(r"^(\s*MINOR_MAX_VERSION\s*=\s*)\(?\s*[A-Za-z0-9_]+\s*\)?",
                          lambda m: f"{m.group(1)}{minor}", text, count=1, flags=re.M)
        else:
            comments = list(re.finditer(r"^# v\d+\.\d+:.*(?:\n#\s{2,}.*)*", text, re.M))
            if comments:
                at = comments[-1].end()
                entry = "\n".join(textwrap.wrap(f"# v{vstr(new)}: {summary}", 79,
                                                subsequent_indent="#         "))
                text = text[:at] + "\n" + entry + text[at:]
            consts = list(re.finditer(r"^MINOR_\d+_\w+[ \t]*=[ \t]*\d+[ \t]*$", text, re.M))
            at = consts[-1].end()
            text = text[:at] + f"\n{cname} = {minor}" + text[at:]
            text = re.sub(r"^(MINOR_MAX_VERSION\s*=\s*)\w+", lambda m: m.group(1) + cname,
                          text, count=1, flags=re.M)
        changes[path] = text
        if name == "ironic":
            mappings = "ironic/common/release_mappings.py"
            rm = repo.blob(rev, mappings)
            if rm is not None:
                master = rm.find("'master': {")
                if master >= 0:
                    api = re.compile(r"'api': '\d+\.\d+'").search(rm, master)
                    if api:
                        rm = rm[:api.start()] + f"'api': '{vstr(new)}'" + rm[api.end():]
                        changes[mappings] = rm
    # history document
    hist = history_doc(profile, repo, rev)
    if hist is not None:
        changes[hist[0]] = add_history_entry(hist[1], new, summary,
                                             newest_first=profile.history_newest_first)
    # versions samples that carry the maximum (nova, cinder)
    for folder in {"nova": ["doc/api_samples/versions"],
                   "cinder": ["api-ref/source/v3/samples/versions"]}.get(name, []):
        old_max = read_max(profile, found[1])
        for sample in repo.files(rev, folder):
            if not sample.endswith(".json"):
                continue
            body = repo.blob(rev, sample) or ""
            replaced = re.sub(rf'("version":\s*"){re.escape(vstr(old_max))}(")',
                              lambda m: m.group(1) + vstr(new) + m.group(2), body)
            if replaced != body:
                changes[sample] = replaced
    return changes


_HEADING = re.compile(r"^(\d+)\.(\d+)\b[^\n]*$")


def add_history_entry(text: str, new: Version, summary: str, newest_first: bool = False) -> str:
    """A section for `new` in a REST API version history document, in the style of the
    entry next to it (adornment, label, body indentation, bullet)."""
    lines = text.replace("\r\n", "\n").split("\n")
    heads = [i for i in range(len(lines) - 1)
             if _HEADING.match(lines[i]) and re.match(r"^([-=~^\"'*+#])\1+\s*$", lines[i + 1])]
    if not heads:
        return text.rstrip("\n") + f"\n\n{vstr(new)}\n{'-' * len(vstr(new))}\n\n{summary}\n"
    ref = heads[0] if newest_first else heads[-1]
    char = lines[ref + 1].strip()[0]
    head = lines[ref]
    paren = re.search(r"\(([^)]*)\)\s*$", head)
    title = vstr(new)
    rest = head[len(re.match(r"\d+\.\d+", head).group(0)):]
    if rest.strip().startswith("-"):  # placement: "1.39 - Title"
        title += " - " + summary.split(".")[0][:60]
    elif paren and "maximum" not in paren.group(1).lower():  # ironic: "1.115 (Hibiscus)"
        title += f" ({paren.group(1)})"
    under_len = len(title) if len(lines[ref + 1].strip()) >= len(head.strip()) \
        else len(lines[ref + 1].strip())
    label = None
    for k in (ref - 1, ref - 2):
        if k >= 0 and re.match(r"^\.\. _.*\d+\.\d+:\s*$", lines[k]):
            label = re.sub(r"\d+\.\d+(?=:\s*$)", vstr(new), lines[k])
    # the body style of the reference entry
    body_start = ref + 2
    while body_start < len(lines) and not lines[body_start].strip():
        body_start += 1
    sample = lines[body_start] if body_start < len(lines) else ""
    blank_after_heading = body_start > ref + 2
    indent = sample[:len(sample) - len(sample.lstrip())]
    versionadded = None
    for k in range(ref + 2, min(len(lines), ref + 6)):
        if lines[k].strip().startswith(".. versionadded::"):
            versionadded = lines[k].strip()
    if sample.strip().startswith(".. versionadded::"):
        sample = ""
        indent = ""
    bullet = "- " if sample.lstrip().startswith("- ") else ""
    body = textwrap.wrap(summary, 79 - len(indent) - len(bullet),
                         initial_indent=indent + bullet,
                         subsequent_indent=indent + " " * len(bullet))
    entry: list[str] = []
    if label:
        entry += [label, ""]
    entry += [title, char * max(under_len, 3)]
    if blank_after_heading:
        entry.append("")
    if versionadded:
        entry += [versionadded, ""]
    entry += body
    if newest_first:
        start = ref - 2 if label else ref
        lines[start:start] = entry + [""]
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += [""] + entry
        lines.append("")
    out = "\n".join(lines)
    if not out.endswith("\n"):
        out += "\n"
    return out.replace("\n", "\r\n") if "\r\n" in text else out


def release_note(slug: str, seed_text: str, section: str, text: str) -> tuple[str, str]:
    digest = hashlib.sha1(seed_text.encode()).hexdigest()[:16]
    path = f"releasenotes/notes/{slug}-{digest}.yaml"
    body = "\n".join(textwrap.wrap(text, 72, initial_indent="    ", subsequent_indent="    "))
    return path, f"---\n{section}:\n  - |\n{body}\n"


# ---------------------------------------------------------------------------------------
# Version gates in code (a contributor's idiom per project)


@dataclass
class CodeGate:
    expr: str  # a boolean expression true from the new version on
    imports: list[str]  # import lines the module must have
    changes: dict[str, str]  # other files (a helper, a constant)


def code_gate(profile: Profile, repo: Repo, rev: str, new: Version, slug: str,
              module_text: str, pending: dict[str, str]) -> CodeGate:
    """How the project's API code checks `request version >= new`. `pending`: files
    already changed by this case (the bump), read before the base."""
    def current(path: str) -> str | None:
        return pending.get(path, repo.blob(rev, path))

    name = profile.name
    version = vstr(new)
    const = _const_name(slug)
    if name == "nova":
        vr = repo.blob(rev, "nova/api/openstack/api_version_request.py") or ""
        positional = re.search(r"def is_supported\(req[^,]*,\s*version", vr) is not None
        expr = (f"api_version_request.is_supported(req, '{version}')" if positional else
                f"api_version_request.is_supported(req, min_version='{version}')")
        return CodeGate(expr, ["from nova.api.openstack import api_version_request"], {})
    if name == "masakari":
        return CodeGate(f"api_version_request.is_supported(req, min_version='{version}')",
                        ["from masakari.api import api_version_request"], {})
    if name == "cinder":
        if "cinder/api/microversions.py" in pending:
            return CodeGate(f"req.api_version_request.matches(mv.{const})",
                            ["from cinder.api import microversions as mv"], {})
        return CodeGate(f"req.api_version_request.matches('{version}')", [], {})
    if name == "manila":
        return CodeGate(f"req.api_version_request >= api_version.APIVersionRequest("
                        f"\"{version}\")",
                        ["from manila.api.openstack import api_version_request as "
                         "api_version"], {})
    if name == "senlin":
        return CodeGate(f"req.version_request >= vr.APIVersionRequest(\"{version}\")",
                        ["from senlin.api.common import version_request as vr"], {})
    if name == "placement":
        # handlers bind `want_version` themselves; one that does not reads the environ
        expr = (f"want_version.matches(({new[0]}, {new[1]}))" if "want_version =" in
                module_text else f"req.environ[microversion.MICROVERSION_ENVIRON].matches("
                f"({new[0]}, {new[1]}))")
        return CodeGate(expr, ["from placement import microversion"], {})
    if name in ("ironic", "watcher"):
        utils_path = f"{profile.code_dirs[0]}/utils.py"
        utils = current(utils_path)
        helper = f"allow_{slug.replace('-', '_')}"
        cname = f"MINOR_{new[1]}_{const}"
        if utils is None:
            return CodeGate(f"{'api' if 'from ironic import api' in module_text else 'pecan'}"
                            f".request.version.minor >= {new[1]}", [], {})
        if name == "ironic":
            req = "api.request" if "api.request.version" in utils else "pecan.request"
            value = f"versions.{cname}"
        else:
            req = "pecan.request"
            value = f"versions.VERSIONS.{cname}.value"
        func = (f"\n\ndef {helper}():\n    \"\"\"Check if {slug.replace('-', ' ')} is "
                f"allowed.\n\n    Version {version} of the API added support for it.\n"
                f"    \"\"\"\n    return {req}.version.minor >= {value}\n")
        utils = utils.rstrip("\n") + "\n" + func
        return CodeGate(f"api_utils.{helper}()",
                        [f"from {profile.code_dirs[0].replace('/', '.')} import utils as "
                         "api_utils"], {utils_path: utils})
    if name == "cyborg":
        cname = f"MINOR_{new[1]}_{const}"
        return CodeGate(f"api.request.version.minor >= versions.{cname}",
                        ["from cyborg import api",
                         "from cyborg.api.controllers.v2 import versions"], {})
    if name in ("zun", "magnum"):
        return CodeGate(f"pecan.request.version >= versions.Version('', '', '', "
                        f"'{version}')",
                        ["import pecan", f"from {name}.api.controllers import versions"], {})
    raise KeyError(name)
