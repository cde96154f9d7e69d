"""placement's code contract, read statically: `ROUTE_DECLARATIONS`' handler functions, their
`@microversion.version_handler` ranges, and the schema each range of microversions validates
with, read from the assignments and `matches(...)` conditions of the handler's body (also
through a function of its module it hands the schema to); judged by `check` (issue 35)."""

from __future__ import annotations

from pathlib import Path

from code_repos import write_repo
from repositories import Project, check_reports, placement_like

from needs_microversion.loaders.code.contract import read_code_contract

HANDLERS = "placement/handlers/widget.py"
SCHEMAS = "placement/schemas/widget.py"

HANDLER_TEXT = """
from placement.handlers import root
from placement.handlers import widget

ROUTE_DECLARATIONS = {
    '/': {
        'GET': root.home,
    },
    '/widgets': {
        'GET': widget.list_widgets,
        'POST': widget.create_widget,
    },
    '/widgets/{uuid}': {
        'PUT': widget.set_widget,
        'DELETE': widget.delete_widget,
    },
}
"""

WIDGET_TEXT = """
from placement import microversion
from placement.schemas import widget as schema
from placement import util

_GENERATION = (1, 5)


@microversion.version_handler('1.0', '1.2')
def set_widget(req):
    return _set_widget(req, schema.PUT_WIDGET)


@microversion.version_handler('1.3')  # noqa
def set_widget(req):  # noqa: F811
    return _set_widget(req, schema.PUT_WIDGET_1_3)


def _set_widget(req, put_schema):
    return util.extract_json(req.body, put_schema)


def list_widgets(req):
    want_version = req.environ[microversion.MICROVERSION_ENVIRON]
    query = schema.LIST_1_0
    if want_version.matches((1, 4)):
        query = schema.LIST_1_4
    elif want_version.matches((1, 2)):
        query = schema.LIST_1_2
    util.validate_query_params(req, query)
    return {}


def create_widget(req):
    want_version = req.environ[microversion.MICROVERSION_ENVIRON]
    generation = want_version.matches(min_version=_GENERATION)
    body_schema = schema.POST_WIDGET
    if generation:
        body_schema = schema.POST_WIDGET_1_5
    return util.extract_json(req.body, body_schema)


@microversion.version_handler('1.1')
def delete_widget(req):
    return None
"""

SCHEMA_TEXT = """
import copy

PUT_WIDGET = {'type': 'object', 'properties': {'name': {'type': 'string'}}}
PUT_WIDGET_1_3 = copy.deepcopy(PUT_WIDGET)
PUT_WIDGET_1_3['properties']['colour'] = {'type': 'string'}
LIST_1_0 = {'type': 'object', 'properties': {'name': {'type': 'string'}}}
LIST_1_2 = {'type': 'object', 'properties': {'name': {'type': 'string'},
                                              'limit': {'type': 'string'}}}
LIST_1_4 = copy.deepcopy(LIST_1_2)
LIST_1_4['properties']['member_of'] = {'type': 'string'}
POST_WIDGET = {'type': 'object', 'properties': {'name': {'type': 'string'}},
               'additionalProperties': False}
POST_WIDGET_1_5 = copy.deepcopy(POST_WIDGET)
POST_WIDGET_1_5['properties']['generation'] = {'type': 'integer'}
"""

PLACEMENT = {
    "placement/__init__.py": "",
    "placement/handler.py": HANDLER_TEXT,
    "placement/handlers/__init__.py": "",
    "placement/handlers/root.py": "def home(req):\n    return {}\n",
    HANDLERS: WIDGET_TEXT,
    "placement/schemas/__init__.py": "",
    SCHEMAS: SCHEMA_TEXT,
    "placement/util.py": ("def extract_json(body, schema):\n    return {}\n\n\n"
                          "def validate_query_params(req, schema):\n    pass\n"),
}
VERSIONS = ("VERSIONS = [\n" + "".join(f"    '1.{n}',\n" for n in range(6)) + "]\n\n\n"
            "def version_handler(min_ver, max_ver=None):\n    return lambda f: f\n")


def _contract(tmp_path: Path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    read, listing = write_repo(tmp_path, {**files, "placement/microversion.py": VERSIONS})
    contract = read_code_contract(read, listing)
    assert contract is not None and contract.project == "placement"
    return contract


def _ranges(declared) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(str(d.versions), d.reference) for d in declared]


def test_the_routes_and_the_schema_of_each_range(tmp_path: Path) -> None:
    contract = _contract(tmp_path, PLACEMENT)
    assert contract.unread == ()
    ops = {(op.method, op.path): op for op in contract.operations}
    assert set(ops) == {("GET", "/widgets"), ("POST", "/widgets"), ("PUT", "/widgets/{uuid}"),
                        ("DELETE", "/widgets/{uuid}")}
    [index] = ops[("GET", "/widgets")].implementations
    assert _ranges(index.queries) == [("- 1.1", "schema.LIST_1_0"),
                                      ("1.2 - 1.3", "schema.LIST_1_2"),
                                      ("1.4 -", "schema.LIST_1_4")]
    [create] = ops[("POST", "/widgets")].implementations
    assert _ranges(create.requests) == [("- 1.4", "schema.POST_WIDGET"),
                                        ("1.5 -", "schema.POST_WIDGET_1_5")]
    first, second = ops[("PUT", "/widgets/{uuid}")].implementations
    assert (str(first.versions), _ranges(first.requests)) == (
        "1.0 - 1.2", [("1.0 - 1.2", "schema.PUT_WIDGET")])
    assert (str(second.versions), _ranges(second.requests)) == (
        "1.3 -", [("1.3 -", "schema.PUT_WIDGET_1_3")])
    assert second.requests[0].value["properties"]["colour"] == {"type": "string"}
    [delete] = ops[("DELETE", "/widgets/{uuid}")].implementations
    assert str(delete.versions) == "1.1 -"


def test_a_condition_that_is_no_microversion_is_reported(tmp_path: Path) -> None:
    text = WIDGET_TEXT.replace("    if generation:\n", "    if req.GET.get('strict'):\n")
    contract = _contract(tmp_path, {**PLACEMENT, HANDLERS: text})
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "strict" in row)
    assert [(u.file, u.line) for u in contract.unread] == [(HANDLERS, line)]


def test_a_contract_change_only_in_placement_code_needs_a_microversion(
        tmp_path: Path, run_cli, monkeypatch) -> None:
    project: Project = placement_like(tmp_path / "placement")
    project.commit(PLACEMENT, "the widgets API", max_version="1.5")
    project.tag("2.0.0")  # 1.5 released: a change to it needs 1.6
    schemas = (project.top / SCHEMAS).read_text()
    project.commit({SCHEMAS: schemas.replace(
        "POST_WIDGET_1_5['properties']['generation'] = {'type': 'integer'}\n",
        "POST_WIDGET_1_5['properties']['generation'] = {'type': 'integer'}\n"
        "POST_WIDGET_1_5['properties']['colour'] = {'type': 'string'}\n")},
        "colour, no microversion")
    code, reports = check_reports(project, run_cli, monkeypatch)
    assert code == 1
    report = reports["placement code"]
    assert [c["id"] for c in report["changes"] if not c["provided"]] == ["attribute-added"]
    assert report["bookkeeping"]["next_version"] == "1.6"
