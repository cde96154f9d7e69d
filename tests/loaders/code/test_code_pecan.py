"""ironic's code contract, read statically: pecan's object dispatch from the v1 root (its
`_subcontroller_map`, or its controller attributes), each RestController's standard methods,
custom actions and sub-controllers, and the schema decorators with ironic's integer bounds;
judged by `check` (issue 35)."""

from __future__ import annotations

from pathlib import Path

from code_repos import write_repo
from repositories import Project, _init, check_reports

from needs_microversion.loaders.code.contract import read_code_contract

VERSIONS = "ironic/api/controllers/v1/versions.py"
NODE = "ironic/api/controllers/v1/node.py"
SCHEMAS = "ironic/api/schemas/v1/node.py"

ROOT_TEXT = """
from ironic.api.controllers.v1 import node
from ironic.api.controllers.v1 import port


class Controller(object):
    _subcontroller_map = {
        'nodes': node.NodesController(),
        'ports': port.PortsController,
    }
"""

NODE_TEXT = """
import pecan
from pecan import rest

from ironic.api.controllers.v1 import port
from ironic.api.controllers.v1 import versions
from ironic.api import method
from ironic.api.schemas.v1 import node as schema
from ironic.api import validation


class NodeStatesController(rest.RestController):
    _custom_actions = {'power': ['PUT']}

    @method.expose()
    def get(self, node_ident):
        return {}

    @method.expose()
    def power(self, node_ident, target, timeout=None):
        pass


class NodesController(rest.RestController):
    states = NodeStatesController()

    _custom_actions = {'detail': ['GET']}

    _subcontroller_map = {'ports': port.PortsController}

    @pecan.expose()
    def _lookup(self, ident, *remainder):
        pass

    @method.expose()
    @validation.request_query_schema(schema.index_query, None, 39)
    @validation.request_query_schema(schema.index_query_v40, 40)
    def get_all(self, fields=None):
        return {}

    @method.expose()
    def detail(self, fields=None):
        return {}

    @method.expose()
    def get_one(self, node_ident, fields=None):
        return {}

    @method.expose(status_code=201)
    @method.body('node')
    @validation.request_body_schema(schema.create_body)
    def post(self, node):
        return {}

    @method.expose()
    @validation.api_version(min_version=versions.MINOR_20_DELETE, message='not yet')
    def delete(self, node_ident):
        pass

    def _helper(self, node_ident):
        pass
"""

PORT_TEXT = """
from pecan import rest

from ironic.api import method


class PortsController(rest.RestController):
    def __init__(self, node_ident=None):
        self.parent_node_ident = node_ident

    @method.expose()
    def get_all(self):
        return {}

    @method.expose()
    def get_one(self, port_ident):
        return {}
"""

SCHEMA_TEXT = """
import copy

index_query = {'type': 'object', 'properties': {'limit': {'type': 'string'}}}
index_query_v40 = copy.deepcopy(index_query)
index_query_v40['properties']['owner'] = {'type': 'string'}
create_body = {'type': 'object', 'properties': {'name': {'type': 'string'}}}
"""


def versions_text(minor: int) -> str:
    return (f"BASE_VERSION = 1\n\nMINOR_20_DELETE = 20\nMINOR_MAX_VERSION = {minor}\n\n"
            "_MIN_VERSION_STRING = '{}.{}'.format(BASE_VERSION, 1)\n"
            "_MAX_VERSION_STRING = '{}.{}'.format(BASE_VERSION, MINOR_MAX_VERSION)\n")


IRONIC = {
    "ironic/__init__.py": "",
    "ironic/api/__init__.py": "",
    "ironic/api/method.py": "def expose(status_code=None):\n    return lambda f: f\n\n\n"
                            "def body(name):\n    return lambda f: f\n",
    "ironic/api/validation/__init__.py": "",
    "ironic/api/schemas/__init__.py": "",
    "ironic/api/schemas/v1/__init__.py": "",
    SCHEMAS: SCHEMA_TEXT,
    "ironic/api/controllers/__init__.py": "",
    "ironic/api/controllers/v1/__init__.py": ROOT_TEXT,
    NODE: NODE_TEXT,
    "ironic/api/controllers/v1/port.py": PORT_TEXT,
    VERSIONS: versions_text(45),
}


def test_the_routes_pecan_dispatches_to(tmp_path: Path) -> None:
    read, listing = write_repo(tmp_path, IRONIC)
    contract = read_code_contract(read, listing)
    assert contract is not None and contract.project == "ironic" and contract.unread == ()
    ops = {(op.method, op.path): op for op in contract.operations}
    assert set(ops) == {
        ("GET", "/nodes"), ("GET", "/nodes/detail"), ("GET", "/nodes/{node_ident}"),
        ("POST", "/nodes"),  # the body is no path segment
        ("DELETE", "/nodes/{node_ident}"),
        # an attribute controller: after get_one's identifier, which its methods take first
        ("GET", "/nodes/{node_ident}/states"), ("PUT", "/nodes/{node_ident}/states/power"),
        # `_lookup`'s map: the identifier goes to the constructor
        ("GET", "/nodes/{node_ident}/ports"), ("GET", "/nodes/{node_ident}/ports/{port_ident}"),
        ("GET", "/ports"), ("GET", "/ports/{port_ident}")}
    [index] = ops[("GET", "/nodes")].implementations
    assert [(str(d.versions), d.reference) for d in index.queries] == [
        ("- 1.39", "schema.index_query"), ("1.40 -", "schema.index_query_v40")]
    [delete] = ops[("DELETE", "/nodes/{node_ident}")].implementations
    assert str(delete.versions) == "1.20 -"  # ironic's integer bounds are 1.x


