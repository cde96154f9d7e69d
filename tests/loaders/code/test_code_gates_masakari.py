"""The version-gate index (any project) and masakari's extension routes."""

from __future__ import annotations

from typing import Any

import pytest

from needs_microversion.loaders.code.contract import read_code_contract
from needs_microversion.loaders.code.gates import version_gates
from needs_microversion.model.versions import Version

from code_repos import make_repo

__all__ = ["make_repo"]  # the fixtures

NOVA_API = """
UUID_FOR_ID_MIN_VERSION = '2.53'


class Controller(wsgi.Controller):

    @wsgi.api_version('2.1',
                      '2.102')
    @validation.schema(schema.create, UUID_FOR_ID_MIN_VERSION)
    def create(self, req, body):
        if api_version_request.is_supported(req, '2.73'):  # not '9.9' in a comment
            pass
        note = 'see 2.7 and "3.4"'
"""

CINDER_MV = "VOLUME_REVERT = '3.40'\n"
CINDER_API = """
from cinder.api import microversions as mv

class VolumeController(object):
    @wsgi.Controller.api_version(mv.VOLUME_REVERT)
    def revert(self, req, id, body):
        if req_version.matches(mv.VOLUME_REVERT):
            pass
"""

IRONIC_VERSIONS = "BASE_VERSION = 1\nMINOR_52_ALLOCATION = 52\n"
IRONIC_UTILS = """
def allow_allocations():
    return api.request.version.minor >= versions.MINOR_52_ALLOCATION
"""

PLACEMENT_HANDLER = """
@microversion.version_handler('1.6')
def list_traits(req):
    want_version = req.environ[microversion.MICROVERSION_ENVIRON]
    if want_version.matches((1, 15)):
        pass
"""


def _gates(make_repo: Any, files: dict[str, str]) -> set[tuple[str, str, int, str]]:
    read, listing = make_repo(files)
    return {(str(g.version), g.file, g.line, g.kind) for g in version_gates(read, listing)}


def test_nova_gates(make_repo: Any) -> None:
    path = "nova/api/openstack/compute/servers.py"
    assert _gates(make_repo, {path: NOVA_API, "nova/tests/unit/api/test_x.py": NOVA_API}) == {
        ("2.53", path, 2, "constant"), ("2.1", path, 7, "decorator"),
        ("2.102", path, 8, "decorator"), ("2.53", path, 9, "decorator"),
        ("2.73", path, 11, "check"), ("3.4", path, 13, "literal")}


def test_constants_of_other_projects(make_repo: Any) -> None:
    found = _gates(make_repo, {"cinder/api/microversions.py": CINDER_MV,
                               "cinder/api/v3/volumes.py": CINDER_API,
                               "ironic/api/controllers/v1/versions.py": IRONIC_VERSIONS,
                               "ironic/api/controllers/v1/utils.py": IRONIC_UTILS,
                               "placement/handlers/trait.py": PLACEMENT_HANDLER})
    assert {g for g in found if g[1].startswith("cinder/api/v3")} == {
        ("3.40", "cinder/api/v3/volumes.py", 5, "decorator"),
        ("3.40", "cinder/api/v3/volumes.py", 7, "check")}
    assert ("1.52", "ironic/api/controllers/v1/utils.py", 3, "check") in found
    assert ("1.52", "ironic/api/controllers/v1/versions.py", 2, "constant") in found
    assert {g for g in found if g[1].startswith("placement")} == {
        ("1.6", "placement/handlers/trait.py", 2, "decorator"),
        ("1.15", "placement/handlers/trait.py", 5, "check")}


def test_gates_are_sorted_by_version(make_repo: Any) -> None:
    read, listing = make_repo({"nova/api/openstack/compute/servers.py": NOVA_API})
    versions = [g.version for g in version_gates(read, listing)]
    assert versions == sorted(versions) and versions[0] == Version(2, 1)


SETUP_CFG = """
[metadata]
name = masakari

[entry_points]
masakari.api.v1.extensions =
    segments = masakari.api.openstack.ha.segments:Segments
"""

SEGMENTS = """
from http import HTTPStatus

from masakari.api.openstack import extensions
from masakari.api.openstack.ha.schemas import segments as schema
from masakari.api.openstack import wsgi
from masakari.api import validation

ALIAS = 'segments'


class SegmentsController(wsgi.Controller):

    @extensions.expected_errors((HTTPStatus.BAD_REQUEST, HTTPStatus.FORBIDDEN))
    def index(self, req):
        pass

    @wsgi.response(HTTPStatus.CREATED)
    @extensions.expected_errors((HTTPStatus.FORBIDDEN, HTTPStatus.CONFLICT))
    @validation.schema(schema.create, '1.0', '1.1')
    @validation.schema(schema.create_v12, '1.2')
    def create(self, req, body):
        pass

    @wsgi.response(HTTPStatus.NO_CONTENT)
    @extensions.expected_errors(HTTPStatus.NOT_FOUND)
    def delete(self, req, id):
        pass


class Segments(extensions.V1APIExtensionBase):
    name = "Segments"
    alias = ALIAS

    def get_resources(self):
        member_actions = {'action': 'POST'}
        resources = [
            extensions.ResourceExtension(ALIAS, SegmentsController(),
                                         member_name='segment',
                                         member_actions=member_actions)]
        return resources
"""

