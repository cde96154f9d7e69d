"""nova's route table and decorators, read statically, and the OpenAPI document made of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from needs_microversion.loaders.code.contract import read_code_contract
from needs_microversion.model.extensions import QUERY_KEY, REMOVED_KEY, UNDECLARED_KEY
from needs_microversion.loaders.openapi.builder import load_openapi
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import LOCATION_KEY, OPENSTACK_KEY
from needs_microversion.model.snapshot import OpKey
from needs_microversion.model.versions import Version, VersionRange

from code_repos import make_repo, nova_files

__all__ = ["make_repo", "nova_files"]  # the fixtures

CONTROLLER = "nova/api/openstack/compute/widgets.py"


def _contract(make_repo: Any, files: dict[str, str]) -> Any:
    read, listing = make_repo(files)
    # The version file's maximum, as the caller reads it with the repository's evidence.
    contract = read_code_contract(read, listing, max_version=Version(2, 5))
    assert contract is not None
    return contract


def _strip(value: Any) -> Any:
    """Without locations: the same contract written on other lines."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in (LOCATION_KEY, "summary")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def test_routes_actions_and_ranges(make_repo: Any, nova_files: dict[str, str]) -> None:
    contract = _contract(make_repo, nova_files)
    keys = [(op.method, op.path, op.action) for op in contract.operations]
    assert keys == [("GET", "/widgets", None), ("POST", "/widgets", None),
                    ("GET", "/widgets/{id}", None),
                    ("POST", "/widgets/{id}/action", "os-melt"),
                    ("POST", "/widgets/{id}/action", "os-start"),
                    ("POST", "/widgets/{id}/action", "os-stop")]
    create = contract.operations[1].implementations[0]
    assert [(d.reference, str(d.versions)) for d in create.requests] == [
        ("schema.create", "2.1 - 2.1"), ("schema.create_v22", "2.2 -")]
    assert [d.value for d in create.codes] == [201]
    assert [d.value for d in create.errors] == [(400, 409)]
    show = contract.operations[2].implementations[0]
    assert show.versions == VersionRange(Version(2, 3), None)
    assert contract.operations[3].implementations[0].removed == "20.0.0"
    assert contract.unread == ()
    assert contract.document["info"]["version"] == "2.5"


def test_schemas_are_evaluated(make_repo: Any, nova_files: dict[str, str]) -> None:
    contract = _contract(make_repo, nova_files)
    create = contract.operations[1].implementations[0]
    widget = create.requests[1].value["properties"]["widget"]
    assert widget["properties"] == {"name": {"type": "string", "minLength": 1,
                                             "maxLength": 255}, "size": {"type": "integer"}}
    # the copy was edited, not the original
    assert "size" not in create.requests[0].value["properties"]["widget"]["properties"]


def test_document_encoding(make_repo: Any, nova_files: dict[str, str]) -> None:
    paths = _contract(make_repo, nova_files).document["paths"]
    assert set(paths) == {"/widgets", "/widgets/{id}", "/widgets/{id}/action#os-start",
                          "/widgets/{id}/action#os-stop", "/widgets/{id}/action#os-melt"}
    create = paths["/widgets"]["post"]
    body = create["requestBody"]["content"]["application/json"]["schema"]
    assert body[OPENSTACK_KEY] == {"discriminator": "microversion"}
    assert [v.get(OPENSTACK_KEY) for v in body["oneOf"]] == [
        {"max-ver": "2.0"}, {"min-ver": "2.1", "max-ver": "2.1"}, {"min-ver": "2.2"}]
    assert body["oneOf"][0][UNDECLARED_KEY] is True  # nothing declared below 2.1
    assert body["oneOf"][2][LOCATION_KEY] == f"{CONTROLLER}:20"
    assert set(create["responses"]) == {"201", "400", "409"}
    # GET: the query schemas as parameters, and as written (additionalProperties flips)
    index = paths["/widgets"]["get"]
    query = index[QUERY_KEY]["oneOf"]
    assert [v.get("additionalProperties") for v in query] == [None, True, False]
    assert [p["name"] for p in index["parameters"]] == ["limit"]
    assert _strip(index["parameters"][0]["schema"]) == {
        "type": "array", "items": {"type": "integer"}, "maxItems": 1}
    # no response schema declared: the success body says so, and a default 200
    assert paths["/widgets"]["post"]["responses"]["201"]["content"]["application/json"][
        "schema"][UNDECLARED_KEY] is True
    assert "200" in paths["/widgets/{id}"]["get"]["responses"]
    melt = paths["/widgets/{id}/action#os-melt"]["post"]
    assert melt[REMOVED_KEY] == "20.0.0"
    assert set(melt["responses"]) == {"410"}  # a removed method never succeeds
    # a GET declares no body at all (not "undeclared")
    assert "requestBody" not in index