def _project(tmp_path: Path) -> Project:
    top = tmp_path / "ironic"
    history = "doc/source/contributor/webapi-version-history.rst"
    project = Project(top, VERSIONS, lambda v: versions_text(int(v.split(".")[1])), history)
    _init(top, {**IRONIC, history: "REST API Version History\n========================\n\n"
                "1.45 (Zed)\n----------\n\nLast.\n", "releasenotes/notes/.placeholder": ""},
          project)
    return project


def test_a_range_declared_where_the_method_checked_it_is_coverage(
        tmp_path: Path, run_cli, monkeypatch) -> None:
    project = _project(tmp_path)
    project.commit({NODE: project.edited(
        NODE, "    @method.expose()\n    def detail(self, fields=None):",
        "    @method.expose()\n    @validation.api_version(min_version=versions.MINOR_20_DELETE)"
        "\n    def detail(self, fields=None):")}, "declare detail's range")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 0, reports
    assert {c["id"] for c in reports["ironic code"]["changes"]} == {"range-declared"}


def test_a_contract_change_only_in_ironic_code_needs_a_microversion(
        tmp_path: Path, run_cli, monkeypatch) -> None:
    project = _project(tmp_path)
    project.commit({SCHEMAS: project.edited(
        SCHEMAS, "'properties': {'name': {'type': 'string'}}",
        "'properties': {'name': {'type': 'string'}, 'colour': {'type': 'string'}}")},
        "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    report = reports["ironic code"]
    assert [c["id"] for c in report["changes"] if not c["provided"]] == ["attribute-added"]
    assert report["bookkeeping"]["next_version"] == "1.46"


# -- zun: the root's controller attributes, versioned methods, its schema decorators --------

ZUN_CONTAINERS = """
import pecan

from zun.api.controllers import base
from zun.api.controllers.v1.schemas import containers as schema
from zun.api import validation


class ContainersController(base.Controller):
    _custom_actions = {'start': ['POST'], 'rename': ['POST']}

    @pecan.expose('json')
    @validation.validate_query_param(pecan.request, schema.query_param_list)
    def get_all(self, **kwargs):
        return {}

    @base.Controller.api_version("1.1", "1.19")
    @pecan.expose('json')
    @validation.validated(schema.legacy_container_create)
    def post(self, run=False, **container_dict):
        return {}

    @base.Controller.api_version("1.20")  # noqa
    @pecan.expose('json')
    @validation.validated(schema.container_create)
    def post(self, run=False, **container_dict):  # noqa
        return {}

    @pecan.expose('json')
    def start(self, container_ident, **kwargs):
        pass

    @pecan.expose('json')
    def rename(self, container_ident, name):
        pass
"""

ZUN = {
    "zun/__init__.py": "",
    "zun/api/__init__.py": "",
    "zun/api/validation/__init__.py": "",
    "zun/api/controllers/__init__.py": "",
    "zun/api/controllers/base.py": (
        "from pecan import rest\n\n\nclass Controller(rest.RestController):\n"
        "    @classmethod\n    def api_version(cls, min_ver, max_ver=None):\n"
        "        return lambda f: f\n"),
    "zun/api/controllers/versions.py": "CURRENT_MAX_VER = '1.42'\n",
    "zun/api/controllers/v1/__init__.py": (
        "from zun.api.controllers import base\n"
        "from zun.api.controllers.v1 import containers as container_controller\n\n\n"
        "class Controller(base.Controller):\n"
        "    containers = container_controller.ContainersController()\n"),
    "zun/api/controllers/v1/containers.py": ZUN_CONTAINERS,
    "zun/api/controllers/v1/schemas/__init__.py": "",
    "zun/api/controllers/v1/schemas/containers.py": (
        "legacy_container_create = {'type': 'object', 'properties': {'image': {}}}\n"
        "container_create = {'type': 'object', 'properties': {'image': {}, 'name': {}}}\n"
        "query_param_list = {'type': 'object', 'properties': {'all_projects': {}}}\n"),
}


def test_zun_routes_versions_and_schemas(tmp_path: Path) -> None:
    read, listing = write_repo(tmp_path, ZUN)
    contract = read_code_contract(read, listing)
    assert contract is not None and contract.project == "zun" and contract.unread == ()
    ops = {(op.method, op.path): op for op in contract.operations}
    assert set(ops) == {("GET", "/containers"), ("POST", "/containers"),
                        # a member's action: its id, then the action (`name` is a query)
                        ("POST", "/containers/{container_ident}/start"),
                        ("POST", "/containers/{container_ident}/rename")}
    [index] = ops[("GET", "/containers")].implementations
    assert [d.reference for d in index.queries] == ["schema.query_param_list"]
    first, second = ops[("POST", "/containers")].implementations
    assert [(str(i.versions), [d.reference for d in i.requests]) for i in (first, second)] == [
        ("1.1 - 1.19", ["schema.legacy_container_create"]),
        ("1.20 -", ["schema.container_create"])]


def test_controllers_that_reach_themselves_stop_and_say_so(tmp_path: Path) -> None:
    """A `_subcontroller_map` naming its own class ten times would be walked 10**6 times to
    the depth limit: the walk stops at its budget of controllers, reported."""
    import time

    entries = ", ".join(f"'x{n}': NodesController" for n in range(10))
    node = NODE_TEXT.replace("    _subcontroller_map = {'ports': port.PortsController}",
                             f"    _subcontroller_map = {{{entries}}}")
    read, listing = write_repo(tmp_path, {**IRONIC, NODE: node})
    started = time.monotonic()
    contract = read_code_contract(read, listing)
    assert time.monotonic() - started < 10
    assert contract is not None
    assert any("past 2000 controllers" in u.reason for u in contract.unread)
