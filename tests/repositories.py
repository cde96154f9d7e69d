"""Small git repositories laid out like the real services, built in a temporary folder.

CI has none of the real repositories, so these stand in for them: each holds a version
file spelt as that project spells it, its version history document, an api-ref tree written
the way that project writes versions, samples where it keeps them, release notes and a
release tag. `Project.commit(...)` changes files and returns the commit id.

    repo = nova_like(tmp_path)               # tag 1.0.0 ships 2.1; HEAD serves 2.1
    sha = repo.commit({"api-ref/source/parameters.yaml": ...}, max_version="2.2")
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from typing import Any
from dataclasses import dataclass
from pathlib import Path

_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(top: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True,
                          text=True, env={**os.environ, **_ENV}).stdout


@dataclass
class Project:
    top: Path
    version_file: str
    spell: Callable[[str], str]  # max version -> version file text
    history_doc: str | None  # where the version history lives (None: in the version file)

    def write(self, files: dict[str, str | None]) -> None:
        for name, text in files.items():
            path = self.top / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)

    def commit(self, files: dict[str, str | None], message: str = "change", *,
               max_version: str | None = None, history: str | None = None,
               note: str | None = None) -> str:
        """Commit `files`; `max_version` bumps the version file, `history` adds an entry to
        the history document, `note` adds a release note."""
        files = dict(files)
        if max_version is not None:
            files[self.version_file] = self.spell(max_version)
        if history is not None and self.history_doc is not None:
            current = (self.top / self.history_doc).read_text()
            files[self.history_doc] = f"{current}\n{history}\n{'-' * len(history)}\n\n" \
                                      f"Something changed.\n"
        if note is not None:
            files[f"releasenotes/notes/change-{len(git(self.top, 'log', '--oneline').split())}"
                  ".yaml"] = f"---\nfeatures:\n  - |\n    {note}\n"
        self.write(files)
        git(self.top, "add", "-A")
        git(self.top, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.top, "rev-parse", "HEAD").strip()

    def tag(self, name: str) -> None:
        git(self.top, "tag", name)

    def edited(self, path: str, old: str, new: str) -> str:
        """The file's text with `old` (which must be there) replaced once by `new`."""
        text = (self.top / path).read_text()
        assert old in text, old
        return text.replace(old, new, 1)


def _init(top: Path, files: dict[str, str], project: Project) -> Project:
    top.mkdir(parents=True, exist_ok=True)
    git(top, "init", "-q", "-b", "main")
    project.commit(files, "initial")
    project.tag("1.0.0")  # the first release ships what the initial commit serves
    return project


# -- nova: parameters.yaml min_version, samples in doc/api_samples, "_MAX_API_VERSION" -------

NOVA_PARAMETERS = """\
server_id:
  description: The server.
  in: path
  required: true
  type: string
name:
  description: The server name.
  in: body
  required: true
  type: string
status:
  description: The server status.
  in: body
  required: true
  type: string
"""

NOVA_SERVERS = """\
=========
 Servers
=========

Show Server
===========

.. rest_method:: GET /servers/{server_id}

Normal response codes: 200

Error response codes: unauthorized(401), itemNotFound(404)

Request
-------

.. rest_parameters:: parameters.yaml

  - server_id: server_id

Response
--------

.. rest_parameters:: parameters.yaml

  - name: name
  - status: status

**Example Show Server**

.. literalinclude:: ../../doc/api_samples/servers/server-get-resp.json
   :language: javascript
"""


def _nova_version(max_version: str) -> str:
    return (f'REST_API_VERSION_HISTORY = """REST API Version History:\n\n'
            f'    * 2.1 - Initial version.\n"""\n\n'
            f"_MIN_API_VERSION = '2.1'\n_MAX_API_VERSION = '{max_version}'\n")


def nova_like(top: Path) -> Project:
    return _nova(top, "nova/api/openstack/compute/rest_api_version_history.rst", {
        "api-ref/source/index.rst": ".. rest_expand_all::\n\n.. include:: servers.inc\n",
        "api-ref/source/servers.inc": NOVA_SERVERS,
        "api-ref/source/parameters.yaml": NOVA_PARAMETERS})


def nova_before_api_ref(top: Path) -> Project:
    """Nova in 2015: microversions, samples and the history document, but no api-ref yet."""
    return _nova(top, "nova/api/openstack/rest_api_version_history.rst", {})


