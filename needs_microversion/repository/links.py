"""Links to a commit on the forge that hosts the repository, built from its `origin` remote.

    template = link_template(repo)             # "https://opendev.org/openstack/nova/commit/{commit}"
    commit_link(template, sha)                 # the commit's page, or None without a template

opendev (and its Gerrit, review.opendev.org, and the old git.openstack.org names) links to
opendev.org's commit page; GitHub to /commit/, GitLab (gitlab.com or a host named gitlab)
to /-/commit/. A remote elsewhere (a local path, an unknown forge) has no link unless
`--link-template` says how to spell one. A remote's user name or token is never kept.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from needs_microversion.errors import InputError
from needs_microversion.loaders.git import Repo

PLACEHOLDER = "{commit}"
_OPENDEV = ("opendev.org", "review.opendev.org", "git.openstack.org", "review.openstack.org",
            "git.opendev.org")
# scp-like ssh remotes: git@github.com:owner/name.git
_SCP = re.compile(r"^(?:[^@/]+@)?([A-Za-z0-9.-]+):(?!//)(.+)$")


def link_template(repo: Repo, override: str | None = None) -> str | None:
    """`override` when given, else the template of the `origin` remote's forge, or None."""
    if override is not None:
        return check_template(override)
    try:
        url = repo.git("config", "--get", "remote.origin.url").decode("utf-8", "replace")
    except InputError:  # no remote named origin: git says so with exit code 1
        return None
    return template_for(url.strip())


def check_template(template: str) -> str:
    if PLACEHOLDER not in template:
        raise InputError(f"--link-template {template!r}: it needs {PLACEHOLDER} where the "
                         f"commit id goes")
    return template


def template_for(remote: str) -> str | None:
    """The commit-page template of a remote URL (https, ssh, scp-like, git://), or None."""
    found = _host_and_path(remote)
    if found is None:
        return None
    host, path = found
    path = path.strip("/").removesuffix(".git").strip("/")
    if host in _OPENDEV:  # Gerrit serves projects under a/ (authenticated) and p/ too
        path = re.sub(r"^(?:a/)?(?:p/)?", "", path)
    # owner/name at least, and nothing a link would need to escape.
    if "/" not in path or not re.fullmatch(r"[A-Za-z0-9._~/-]+", path):
        return None
    if host in _OPENDEV:
        return f"https://opendev.org/{path}/commit/{PLACEHOLDER}"
    if host == "github.com":
        return f"https://github.com/{path}/commit/{PLACEHOLDER}"
    if host == "gitlab.com" or host.split(".")[0] == "gitlab":
        return f"https://{host}/{path}/-/commit/{PLACEHOLDER}"
    return None


def commit_link(template: str | None, commit: str) -> str | None:
    # str.replace, not str.format: a template may hold other braces (a query string).
    return template.replace(PLACEHOLDER, commit) if template else None


def _host_and_path(remote: str) -> tuple[str, str] | None:
    """(host, path) of a remote, lower-case host, without user, password or port."""
    if "://" in remote:
        parts = urlsplit(remote)
        if parts.scheme not in ("https", "http", "ssh", "git", "git+ssh", "ssh+git"):
            return None
        host = (parts.hostname or "").lower()
        return (host, parts.path) if host else None
    match = _SCP.match(remote)
    if match is None or "/" in match.group(1):
        return None
    return match.group(1).lower(), match.group(2)