def test_document_loads_as_a_snapshot(make_repo: Any, nova_files: dict[str, str],
                                      tmp_path: Path) -> None:
    data = _contract(make_repo, nova_files).document
    doc = Document(path=tmp_path, display="code", root=tmp_path, text="", data=data,
                   format="code")
    snapshot = load_openapi(doc, source="code")
    ops = {key: snapshot.operations[key] for key in snapshot.operations}
    assert OpKey("POST", "/widgets/{}/action", "os-stop") in ops
    show = ops[OpKey("GET", "/widgets/{}", None)]
    assert show.versions == VersionRange(Version(2, 3), None)
    assert snapshot.max_version == Version(2, 5)
    location = ops[OpKey("POST", "/widgets", None)].location
    create = nova_files[CONTROLLER].splitlines().index("    def create(self, req, body):") + 1
    assert (location.file, location.line) == (CONTROLLER, create)  # the method's `def`


@pytest.mark.parametrize("order", ["reversed", "shuffled"])
def test_decorator_order_changes_nothing(make_repo: Any, nova_files: dict[str, str],
                                         order: str) -> None:
    lines = nova_files[CONTROLLER].splitlines()
    start = lines.index("    @wsgi.response(201)")
    block = lines[start:start + 4]
    block = block[::-1] if order == "reversed" else [block[3], block[1], block[0], block[2]]
    moved = dict(nova_files)
    moved[CONTROLLER] = "\n".join(lines[:start] + block + lines[start + 4:])
    assert _strip(_contract(make_repo, moved).document) == _strip(
        _contract(make_repo, nova_files).document)


def test_versioned_methods_are_all_kept(make_repo: Any, nova_files: dict[str, str]) -> None:
    files = dict(nova_files)
    files[CONTROLLER] += """

class OldController(wsgi.Controller):

    @wsgi.Controller.api_version('2.1', '2.9')
    @wsgi.expected_errors(404)
    def show(self, req, id):
        pass

    @wsgi.Controller.api_version('2.10')  # noqa
    @wsgi.expected_errors((404, 409))
    @validation.query_schema(schema.index_query)
    def show(self, req, id):  # noqa
        pass

    @wsgi.Controller.api_version('2.31')  # noqa
    @wsgi.Controller.api_version('2.31', '2.40')  # noqa
    def index(self, req):
        pass
"""
    files["nova/api/openstack/compute/routes.py"] += """
old_controller = functools.partial(_create_controller, widgets.OldController, [])
ROUTE_LIST = ROUTE_LIST + (
    ('/old/{id}', {'GET': [old_controller, 'show']}),
    ('/old', {'GET': [old_controller, 'index']}),
)
"""
    contract = _contract(make_repo, files)
    ops = {(op.method, op.path): op for op in contract.operations}
    show = ops["GET", "/old/{id}"].implementations
    assert [str(i.versions) for i in show] == ["2.1 - 2.9", "2.10 -"]
    assert [[d.value for d in i.errors] for i in show] == [[(404,)], [(404, 409)]]
    assert [str(i.versions) for i in ops["GET", "/old"].implementations] == [
        "2.31 - 2.40", "2.31 -"]
    operation = contract.document["paths"]["/old/{id}"]["get"]
    assert operation["responses"]["409"][OPENSTACK_KEY] == {"min-ver": "2.10"}
    query = operation[QUERY_KEY]["oneOf"]
    assert [q.get(UNDECLARED_KEY) for q in query] == [True, None]


