"""Small nova-style repositories, written to a temporary folder and read as the tool reads a
revision: `read(path) -> bytes | None` and the tuple of its files."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

Repo = tuple[Callable[[str], "bytes | None"], tuple[str, ...]]

WSGI = """
class Controller(object):
    def __init__(self):
        self._view_builder = None

def api_version(min_version=None, max_version=None):
    def decorator(f):
        return f
    return decorator
"""

PARAMETER_TYPES = """
import copy
import functools

_CACHE = {}

def memorize(func):
    @functools.wraps(func)
    def memorizer(*args, **kwargs):
        return func(*args, **kwargs)
    return memorizer

def multi_params(schema):
    return {'type': 'array', 'items': schema}

def single_param(schema):
    ret = multi_params(schema)
    ret['maxItems'] = 1
    return ret

def _all_chars():
    for i in range(0xFFFF):
        yield chr(i)

@memorize
def _build_regex_range(ws=True, invert=False, exclude=None):
    regex = ""
    for c in _all_chars():
        regex += c
    return regex

class ValidationRegex(object):
    def __init__(self, regex, reason):
        self.regex = regex
        self.reason = reason

valid_description_regex = '^[%s]*$' % (_build_regex_range())
valid_name_regex = ValidationRegex(valid_description_regex, 'printable')

name = {'type': 'string', 'minLength': 1, 'maxLength': 255}
description = {'type': ['string', 'null'], 'pattern': valid_description_regex}
common_query_param = multi_params({'type': 'string'})
"""

SCHEMAS = """
import copy

from nova.api.validation import parameter_types

create = {
    'type': 'object',
    'properties': {
        'widget': {
            'type': 'object',
            'properties': {'name': parameter_types.name},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['widget'],
    'additionalProperties': False,
}

create_v22 = copy.deepcopy(create)
create_v22['properties']['widget']['properties']['size'] = {'type': 'integer'}

index_query = {
    'type': 'object',
    'properties': {'limit': parameter_types.single_param({'type': 'integer'})},
    'additionalProperties': True,
}
index_query_v24 = copy.deepcopy(index_query)
index_query_v24['additionalProperties'] = False

show_response = {'type': 'object', 'properties': {'widget': {'type': 'object'}}}
start = {'type': 'object', 'properties': {'os-start': {'type': 'null'}}}
"""

CONTROLLER = """
from nova.api.openstack.compute.schemas import widgets as schema
from nova.api.openstack import wsgi
from nova.api import validation

MIN_SIZE_VERSION = '2.2'


class WidgetsController(wsgi.Controller):

    @wsgi.expected_errors(())
    @validation.query_schema(schema.index_query, '2.1', '2.3')
    @validation.query_schema(schema.index_query_v24, '2.4')
    def index(self, req):
        return {}

    @wsgi.response(201)
    @wsgi.expected_errors((400, 409))
    @validation.schema(schema.create, '2.1', '2.1')
    @validation.schema(schema.create_v22, MIN_SIZE_VERSION)
    def create(self, req, body):
        return {}

    @wsgi.api_version('2.3')
    @wsgi.expected_errors(404)
    @validation.response_body_schema(schema.show_response)
    def show(self, req, id):
        return {}

    @wsgi.response(202)
    @wsgi.expected_errors((404, 409))
    @wsgi.action('os-start')
    @validation.schema(schema.start)
    def _start(self, req, id, body):
        pass


class WidgetActionsController(wsgi.Controller):

    @wsgi.response(202)
    @wsgi.expected_errors(404)
    @wsgi.action('os-stop')
    def _stop(self, req, id, body):
        pass

    @wsgi.expected_errors(410)
    @wsgi.removed('20.0.0', 'gone')
    @wsgi.action('os-melt')
    def _melt(self, req, id, body):
        pass
"""

ROUTES = """
import functools

from nova.api.openstack.compute import widgets
from nova.api.openstack import wsgi


def _create_controller(main_controller, action_controller_list):
    controller = wsgi.Resource(main_controller())
    for ctl in action_controller_list:
        controller.register_subcontroller_actions(ctl())
    return controller


widgets_controller = functools.partial(
    _create_controller, widgets.WidgetsController,
    [widgets.WidgetActionsController])

ROUTE_LIST = (
    ('', '/'),
    ('/widgets', {
        'GET': [widgets_controller, 'index'],
        'POST': [widgets_controller, 'create'],
    }),
    ('/widgets/{id}', {
        'GET': [widgets_controller, 'show'],
    }),
    ('/widgets/{id}/action', {
        'POST': [widgets_controller, 'action'],
    }),
)
"""

NOVA = {
    "nova/__init__.py": "",
    "nova/api/__init__.py": "",
    "nova/api/openstack/__init__.py": "",
    "nova/api/openstack/api_version_request.py": "_MAX_API_VERSION = '2.5'\n",
    "nova/api/openstack/wsgi.py": WSGI,
    "nova/api/validation/__init__.py": "",
    "nova/api/validation/parameter_types.py": PARAMETER_TYPES,
    "nova/api/openstack/compute/__init__.py": "",
    "nova/api/openstack/compute/schemas/__init__.py": "",
    "nova/api/openstack/compute/schemas/widgets.py": SCHEMAS,
    "nova/api/openstack/compute/widgets.py": CONTROLLER,
    "nova/api/openstack/compute/routes.py": ROUTES,
}


def write_repo(top: Path, files: dict[str, str]) -> Repo:
    for name, text in files.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))

    def read(path: str) -> bytes | None:
        target = top / path
        return target.read_bytes() if target.is_file() else None

    return read, tuple(sorted(files))


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[dict[str, str]], Repo]:
    """`make_repo({path: text})`: a repository of those files."""
    count = iter(range(1000))

    def make(files: dict[str, str]) -> Repo:
        return write_repo(tmp_path / f"repo{next(count)}", files)

    return make


@pytest.fixture
def nova_files() -> dict[str, str]:
    """A small nova: one controller with a sub-controller, schemas, routes."""
    return dict(NOVA)
