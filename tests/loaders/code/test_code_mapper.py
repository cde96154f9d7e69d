"""manila's code contract, read statically: `APIRouter._setup_routes`' `mapper.resource` and
`mapper.connect` calls (in their `path_prefix` loops), each controller from its module's
`create_resource()`, and nova's older decorators with manila's schema decorators; judged by
`check` like nova's (issue 35)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from code_repos import write_repo
from repositories import Project, _init, check_reports, exported

from needs_microversion.loaders.code.contract import read_code_contract

ROUTER = "manila/api/v2/router.py"
CONTROLLER = "manila/api/v2/widgets.py"
SCHEMAS = "manila/api/schemas/widgets.py"
VERSION_FILE = "manila/api/openstack/api_version_request.py"
HISTORY = "manila/api/openstack/rest_api_version_history.rst"

WSGI = """
class Controller(object):
    @staticmethod
    def api_version(min_ver, max_ver=None, experimental=False):
        def decorator(f):
            return f
        return decorator


class Resource(object):
    def __init__(self, controller):
        self.controller = controller


def action(name):
    def decorator(f):
        return f
    return decorator


def response(code):
    def decorator(f):
        return f
    return decorator
"""

SCHEMA_TEXT = """
import copy

create_request_body = {
    'type': 'object',
    'properties': {
        'widget': {
            'type': 'object',
            'properties': {'name': {'type': 'string'}},
            'additionalProperties': False,
        },
    },
    'required': ['widget'],
    'additionalProperties': False,
}

index_request_query = {
    'type': 'object',
    'properties': {'limit': {'type': 'array', 'maxItems': 1}},
    'additionalProperties': True,
}
"""

CONTROLLER_TEXT = """
from manila.api.openstack import wsgi
from manila.api.schemas import widgets as schema
from manila.api import validation

WIDGETS_MIN = '2.1'


class WidgetsController(wsgi.Controller):

    @wsgi.Controller.api_version('2.0', '2.2')
    def index(self, req):
        return {}

    @wsgi.Controller.api_version('2.3')  # noqa
    @validation.request_query_schema(schema.index_request_query)
    def index(self, req):  # noqa: F811
        return {}

    @wsgi.Controller.api_version(WIDGETS_MIN, experimental=True)
    @wsgi.response(202)
    @validation.request_body_schema(schema.create_request_body)
    def create(self, req, body):
        return {}

    def show(self, req, id):
        return {}

    def detail(self, req):
        return {}

    @wsgi.Controller.api_version('2.4')
    def colour(self, req, id):
        return {}

    @wsgi.action('os-reset_status')
    def _reset_status(self, req, id, body):
        pass

    @wsgi.Controller.api_version('2.2')
    @wsgi.action('force_delete')
    def _force_delete(self, req, id, body):
        pass


class TypesController(wsgi.Controller):

    def index(self, req):
        return {}

    @wsgi.action('create')
    def _create(self, req, body):
        return {}


def create_resource():
    return wsgi.Resource(WidgetsController())


def create_types_resource():
    return wsgi.Resource(TypesController())
"""

ROUTER_TEXT = """
from manila.api.v2 import widgets
import manila.api.openstack


class APIRouter(manila.api.openstack.APIRouter):

    def _setup_routes(self, mapper):
        self.resources["widgets"] = widgets.create_resource()
        mapper.resource("widget", "widgets",
                        controller=self.resources["widgets"],
                        collection={"detail": "GET"},
                        member={"action": "POST"})

        for path_prefix in ['/{project_id}', '']:
            # project_id is optional
            controller = self.resources["widgets"]
            mapper.connect("widgets",
                           "%s/widgets/{id}/colour" % path_prefix,
                           controller=controller,
                           action="colour",
                           conditions={"method": ["GET"]})
            mapper.connect("widgets",
                           "%s/widgets/{id}/missing" % path_prefix,
                           controller=controller,
                           action="no_such_method",
                           conditions={"method": ["GET"]})

        self.resources["types"] = widgets.create_types_resource()
        mapper.resource("type", "types", controller=self.resources["types"])
        mapper.redirect("", "/")