def nova_samples_first(top: Path) -> Project:
    """Nova in 2012: samples and code, neither documents nor a version file; then the api-ref
    and the version file arrive, and a later change adds an attribute with no microversion."""
    samples = {"doc/api_samples/servers/server-get-resp.json": '{"name": "a"}\n',
               "nova/__init__.py": ""}
    top.mkdir(parents=True, exist_ok=True)
    git(top, "init", "-q", "-b", "main")
    project = Project(top, "nova/api/openstack/api_version_request.py", _nova_version,
                      "nova/api/openstack/compute/rest_api_version_history.rst")
    project.commit(samples, "samples, before any document")
    project.commit({"doc/api_samples/servers/server-get-resp.json": '{"name": "b"}\n'},
                   "a better sample, still before any document")
    project.commit({"api-ref/source/index.rst": ".. rest_expand_all::\n\n.. include:: "
                    "servers.inc\n", "api-ref/source/servers.inc": NOVA_SERVERS,
                    "api-ref/source/parameters.yaml": NOVA_PARAMETERS,
                    "nova/api/openstack/compute/servers.py": "# the API code\n",
                    project.version_file: _nova_version("2.1"),
                    project.history_doc or "": "REST API Version History\n"
                    "========================\n\n2.1\n---\n\nInitial.\n"}, "documents")
    project.tag("1.0.0")
    project.commit({"api-ref/source/parameters.yaml": NOVA_PARAMETERS + "pinned:\n  "
                    "description: P.\n  in: body\n  required: true\n  type: boolean\n",
                    "api-ref/source/servers.inc": NOVA_SERVERS.replace(
                        "  - status: status\n", "  - status: status\n  - pinned: pinned\n"),
                    "nova/api/openstack/compute/servers.py": "# pinned\n"},
                   "pinned, with no microversion")
    return project


def _nova(top: Path, history_doc: str, documents: dict[str, str]) -> Project:
    project = Project(top, "nova/api/openstack/api_version_request.py", _nova_version,
                      history_doc)
    return _init(top, {
        "nova/__init__.py": "",
        project.version_file: _nova_version("2.1"),
        "nova/api/openstack/compute/servers.py": "# the API code\n",
        history_doc:
            "REST API Version History\n========================\n\n2.1\n---\n\nInitial.\n",
        **documents,
        "doc/api_samples/servers/server-get-resp.json": '{"name": "a", "status": "ACTIVE"}\n',
        "releasenotes/notes/.placeholder": "",
    }, project)


# -- ironic: versionadded notes, MINOR_MAX_VERSION constants, history newest first ------------

IRONIC_NODES = """\
=======
 Nodes
=======

Show Node Details
=================

.. rest_method:: GET /v1/nodes/{node_ident}

Shows details for a node.

Normal response codes: 200

Error codes: 400,401,403,404

Request
-------

.. rest_parameters:: parameters.yaml

    - node_ident: node_ident

Response
--------

.. rest_parameters:: parameters.yaml

    - uuid: node_uuid
    - name: node_name

**Example JSON representation of a Node:**

.. literalinclude:: samples/node-show-response.json
   :language: javascript
"""

IRONIC_PARAMETERS = """\
node_ident:
  description: The UUID or name of the node.
  in: path
  required: true
  type: string
node_uuid:
  description: The UUID of the node.
  in: body
  required: true
  type: string
node_name:
  description: The name of the node.
  in: body
  required: true
  type: string
"""


def _ironic_version(max_version: str) -> str:
    minor = int(max_version.split(".")[1])
    lines = [f"MINOR_{n}_CHANGE = {n}" for n in range(1, minor + 1)]
    return ("BASE_VERSION = 1\n\n" + "\n".join(lines) + f"\n\nMINOR_MAX_VERSION = MINOR_{minor}"
            "_CHANGE\n\n_MIN_VERSION_STRING = '{}.{}'.format(BASE_VERSION, 1)\n"
            "_MAX_VERSION_STRING = '{}.{}'.format(BASE_VERSION, MINOR_MAX_VERSION)\n")