MASAKARI = {
    "setup.cfg": SETUP_CFG,
    "masakari/__init__.py": "",
    "masakari/api/__init__.py": "",
    "masakari/api/api_version_request.py": "_MAX_API_VERSION = '1.3'\n",
    "masakari/api/validation/__init__.py": "",
    "masakari/api/openstack/__init__.py": "",
    "masakari/api/openstack/extensions.py": "class V1APIExtensionBase(object):\n    pass\n",
    "masakari/api/openstack/wsgi.py": "class Controller(object):\n    pass\n",
    "masakari/api/openstack/ha/__init__.py": "",
    "masakari/api/openstack/ha/segments.py": SEGMENTS,
    "masakari/api/openstack/ha/schemas/__init__.py": "",
    "masakari/api/openstack/ha/schemas/segments.py": (
        "import copy\ncreate = {'type': 'object'}\ncreate_v12 = copy.deepcopy(create)\n"
        "create_v12['properties'] = {'segment': {'type': 'object'}}\n"),
}


def test_masakari_routes(make_repo: Any) -> None:
    read, listing = make_repo(MASAKARI)
    contract = read_code_contract(read, listing, max_version=Version(1, 3))
    assert contract is not None and contract.project == "masakari"
    assert [(op.method, op.path) for op in contract.operations] == [
        ("GET", "/segments"), ("POST", "/segments"), ("DELETE", "/segments/{id}")]
    create = contract.operations[1].implementations[0]
    assert [d.value for d in create.codes] == [201]
    assert [d.value for d in create.errors] == [(403, 409)]
    assert [str(d.versions) for d in create.requests] == ["1.0 - 1.1", "1.2 -"]
    assert create.requests[1].value["properties"] == {"segment": {"type": "object"}}
    assert contract.document["info"]["version"] == "1.3"
    assert contract.unread == ()


def test_masakari_codes_from_http_client_and_names_it_cannot_read(make_repo: Any) -> None:
    """masakari before 2020 wrote `six.moves.http_client` constants (the standard
    library's `http.client`); a code the reader cannot compute is said, never sorted beside
    the numbers (a whole history of masakari stopped there with exit 3)."""
    segments = SEGMENTS.replace("from http import HTTPStatus",
                                "from six.moves import http_client\nfrom x import errors")
    segments = segments.replace(
        "(HTTPStatus.BAD_REQUEST, HTTPStatus.FORBIDDEN)",
        "(http_client.BAD_REQUEST, errors.ONE, errors.TWO)").replace("HTTPStatus.", "http_client.")
    read, listing = make_repo({**MASAKARI, "masakari/api/openstack/ha/segments.py": segments})
    contract = read_code_contract(read, listing, max_version=Version(1, 3))
    assert contract is not None
    index, create = (op.implementations[0] for op in contract.operations[:2])
    assert [d.value for d in create.errors] == [(403, 409)]
    assert [d.value for d in index.errors] == [(400,)]
    assert [u.reason for u in contract.unread] == [
        "an expected error code not read: (http_client.BAD_REQUEST, errors.ONE, errors.TWO)"]
    assert set(contract.document["paths"]["/segments"]["get"]["responses"]) >= {"400"}


VERSIONS = '''
from masakari.api.openstack import extensions
from masakari.api.openstack import wsgi


class VersionsController(wsgi.Controller):
    @extensions.expected_errors(404)
    def show(self, req, id='v1.0'):
        pass


class Versions(extensions.V1APIExtensionBase):
    """API Version information."""

    def get_resources(self):
        return [extensions.ResourceExtension('versions', VersionsController(),
                                             custom_routes_fn=self.version_map)]

    def version_map(self, mapper, wsgi_resource):
        self.map_path(mapper, wsgi_resource, '/')
        self.map_path(mapper, wsgi_resource, '')

    @staticmethod
    def map_path(mapper, wsgi_resource, path):
        mapper.connect("versions", path, controller=wsgi_resource,
                       action='show', conditions={"method": ['GET']})
'''


@pytest.mark.parametrize("readable", [True, False])
def test_masakari_custom_routes(make_repo: Any, readable: bool) -> None:
    """The versions extension's `custom_routes_fn` maps `/` and the empty path to `show`,
    through a static method called with literal paths: read so (with the standard routes of
    the resource); a function doing anything else is reported as not read."""
    versions = VERSIONS if readable else VERSIONS.replace(
        "self.map_path(mapper, wsgi_resource, '')", "for p in PATHS: self.map_path(mapper, "
        "wsgi_resource, p)")
    setup = SETUP_CFG + "    versions = masakari.api.openstack.ha.versionsV1:Versions\n"
    read, listing = make_repo({**MASAKARI, "setup.cfg": setup,
                               "masakari/api/openstack/ha/versionsV1.py": versions})
    contract = read_code_contract(read, listing, max_version=Version(1, 3))
    assert contract is not None
    routes = [(op.method, op.path) for op in contract.operations if "segments" not in op.path]
    if readable:
        assert routes == [("GET", "/"), ("GET", "/versions/{id}")]
        assert contract.unread == ()
    else:
        assert [u.reason for u in contract.unread] == [
            "routes added by custom_routes_fn are not read"]