"""


def version_file(max_version: str) -> str:
    return (f'REST_API_VERSION_HISTORY = """\n    REST API Version History:\n\n'
            f'    * 2.0 - Initial version.\n"""\n\n'
            f'_MIN_API_VERSION = "2.0"\n_MAX_API_VERSION = "{max_version}"\n')


MANILA = {
    "manila/__init__.py": "",
    "manila/api/__init__.py": "",
    "manila/api/openstack/__init__.py": "class APIRouter(object):\n    pass\n",
    "manila/api/openstack/wsgi.py": WSGI,
    "manila/api/validation/__init__.py": (
        "def request_body_schema(schema, min_version=None, max_version=None):\n"
        "    return lambda f: f\n\n\n"
        "def request_query_schema(schema, min_version=None, max_version=None):\n"
        "    return lambda f: f\n"),
    "manila/api/schemas/__init__.py": "",
    "manila/api/v2/__init__.py": "",
    SCHEMAS: SCHEMA_TEXT,
    CONTROLLER: CONTROLLER_TEXT,
    ROUTER: ROUTER_TEXT,
    VERSION_FILE: version_file("2.5"),
}


def _operations(files: dict[str, str], top: Path) -> dict[tuple[str, str, str | None], Any]:
    read, listing = write_repo(top, files)
    contract = read_code_contract(read, listing)
    assert contract is not None and contract.project == "manila"
    return {(op.method, op.path, op.action): op for op in contract.operations}


def test_the_routes_the_router_maps(tmp_path: Path) -> None:
    ops = _operations(MANILA, tmp_path)
    assert set(ops) == {
        ("GET", "/types", None),
        ("POST", "/types", None),  # the action `create` serves it (manila's Resource)
        ("GET", "/widgets", None),
        ("POST", "/widgets", None),
        ("GET", "/widgets/detail", None),
        ("GET", "/widgets/{id}", None),
        ("POST", "/widgets/{id}/action", "force_delete"),
        ("POST", "/widgets/{id}/action", "os-reset_status"),
        ("GET", "/widgets/{id}/colour", None),  # once: with and without the project's id
    }
    index = ops[("GET", "/widgets", None)]
    assert [str(i.versions) for i in index.implementations] == ["2.0 - 2.2", "2.3 -"]
    assert index.implementations[1].queries[0].value["properties"]["limit"]["maxItems"] == 1
    [create] = ops[("POST", "/widgets", None)].implementations
    assert str(create.versions) == "2.1 -"  # an experimental range is still served
    assert create.requests[0].reference == "schema.create_request_body"
    assert [c.value for c in create.codes] == [202]
    assert str(ops[("GET", "/widgets/{id}/colour", None)].implementations[0].versions) == \
        "2.4 -"


def test_what_the_route_reader_cannot_follow_is_reported(tmp_path: Path) -> None:
    router = ROUTER_TEXT.replace(
        '        mapper.redirect("", "/")\n',
        '        if CONF.legacy:\n'
        '            mapper.resource("legacy", "legacy", controller=self.resources["types"])\n'
        '        mapper.connect("x", build_path(), controller=self.resources["types"],\n'
        '                       action="index", conditions={"method": ["GET"]})\n')
    read, listing = write_repo(tmp_path, {**MANILA, ROUTER: router})
    contract = read_code_contract(read, listing)
    assert contract is not None
    reasons = {(u.file, u.line): u.reason for u in contract.unread}
    lines = router.splitlines()
    condition = next(i for i, text in enumerate(lines, 1) if "if CONF.legacy" in text)
    connect = next(i for i, text in enumerate(lines, 1) if 'mapper.connect("x"' in text)
    assert "is not read" in reasons[(ROUTER, condition)]
    assert "mapper.connect" in reasons[(ROUTER, connect)]
    assert ("GET", "/widgets") in {(op.method, op.path) for op in contract.operations}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """manila-like, released at 2.5, its code declaring the widgets API."""
    top = tmp_path / "manila"
    project = Project(top, VERSION_FILE, version_file, HISTORY)
    _init(top, {**MANILA, HISTORY: "REST API Version History\n========================\n\n"
                "2.0\n---\n\nInitial.\n", "releasenotes/notes/.placeholder": ""}, project)
    project.tag("2.0.0")
    return project