def ironic_like(top: Path) -> Project:
    project = Project(top, "ironic/api/controllers/v1/versions.py", _ironic_version,
                      "doc/source/contributor/webapi-version-history.rst")
    return _init(top, {
        "ironic/__init__.py": "",
        project.version_file: _ironic_version("1.1"),
        "doc/source/contributor/webapi-version-history.rst":
            "========================\nREST API Version History\n========================\n\n"
            "1.1 (Kilo)\n----------\n\nInitial.\n",
        "api-ref/source/index.rst": ".. rest_expand_all::\n\n.. include:: nodes.inc\n",
        "api-ref/source/nodes.inc": IRONIC_NODES,
        "api-ref/source/parameters.yaml": IRONIC_PARAMETERS,
        "api-ref/source/samples/node-show-response.json": '{"uuid": "u", "name": "n"}\n',
        "releasenotes/notes/.placeholder": "",
    }, project)


# -- placement: VERSIONS list, ranged "Response (microversions 1.2 - )" titles ---------------

PLACEMENT_TRAITS = """\
======
Traits
======

List traits
===========

.. rest_method:: GET /traits

Normal Response Codes: 200

Response
--------

.. rest_parameters:: parameters.yaml

  - traits: traits
"""

PLACEMENT_PARAMETERS = """\
traits:
  in: body
  required: true
  type: array
  description: A list of traits.
"""


def _placement_version(max_version: str) -> str:
    minor = int(max_version.split(".")[1])
    entries = "".join(f"    '1.{n}',  # change {n}\n" for n in range(0, minor + 1))
    return f"VERSIONS = [\n{entries}]\n"


def placement_like(top: Path) -> Project:
    project = Project(top, "placement/microversion.py", _placement_version,
                      "placement/rest_api_version_history.rst")
    return _init(top, {
        "placement/__init__.py": "",
        project.version_file: _placement_version("1.1"),
        "placement/rest_api_version_history.rst":
            "REST API Version History\n~~~~~~~~~~~~~~~~~~~~~~~~\n\n1.1 - First\n-----------\n\n"
            "Initial.\n",
        "api-ref/source/index.rst": ".. rest_expand_all::\n\n.. include:: traits.inc\n",
        "api-ref/source/traits.inc": PLACEMENT_TRAITS,
        "api-ref/source/parameters.yaml": PLACEMENT_PARAMETERS,
        "releasenotes/notes/.placeholder": "",
    }, project)


# -- zun: no version markers in api-ref at all; CURRENT_MAX_VER; history document -----------

ZUN_CONTAINERS = """\
==========
Containers
==========

Show details of a container
===========================

.. rest_method:: GET /v1/containers/{container_ident}

Response Codes
--------------

.. rest_status_code:: success status.yaml

   - 200

.. rest_status_code:: error status.yaml

   - 401
   - 404

Request
-------

.. rest_parameters:: parameters.yaml

  - container_ident: container_ident

Response
--------

.. rest_parameters:: parameters.yaml

  - uuid: uuid
  - name: name
"""

ZUN_PARAMETERS = """\
container_ident:
  description: The UUID or name of the container.
  in: path
  required: true
  type: string
uuid:
  description: The UUID of the container.
  in: body
  required: true
  type: string
name:
  description: The name of the container.
  in: body
  required: true
  type: string
"""

ZUN_STATUS = """\
200:
  default: Request was successful.
401:
  default: User must authenticate before making a request.
404:
  default: Not found.
"""


def _zun_version(max_version: str) -> str:
    return f"BASE_VER = '1.1'\nCURRENT_MAX_VER = '{max_version}'\n"


def zun_like(top: Path) -> Project:
    project = Project(top, "zun/api/controllers/versions.py", _zun_version,
                      "zun/api/rest_api_version_history.rst")
    return _init(top, {
        "zun/__init__.py": "",
        project.version_file: _zun_version("1.1"),
        "zun/api/rest_api_version_history.rst":
            "REST API Version History\n========================\n\n1.1\n---\n\nInitial.\n",
        "api-ref/source/index.rst": ".. rest_expand_all::\n\n.. include:: containers.inc\n",
        "api-ref/source/containers.inc": ZUN_CONTAINERS,
        "api-ref/source/parameters.yaml": ZUN_PARAMETERS,
        "api-ref/source/status.yaml": ZUN_STATUS,
        "releasenotes/notes/.placeholder": "",
    }, project)


# -- cinder: api-ref/source/v2 and v3 sub-trees, ../status.yaml, "_MAX_API_VERSION" ----------