def test_a_repository_without_routes(make_repo: Any) -> None:
    read, listing = make_repo({"setup.py": "print('hello')\n"})
    assert read_code_contract(read, listing) is None


def test_unreadable_pieces_are_reported(make_repo: Any, nova_files: dict[str, str]) -> None:
    files = dict(nova_files)
    files["nova/api/openstack/compute/schemas/widgets.py"] += (
        "\nimport oslo_thing\nshow_response = oslo_thing.make_schema()\n")
    contract = _contract(make_repo, files)
    assert [(u.file, u.reason) for u in contract.unread] == [
        ("nova/api/openstack/compute/schemas/widgets.py",
         "a call to oslo_thing.make_schema (outside the repository)")]
    show = contract.document["paths"]["/widgets/{id}"]["get"]["responses"]["200"]
    schema = show["content"]["application/json"]["schema"]
    assert schema["allOf"][0]["x-needs-microversion-opaque"].startswith("a call to oslo_thing")


def test_nothing_is_bounded_below_the_first_microversion(
        make_repo: Any, nova_files: dict[str, str]) -> None:
    """With `_MIN_API_VERSION = '2.1'`, what starts at 2.1 starts nowhere (no lower bound),
    and an alternative that ends below it (the undeclared "before 2.1") is not written."""
    files = {**nova_files, "nova/api/openstack/api_version_request.py":
             "_MIN_API_VERSION = '2.1'\n_MAX_API_VERSION = '2.5'\n"}
    paths = _contract(make_repo, files).document["paths"]
    body = paths["/widgets"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert [v.get(OPENSTACK_KEY) for v in body["oneOf"]] == [
        {"max-ver": "2.1"}, {"min-ver": "2.2"}]
    assert not any(v.get(UNDECLARED_KEY) for v in body["oneOf"])
    assert paths["/widgets/{id}"]["get"][OPENSTACK_KEY] == {"min-ver": "2.3"}
    assert OPENSTACK_KEY not in paths["/widgets"]["get"]


@pytest.mark.parametrize("edit, told", [
    (lambda text: text, True),
    # the code's data holds a `$ref` (or an `x-openstack`): the document is walked instead
    (lambda text: text.replace("'required': ['name'],", "'required': ['name'], "
                               "'$ref': '#/definitions/widget',"), False),
    (lambda text: text.replace("'required': ['name'],", "'required': ['name'], "
                               "'x-openstack': {'min-ver': '2.3'},"), False),
])
def test_the_writer_tells_the_marks_a_walk_finds(make_repo: Any, nova_files: dict[str, str],
                                                 edit: Any, told: bool) -> None:
    from needs_microversion.loaders.openapi.version_warnings import marks_of

    schemas = "nova/api/openstack/compute/schemas/widgets.py"
    files = {**nova_files, schemas: edit(nova_files[schemas]),
             "nova/api/openstack/api_version_request.py":
             "_MIN_API_VERSION = '2.1'\n_MAX_API_VERSION = '2.5'\n"}
    contract = _contract(make_repo, files)
    top = Path("/", "code")
    walked = marks_of(Document(path=top, display="code:", root=top, text="",
                               data=contract.document, format="code"))
    assert (contract.marks is not None) is told
    if told:
        assert contract.marks == walked and walked is not None
        assert walked.bounds  # the fixture's ranges start and stop somewhere