COLOUR = ("'properties': {'name': {'type': 'string'}}",
          "'properties': {'name': {'type': 'string'}, 'colour': {'type': 'string'}}")


def test_a_contract_change_only_in_manila_code_needs_a_microversion(
        project: Project, run_cli, monkeypatch) -> None:
    project.commit({SCHEMAS: project.edited(SCHEMAS, *COLOUR)}, "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    report = reports["manila code"]
    assert [c["id"] for c in report["changes"] if not c["provided"]] == ["attribute-added"]
    assert report["bookkeeping"]["next_version"] == "2.6"


def test_the_same_change_done_right_and_a_refactor(project: Project, run_cli,
                                                    monkeypatch) -> None:
    schemas = project.edited(SCHEMAS, "index_request_query = {",
                             "create_request_body_v26 = copy.deepcopy(create_request_body)\n"
                             "create_request_body_v26['properties']['widget']['properties']"
                             "['colour'] = {'type': 'string'}\n\nindex_request_query = {")
    controller = project.edited(
        CONTROLLER, "    @validation.request_body_schema(schema.create_request_body)\n",
        "    @validation.request_body_schema(schema.create_request_body, '2.1', '2.5')\n"
        "    @validation.request_body_schema(schema.create_request_body_v26, '2.6')\n")
    project.commit({SCHEMAS: schemas, CONTROLLER: controller}, "colour at 2.6",
                   max_version="2.6", history="2.6", note="Adds colour in microversion 2.6.")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    [change] = [c for c in reports["manila code"]["changes"] if c["id"] == "attribute-added"]
    assert change["gated"] == "2.6" and change["provided"]
    renamed = {path: (project.top / path).read_text().replace("create_request_body",
                                                              "widget_create_body")
               for path in (SCHEMAS, CONTROLLER)}
    project.commit(renamed, "rename a schema")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0 and reports["manila code"]["changes"] == []


def test_the_code_contract_exports_as_openapi(project: Project, run_cli, monkeypatch,
                                              tmp_path: Path) -> None:
    document = exported(project, run_cli, monkeypatch, tmp_path / "manila.json")
    assert "/widgets/{id}/colour" in document["paths"]


# -- cinder: the same reader, `mapper.create_route`, `mv.` constants, `is_loaded` ---------

CINDER_ROUTER = """
from cinder.api.v3 import volumes


class APIRouter(object):

    def _setup_routes(self, mapper, ext_mgr):
        self.resources['volumes'] = volumes.create_resource(ext_mgr)
        mapper.resource("volume", "volumes",
                        controller=self.resources['volumes'],
                        collection={'detail': 'GET', 'summary': 'GET'},
                        member={'action': 'POST'})
        mapper.create_route(
            '/volumes/{id}/revert', 'POST', self.resources['volumes'], 'revert')

        if ext_mgr.is_loaded('os-services'):
            resource = volumes.create_resource(ext_mgr)
            mapper.create_route('/os-services', 'GET', resource, 'index')
"""

CINDER_CONTROLLER = """
from cinder.api import microversions as mv
from cinder.api.openstack import wsgi
from cinder.api.schemas import volumes as schema
from cinder.api import validation


class VolumeController(wsgi.Controller):

    def index(self, req):
        return {}

    @wsgi.response(202)
    @validation.schema(schema.create, mv.BASE_VERSION, mv.get_prior_version(mv.GROUP_VOLUME))
    @validation.schema(schema.create_v313, mv.GROUP_VOLUME)
    def create(self, req, body):
        return {}

    @wsgi.Controller.api_version(mv.VOLUME_SUMMARY)
    def summary(self, req):
        return {}

    @wsgi.Controller.api_version(mv.VOLUME_REVERT)
    def revert(self, req, id, body):
        return {}


def create_resource(ext_mgr):
    return wsgi.Resource(VolumeController())
"""

CINDER = {
    "cinder/__init__.py": "",
    "cinder/api/__init__.py": "",
    "cinder/api/microversions.py": (
        "BASE_VERSION = '3.0'\nGROUP_VOLUME = '3.13'\nVOLUME_SUMMARY = '3.12'\n"
        "VOLUME_REVERT = '3.40'\n\n\n"
        "def get_prior_version(version):\n"
        "    major, minor = version.split('.')\n"
        "    return '%s.%s' % (major, int(minor) - 1)\n"),
    "cinder/api/openstack/__init__.py": "",
    "cinder/api/openstack/wsgi.py": WSGI,
    "cinder/api/openstack/api_version_request.py": (
        '_MIN_API_VERSION = "3.0"\n_MAX_API_VERSION = "3.71"\n'),
    "cinder/api/validation/__init__.py": (
        "def schema(request_body_schema, min_version=None, max_version=None):\n"
        "    return lambda f: f\n"),
    "cinder/api/schemas/__init__.py": "",
    "cinder/api/schemas/volumes.py": (
        "import copy\n\ncreate = {'type': 'object', 'properties': {'volume': {'type': 'object'}}}"
        "\ncreate_v313 = copy.deepcopy(create)\n"
        "create_v313['properties']['group_id'] = {'type': 'string'}\n"),
    "cinder/api/v3/__init__.py": "",
    "cinder/api/v3/router.py": CINDER_ROUTER,
    "cinder/api/v3/volumes.py": CINDER_CONTROLLER,
    "cinder/api/extensions.py": (
        "class ExtensionDescriptor(object):\n    pass\n\n\n"
        "class ResourceExtension(object):\n"
        "    def __init__(self, collection, controller, parent=None,\n"
        "                 collection_actions=None, member_actions=None,\n"
        "                 custom_routes_fn=None):\n        self.collection = collection\n\n\n"
        "class ControllerExtension(object):\n"
        "    def __init__(self, extension, collection, controller):\n"
        "        self.collection = collection\n"),
    "cinder/api/contrib/__init__.py": "",
    "cinder/api/contrib/admin_actions.py": """
from cinder.api import extensions
from cinder.api.openstack import wsgi


class VolumeAdminController(wsgi.Controller):
    collection = 'volumes'

    @wsgi.action('os-force_delete')
    def _force_delete(self, req, id, body):
        pass


class BackupAdminController(wsgi.Controller):
    collection = 'backups'

    @wsgi.action('os-reset_status')
    def _reset_status(self, req, id, body):
        pass


class Admin_actions(extensions.ExtensionDescriptor):

    def get_controller_extensions(self):
        exts = []
        for class_ in (VolumeAdminController, BackupAdminController):
            controller = class_()
            extension = extensions.ControllerExtension(
                self, class_.collection, controller)
            exts.append(extension)
        return exts
""",
    "cinder/api/contrib/hosts.py": """
from cinder.api import extensions
from cinder.api.openstack import wsgi


class HostController(wsgi.Controller):
    def __init__(self, ext_mgr):
        self.ext_mgr = ext_mgr

    def index(self, req):
        return {}

    def delete(self, req, id):
        return {}


class Hosts(extensions.ExtensionDescriptor):
    alias = 'os-hosts'

    def get_resources(self):
        controller = HostController(self.ext_mgr)
        resources = [extensions.ResourceExtension(
            Hosts.alias, controller, collection_actions={'update': 'PUT'})]
        return resources
""",
}


def test_cinder_routes_and_bounds_from_its_constants(tmp_path: Path) -> None:
    read, listing = write_repo(tmp_path, CINDER)
    contract = read_code_contract(read, listing)
    assert contract is not None and contract.project == "cinder" and contract.unread == ()
    ops = {(op.method, op.path, op.action): op for op in contract.operations}
    assert set(ops) == {("GET", "/volumes", None), ("POST", "/volumes", None),
                        ("GET", "/volumes/summary", None),
                        ("POST", "/volumes/{id}/revert", None),
                        ("GET", "/os-services", None),
                        # the contrib extensions a default deployment loads
                        ("POST", "/volumes/{id}/action", "os-force_delete"),
                        ("POST", "/backups/{id}/action", "os-reset_status"),
                        ("GET", "/os-hosts", None), ("DELETE", "/os-hosts/{id}", None)}
    [create] = ops[("POST", "/volumes", None)].implementations
    assert [str(d.versions) for d in create.requests] == ["3.0 - 3.12", "3.13 -"]
    assert str(ops[("GET", "/volumes/summary", None)].implementations[0].versions) == "3.12 -"


def test_a_schema_declared_on_a_delete_is_coverage(tmp_path: Path, run_cli,
                                                   monkeypatch) -> None:
    """A DELETE whose controller reads a body (cinder's `force`) had an undeclared one: a
    schema declared for it describes what the code already took."""
    project = _cinder(tmp_path)
    hosts = "cinder/api/contrib/hosts.py"
    text = (project.top / hosts).read_text()
    text = text.replace("from cinder.api.openstack import wsgi\n",
                        "from cinder.api.openstack import wsgi\nfrom cinder.api import "
                        "validation\n\nDELETE = {'type': 'object', 'properties': "
                        "{'force': {'type': 'boolean'}}}\n")
    text = text.replace("    def delete(self, req, id):",
                        "    @validation.schema(DELETE)\n    def delete(self, req, id):")
    project.commit({hosts: text}, "a schema for DELETE /os-hosts/{id}")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    assert {c["id"] for c in reports["cinder code"]["changes"]} == {"schema-declared"}


def _cinder(tmp_path: Path) -> Project:
    top = tmp_path / "cinder"
    history = "cinder/api/openstack/rest_api_version_history.rst"

    def spell(max_version: str) -> str:
        return f'_MIN_API_VERSION = "3.0"\n_MAX_API_VERSION = "{max_version}"\n'

    project = Project(top, "cinder/api/openstack/api_version_request.py", spell, history)
    return _init(top, {**CINDER, project.version_file: spell("3.71"),
                       history: "REST API Version History\n========================\n\n"
                       "3.71\n----\n\nLast.\n", "releasenotes/notes/.placeholder": ""},
                 project)


def test_a_contract_change_only_in_cinder_code_needs_a_microversion(
        tmp_path: Path, run_cli, monkeypatch) -> None:
    project = _cinder(tmp_path)
    schemas = "cinder/api/schemas/volumes.py"
    coloured = project.edited(schemas, "{'volume': {'type': 'object'}}",
                              "{'volume': {'type': 'object'}, 'colour': {'type': 'string'}}")
    project.commit({schemas: coloured}, "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    report = reports["cinder code"]
    assert sorted({c["id"] for c in report["changes"] if not c["provided"]}) == [
        "attribute-added"]
    assert report["bookkeeping"]["next_version"] == "3.72"


def test_nested_loops_of_a_hostile_router_stop_and_say_so(tmp_path: Path) -> None:
    """Loops repeat their bodies: eight nested loops of 60 literal items would walk 10**14
    statements. The walk stops at its budget, reported, in well under a second."""
    import time

    loops = "".join(f"{'    ' * (2 + depth)}for x{depth} in [{', '.join(['0'] * 60)}]:\n"
                    for depth in range(8))
    router = ROUTER_TEXT.replace('        mapper.redirect("", "/")\n',
                                 loops + "    " * 10 + 'mapper.redirect("", "/")\n')
    read, listing = write_repo(tmp_path, {**MANILA, ROUTER: router})
    started = time.monotonic()
    contract = read_code_contract(read, listing)
    assert time.monotonic() - started < 5
    assert contract is not None
    assert any("past 50000 statements" in u.reason for u in contract.unread)
    assert ("GET", "/widgets") in {(op.method, op.path) for op in contract.operations}


def test_a_path_formatted_with_a_width_is_not_built(tmp_path: Path) -> None:
    """`"%999999999s" % path_prefix` would be a gigabyte of spaces: only `%s` is formatted."""
    router = ROUTER_TEXT.replace('"%s/widgets/{id}/colour" % path_prefix',
                                '"%999999999s/widgets/{id}/colour" % path_prefix')
    read, listing = write_repo(tmp_path, {**MANILA, ROUTER: router})
    contract = read_code_contract(read, listing)
    assert contract is not None
    assert any("mapper.connect" in u.reason for u in contract.unread)
    assert ("GET", "/widgets/{id}/colour") not in {(o.method, o.path) for o in contract.operations}