def cinder_tree(version: str) -> dict[str, str]:
    inc = (f"Volumes\n=======\n\nShow a volume\n~~~~~~~~~~~~~\n\n"
           f".. rest_method::  GET /{version}/{{project_id}}/volumes/{{volume_id}}\n\n"
           ".. rest_status_code:: success ../status.yaml\n\n   - 200\n\n"
           ".. rest_status_code:: error ../status.yaml\n\n   - 404\n\n"
           "Request\n-------\n\n.. rest_parameters:: parameters.yaml\n\n"
           "   - project_id: project_id_path\n   - volume_id: volume_id_path\n\n"
           "Response Parameters\n-------------------\n\n"
           ".. rest_parameters:: parameters.yaml\n\n   - volume: volume\n   - id: id\n")
    params = ("project_id_path:\n  description: The project.\n  in: path\n  required: true\n"
              "  type: string\nvolume_id_path:\n  description: The volume.\n  in: path\n"
              "  required: true\n  type: string\nvolume:\n  description: A volume.\n"
              "  in: body\n  required: true\n  type: object\nid:\n  description: The id.\n"
              "  in: body\n  required: true\n  type: string\n")
    return {f"api-ref/source/{version}/index.rst": ".. rest_expand_all::\n\n"
                                                  ".. include:: volumes.inc\n",
            f"api-ref/source/{version}/volumes.inc": inc,
            f"api-ref/source/{version}/parameters.yaml": params}


def _cinder_version(max_version: str) -> str:
    return f'_MIN_API_VERSION = "3.0"\n_MAX_API_VERSION = "{max_version}"\n'


def cinder_like(top: Path) -> Project:
    project = Project(top, "cinder/api/openstack/api_version_request.py", _cinder_version,
                      "cinder/api/openstack/rest_api_version_history.rst")
    return _init(top, {
        "cinder/__init__.py": "",
        project.version_file: _cinder_version("3.1"),
        "cinder/api/openstack/rest_api_version_history.rst":
            "REST API Version History\n========================\n\n3.0\n---\n\nInitial.\n\n"
            "3.1 (Maximum in Newton)\n-----------------------\n\nFirst.\n",
        "api-ref/source/index.rst": "API\n===\n\n.. toctree::\n\n   v2/index\n   v3/index\n",
        "api-ref/source/status.yaml": "    200:\n      default: OK\n    404:\n"
                                      "      default: Not found\n",
        **cinder_tree("v2"), **cinder_tree("v3"),
        "releasenotes/notes/.placeholder": "",
    }, project)


def check_reports(repo: Project, run_cli: Any, monkeypatch: Any) -> tuple[int, dict[str, Any]]:
    """`check` of the repository's last commit, the CI way: its exit code (0 or 1) and its
    JSON reports by service."""
    monkeypatch.chdir(repo.top)
    code, out, err = run_cli("check", "--from-ref", "HEAD~1", "--to-ref", "HEAD",
                             "--no-validate", "--format", "json")
    assert code in (0, 1), err
    return code, {doc["service"]: doc["report"] for doc in json.loads(out)["documents"]}


def exported(repo: Project, run_cli: Any, monkeypatch: Any, target: Path) -> dict[str, Any]:
    """`export HEAD -o TARGET` in the repository: the code contract's OpenAPI document,
    checked by openapi-spec-validator."""
    from openapi_spec_validator import validate

    monkeypatch.chdir(repo.top)
    code, _, err = run_cli("export", "HEAD", "-o", str(target))
    assert code == 0, err
    document: dict[str, Any] = json.loads(target.read_text())
    validate(document)
    return document


def flavors_inc(*names: str) -> str:
    """An api-ref file whose rows name parameters parameters.yaml does not define: each is
    a warning that stands in the repository whatever a change does."""
    rows = "".join(f"  - {name}: {name}\n" for name in names)
    return NOVA_SERVERS.replace("Show Server", "Show Flavor").replace(
        "/servers/{server_id}", "/flavors/{server_id}").replace(
        "  - status: status\n", "  - status: status\n" + rows)


FLAVORS_INDEX = ".. rest_expand_all::\n\n.. include:: servers.inc\n.. include:: flavors.inc\n"


def with_standing_warning(top: Path) -> Project:
    """A nova-like repository whose flavors.inc names an undefined parameter (a warning
    about a file the last change does not touch), and a change to servers.inc on top."""
    project = nova_like(top)
    project.commit({"api-ref/source/flavors.inc": flavors_inc("undefined_thing"),
                    "api-ref/source/index.rst": FLAVORS_INDEX})
    project.commit({"api-ref/source/servers.inc": NOVA_SERVERS.replace("Show Server", "Show")})
    return project
