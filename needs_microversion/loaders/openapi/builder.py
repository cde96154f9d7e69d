"""OpenAPI 3.0/3.1 and Swagger 2.0 documents -> Snapshot.

The api-ref loader writes an OpenAPI 3.1 dictionary too (docs/contract-model.md), so this
module is where every input becomes the contract model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import Any

from needs_microversion.documents.locate import line_of
from needs_microversion.documents.refs import RefResolver
from needs_microversion.errors import InputError
from needs_microversion.loaders.openapi import security
from needs_microversion.loaders.openapi.keywords import DATA_KEYS, NAME_MAPS
from needs_microversion.loaders.openapi.normalise import SchemaTable, range_of
from needs_microversion.loaders.openapi.pathitems import METHODS, path_items
from needs_microversion.loaders.openapi.serialization import exploded, serialization
from needs_microversion.loaders.openapi.version_warnings import (
    Marks, openstack_nodes, walk_marks)
from needs_microversion.model.document import Document
from needs_microversion.model.extensions import (
    ACTION_NAME_KEY, ASIDES_KEY, EXAMPLE_BODIES_KEY, INFERRED_KEY, LOCATION_KEY, OPENSTACK_KEY,
    is_container, openstack_range, splits_by_action)
from needs_microversion.model.schema import RawSchema
from needs_microversion.model.snapshot import (
    Location, OpKey, Operation, Operations, Parameter, Response, Snapshot, path_shape, placeholders)
from needs_microversion.model.versions import ALL, Version, VersionRange, parse_version

# Ten times the largest real APIs (kubernetes ~1,100, github ~1,000 operations); 100,000
# took ~50 s and 0.6 GB to compare with themselves.
MAX_OPERATIONS = 10_000
_X_Y = re.compile(r"^\d+\.\d+$")
# Header parameters that OpenAPI says are ignored (they are governed elsewhere).
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
# The media types a Swagger 2.0 form (`in: formData`) can be sent as.
_FORM_MEDIA = ("multipart/form-data", "application/x-www-form-urlencoded")
_CONTAINERS = (dict, list)
# A local `$ref` as JSON or YAML writes it (YAML must quote it: `#` starts a comment).
_REF_IN_TEXT = re.compile(r"""\$ref["']?\s*:\s*["'](#[^"'\\]*)["']""")  # literal first: fast


class SnapshotBuilder:
    """Reads one OpenAPI-shaped document; `build()` returns its Snapshot."""

    def __init__(self, doc: Document, *, source: str = "openapi",
                 marks: Marks | None = None) -> None:
        self.doc = doc
        self.source = source
        self.marks = marks  # a made document's walk, kept with it (the code's): not redone
        self.resolver = RefResolver(doc)
        self.schemas = SchemaTable(self.resolver)
        data = doc.data
        if not isinstance(data, dict):
            raise InputError("not an OpenAPI or Swagger document (the top level is not a mapping)",
                             doc.display)
        self.data: Mapping[str, Any] = data
        self.swagger = _spec_version(data, doc)
        paths = data.get("paths")
        if isinstance(paths, dict):  # early, before the other side is read: path items
            # written in place (build() counts those behind a `$ref` too)
            _check_operations(sum(1 for item in paths.values() if isinstance(item, dict)
                                  for method in METHODS if method in item), doc)
        self._shared_params: dict[str, Parameter | None] = {}
        self._refs_checked = False

    # -- helpers -------------------------------------------------------------------------
    def where(self, pointer: tuple[str, ...], node: Any = None) -> Location:
        if isinstance(node, dict) and isinstance(node.get(LOCATION_KEY), str):
            return Location.parse(node[LOCATION_KEY], self.doc)
        return Location(self.doc.display, None, pointer)

    def deref(self, node: Any, pointer: tuple[str, ...], doc: Document | None = None
              ) -> tuple[Any, tuple[str, ...], Document]:
        doc = doc or self.doc
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target_doc, target, target_pointer = self.resolver.resolve(node["$ref"], doc)
            return target, target_pointer, target_doc
        return node, pointer, doc

    def expect_mapping(self, node: Any, pointer: tuple[str, ...], what: str) -> Mapping[str, Any]:
        if node is None:
            return {}
        if not isinstance(node, dict):
            raise InputError(f"{what} must be a mapping, not {type(node).__name__}",
                             self.doc.display, line_of(self.doc, pointer))
        return node

    # -- the document --------------------------------------------------------------------
    def build(self) -> Snapshot:
        # A document the tool made (an api-ref tree's, the code's) holds no `$ref`: the walk
        # that finds its microversions says so, and its refs are checked only if it does.
        refs: list[bool] = []
        walked = None if self.source == "openapi" or self.marks else openstack_nodes(self.doc, refs)
        if (walked is None and self.marks is None) or refs:
            self.check_refs()
        paths = self.expect_mapping(self.data.get("paths"), ("paths",), "'paths'")
        factories: dict[OpKey, Callable[[], Operation]] = {}
        bare: dict[OpKey, Callable[[], Operation]] = {}
        raws: dict[OpKey, Any] = {}
        # Action bodies split one operation into several: only documents that can say so
        # (x-openstack) are built eagerly; the others build an operation when it is compared.
        # A document the tool made (no `$ref`) is built eagerly only where a request body
        # is such a split: an operation the change leaves alone is then never built (nova's
        # api-ref, ~500 operations, and its code's are most of a `check`'s snapshot).
        eager = self.source != "openapi" or OPENSTACK_KEY in self.doc.text
        plain_made = walked is not None and not refs
        # What every operation inherits: a change here is a change to all of them.
        shared = (*(self.data.get(k) for k in ("security", "consumes", "produces")),
                  security.schemes(self.data, self.swagger))
        for path, action, item, item_pointer in path_items(self, paths):
            for method in METHODS:
                if method not in item:
                    continue
                op_pointer = (*item_pointer, method)
                raw_op = self.expect_mapping(item[method], op_pointer, f"operation {method} {path}")
                args = (path, action or None, method, item, raw_op, op_pointer)
                if eager and not (plain_made and not splits_by_action(raw_op)):
                    built = {op.key: op for op in self.operations(*args)}
                    made = {key: (lambda op=op: op) for key, op in built.items()}
                else:
                    key = OpKey(method.upper(), path_shape(path), action or None)
                    made = {key: partial(self.operation, args)}
                    bare[key] = partial(self.operation, args, parameters=False)
                _check_operations(len(factories) + len(made), self.doc)
                for key, factory in made.items():
                    if key in factories:
                        raise InputError(f"two operations share the shape {method.upper()} "
                                         f"{path}", self.doc.display, line_of(self.doc, op_pointer))
                    factories[key] = factory
                    raws[key] = (item.get("parameters"), raw_op, shared)
        # The document and every file its `$ref`s read (check_refs read them all).
        marks, warnings = (self.marks, ()) if self.marks else walk_marks(
            [(doc, walked if doc is self.doc else None) for doc in self.resolver.documents])
        return Snapshot(source=self.source, display=self.doc.display, document=self.doc,
                        max_version=self.max_version(marks.top), bounds=marks.bounds,
                        operations=Operations(factories, raws, bare), schemas=self.schemas,
                        warnings=warnings,
                        refs=None if walked is None and self.marks is None else bool(refs))

    def max_version(self, top: Version | None) -> Version | None:  # else the ranges' highest
        info = self.data.get("info")
        version = info.get("version") if isinstance(info, dict) else None
        text = getattr(version, "source_text", version)
        if isinstance(text, str) and _X_Y.match(text.strip()):
            return parse_version(text)
        return top

    def check_refs(self) -> None:
        """Resolve every `$ref` once, so dangling or escaping refs fail before any diff."""
        if self._refs_checked:
            return
        self._refs_checked = True
        if self.local_refs_resolve():
            return
        seen: set[tuple[str, str]] = set()
        pending: list[tuple[Any, Document, bool]] = [(self.data, self.doc, False)]
        while pending:
            node, doc, names = pending.pop()
            if type(node) is dict:  # plain JSON data: concrete type checks are much faster
                ref = node.get("$ref")
                if ref is not None and not names:
                    if not isinstance(ref, str):
                        raise InputError(f"$ref must be a string, not {ref!r}", doc.display)
                    if (str(doc.path), ref) not in seen:
                        seen.add((str(doc.path), ref))
                        target_doc, target, _ = self.resolver.resolve(ref, doc)
                        if target_doc is not doc and (str(target_doc.path), "#") not in seen:
                            seen.add((str(target_doc.path), "#"))
                            pending.append((target_doc.data, target_doc, False))
                for key, value in node.items():
                    if type(value) not in _CONTAINERS:
                        continue
                    if names:
                        pending.append((value, doc, False))
                    elif key not in DATA_KEYS and not (type(key) is str and key[:2] == "x-"):
                        pending.append((value, doc, key in NAME_MAPS))
            elif type(node) is list:
                pending.extend((value, doc, False) for value in node if type(value) in _CONTAINERS)

    def local_refs_resolve(self) -> bool:
        """Fast path: every `$ref` in the text is local and resolves. Only when one is not
        does the walk run (it knows a ref in schema structure from one inside example data)."""
        text = self.doc.text
        refs = _REF_IN_TEXT.findall(text)
        if not text or len(refs) != text.count("$ref"):
            return False
        try:
            for ref in set(refs):
                self.resolver.resolve(ref, self.doc)
        except InputError:
            return False
        return True

    # -- operations ----------------------------------------------------------------------
    def operation(self, args: tuple[str, str | None, str, Mapping[str, Any], Mapping[str, Any],
                                    tuple[str, ...]], *, parameters: bool = True) -> Operation:
        """The one operation of a raw operation that is not split by action."""
        return next(self.operations(*args, parameters=parameters))

    def operations(self, path: str, action: str | None, method: str, item: Mapping[str, Any],
                   raw_op: Mapping[str, Any], pointer: tuple[str, ...], *, parameters: bool = True
                   ) -> Iterator[Operation]:
        """`parameters=False`: built without them (see `Operations.without_parameters`)."""
        versions = openstack_range(raw_op)
        params = self.parameters(path, item, raw_op, pointer) if parameters else {}
        content, required = self.request_body(raw_op, params, pointer)
        responses = self.responses(raw_op, pointer)
        auth = security.requirements(raw_op, self.data, self.swagger, self.deref)
        location = self.where(pointer, raw_op)
        shape = path_shape(path)
        listed = raw_op.get(EXAMPLE_BODIES_KEY)
        shown = frozenset(k for k in listed if isinstance(k, str)) if isinstance(listed, list) \
            else frozenset()
        # Swagger 2.0 body and form parameters are the request body (`request_body`), not
        # parameters of the URL or headers.
        plain = {k: v for k, v in params.items() if k[0] not in ("body", "formData")}

        def make(act: str | None, body: Mapping[str, RawSchema | None], rng: VersionRange
                 ) -> Operation:
            return Operation(key=OpKey(method.upper(), shape, act), path=path, versions=rng,
                             parameters=plain, request_content=body, request_required=required,
                             responses=responses, security=auth, location=location,
                             description=_text(raw_op.get("summary"), raw_op.get("description"),
                                               raw_op.get(ASIDES_KEY)),
                             summary=_text(raw_op.get("summary")), example_bodies=shown)

        actions = list(self.split_actions(content))
        if not actions:
            yield make(action, content, versions)
            return
        for name, body, rng in actions:
            yield make(name, body, versions.intersect(rng))

    def split_actions(self, content: Mapping[str, RawSchema | None]
                      ) -> Iterator[tuple[str, Mapping[str, RawSchema | None], VersionRange]]:
        """`x-openstack: {discriminator: action}` bodies: one operation per action."""
        for media, raw in content.items():
            if raw is None:
                continue
            resolved = self.schemas.resolve(raw)
            node = resolved.node
            if not (isinstance(node, dict) and is_container(node, "action")):
                continue
            base = RawSchema(resolved.doc, node["oneOf"], (*resolved.pointer, "oneOf"))
            for i, variant in enumerate(node["oneOf"]):
                child = RawSchema(base.doc, variant, (*base.pointer, str(i)))
                target = self.schemas.resolve(child).node
                ext = target.get(OPENSTACK_KEY) if isinstance(target, dict) else None
                name = ext.get(ACTION_NAME_KEY) if isinstance(ext, dict) else None
                if not isinstance(name, str):
                    name = _single_key(target) or f"#{i}"
                rng = openstack_range(target) if isinstance(target, dict) else ALL
                if isinstance(target, dict) and is_container(target, "microversion"):
                    rng = ALL  # its variants carry the ranges of the body, not of the action
                yield name, {media: child}, rng
            return

    def parameters(self, path: str, item: Mapping[str, Any], raw_op: Mapping[str, Any],
                   pointer: tuple[str, ...]) -> dict[tuple[str, str], Parameter]:
        merged: dict[tuple[str, str], Parameter] = {}
        names = placeholders(path)
        sources = ((item.get("parameters"), (*pointer[:-1], "parameters")),
                   (raw_op.get("parameters"), (*pointer, "parameters")))
        for params, params_pointer in sources:
            if params is None:
                continue
            if not isinstance(params, list):
                raise InputError("'parameters' must be a list", self.doc.display,
                                 line_of(self.doc, params_pointer))
            for i, raw in enumerate(params):
                param = self.parameter(raw, (*params_pointer, str(i)))
                if param is None:
                    continue
                for one in exploded(param, self.schemas) or (param,):
                    merged[_param_key(one, names)] = one  # an operation's entries win
        for i, name in enumerate(names):
            # A placeholder nobody declared is still part of the URL, and a URL segment is a
            # string: declaring it later as a required string documents it, changes nothing.
            merged.setdefault(("path", str(i)), Parameter(
                name=name, where="path", required=True,
                schema=RawSchema(self.doc, {"type": "string"}, pointer), serialization={},
                versions=ALL, location=self.where(pointer, raw_op)))
        return merged

    def parameter(self, raw: Any, pointer: tuple[str, ...]) -> Parameter | None:
        ref = raw.get("$ref") if type(raw) is dict else None
        if type(ref) is str:  # shared parameters (Kubernetes uses a few thousand times)
            if ref not in self._shared_params:
                self._shared_params[ref] = self._parameter(raw, pointer)
            return self._shared_params[ref]
        return self._parameter(raw, pointer)

    def _parameter(self, raw: Any, pointer: tuple[str, ...]) -> Parameter | None:
        node, node_pointer, doc = self.deref(raw, pointer)
        node = self.expect_mapping(node, node_pointer, "a parameter")
        name, where = node.get("name"), node.get("in")
        if not isinstance(name, str) or where not in ("path", "query", "header", "cookie",
                                                       "body", "formData"):
            raise InputError("a parameter needs a string 'name' and a valid 'in'",
                             self.doc.display, line_of(self.doc, pointer))
        if where == "header" and name.lower() in _IGNORED_HEADERS:
            return None
        sent = serialization(where, node)
        schema: RawSchema | None
        if where in ("body",):
            schema = self.raw_schema(node.get("schema"), (*node_pointer, "schema"), doc)
        elif "schema" in node:
            schema = self.raw_schema(node["schema"], (*node_pointer, "schema"), doc)
        elif isinstance(node.get("content"), dict) and node["content"]:
            media, media_obj = next(iter(node["content"].items()))
            sent["content"] = str(media)
            schema = self.raw_schema(media_obj.get("schema") if isinstance(media_obj, dict)
                                     else None, (*node_pointer, "content", str(media), "schema"),
                                     doc)
        else:  # Swagger 2.0: the parameter itself carries type/format/enum/items
            schema = RawSchema(doc, node, node_pointer)
        versions = openstack_range(node)
        if schema is not None and isinstance(schema.node, dict):
            versions = versions.intersect(range_of(self.schemas.resolve(schema).node))
        return Parameter(name=name, where=where, required=node.get("required") is True,
                         schema=schema, serialization=sent, versions=versions,
                         location=self.where(node_pointer, node),
                         inferred=bool(node.get(INFERRED_KEY)),
                         description=_text(node.get("description")))

    def raw_schema(self, node: Any, pointer: tuple[str, ...], doc: Document | None = None
                   ) -> RawSchema | None:
        if node is None:
            return None
        if not isinstance(node, (dict, bool)):
            raise InputError("a schema must be a mapping", self.doc.display,
                             line_of(self.doc, pointer))
        return RawSchema(doc or self.doc, node, pointer)

    def media_types(self, raw_op: Mapping[str, Any], key: str, pointer: tuple[str, ...]
                    ) -> list[Any]:
        """Swagger 2.0 `consumes`/`produces`: the operation's, else the document's."""
        for node, where in ((raw_op.get(key), (*pointer, key)), (self.data.get(key), (key,))):
            if node is not None and not isinstance(node, list):
                raise InputError(f"'{key}' must be a list of media types", self.doc.display,
                                 line_of(self.doc, where))
            if node:
                return node
        return ["application/json"]

    def request_body(self, raw_op: Mapping[str, Any], params: Mapping[tuple[str, str], Parameter],
                     pointer: tuple[str, ...]) -> tuple[dict[str, RawSchema | None], bool]:
        if self.swagger:
            consumes = [_media(m) for m in self.media_types(raw_op, "consumes", pointer)]
            body = [p for k, p in params.items() if k[0] == "body"]
            form = [p for k, p in params.items() if k[0] == "formData"]
            if body:
                return dict.fromkeys(consumes, body[0].schema), body[0].required
            if form:
                return self.form_body(form, consumes, pointer)
            return {}, False
        request = raw_op.get("requestBody")
        if request is None:
            return {}, False
        node, node_pointer, doc = self.deref(request, (*pointer, "requestBody"))
        node = self.expect_mapping(node, node_pointer, "requestBody")
        return self.content(node.get("content"), (*node_pointer, "content"), doc), bool(
            node.get("required"))

    def form_body(self, form: list[Parameter], consumes: list[str], pointer: tuple[str, ...]
                  ) -> tuple[dict[str, RawSchema | None], bool]:
        """Swagger 2.0 `in: formData` parameters: the fields of a form body, written as the
        object schema OpenAPI 3 gives them, so that migrating the document changes nothing."""
        fields = {p.name: self.form_field(p.schema) for p in form if p.schema is not None}
        schema = {"type": "object", "properties": fields,
                  "required": sorted(p.name for p in form if p.required)}
        # Swagger allows only the two form media types here; `consumes` picks among them.
        media = [m for m in consumes if m in _FORM_MEDIA]
        if not media:  # consumes is left at a JSON default: files need multipart
            binary = any(field.get("format") == "binary" for field in fields.values())
            media = ["multipart/form-data" if binary else "application/x-www-form-urlencoded"]
        raw = RawSchema(self.doc, schema, (*pointer, "parameters"))
        return dict.fromkeys(media, raw), any(p.required for p in form)

    def form_field(self, param: RawSchema) -> Mapping[str, Any]:
        node = _form_field(param.node)
        line = line_of(param.doc, param.pointer) if param.doc is self.doc else None
        if line is None or LOCATION_KEY in node:
            return node
        # The form schema is made up, so its pointers name no text: point at the parameter.
        return {**node, LOCATION_KEY: f":{line}"}

    def content(self, content: Any, pointer: tuple[str, ...], doc: Document
                ) -> dict[str, RawSchema | None]:
        content = self.expect_mapping(content, pointer, "'content'")
        result: dict[str, RawSchema | None] = {}
        for media, media_obj in content.items():
            media_obj = self.expect_mapping(media_obj, (*pointer, str(media)), "a media type")
            result[_media(media)] = self.raw_schema(media_obj.get("schema"),
                                                    (*pointer, str(media), "schema"), doc)
        return result

    def responses(self, raw_op: Mapping[str, Any], pointer: tuple[str, ...]
                  ) -> dict[str, Response]:
        responses = self.expect_mapping(raw_op.get("responses"), (*pointer, "responses"),
                                        "'responses'")
        produces = self.media_types(raw_op, "produces", pointer) if self.swagger else []
        result: dict[str, Response] = {}
        for code, raw in responses.items():
            status = str(code).upper() if str(code).lower() != "default" else "default"
            if status.startswith("X-"):
                continue  # an extension, not a status code
            node, node_pointer, doc = self.deref(raw, (*pointer, "responses", str(code)))
            node = self.expect_mapping(node, node_pointer, f"response {code}")
            if self.swagger:
                schema = self.raw_schema(node.get("schema"), (*node_pointer, "schema"), doc)
                content: dict[str, RawSchema | None] = (
                    {_media(m): schema for m in produces} if schema is not None else {})
            else:
                content = self.content(node.get("content"), (*node_pointer, "content"), doc)
            headers: dict[str, Parameter] = {}
            raw_headers = self.expect_mapping(node.get("headers"), (*node_pointer, "headers"),
                                              "'headers'")
            for name, header in raw_headers.items():
                if str(name).lower() == "content-type":
                    continue
                header_node, header_pointer, header_doc = self.deref(
                    header, (*node_pointer, "headers", str(name)), doc)
                header_node = self.expect_mapping(header_node, header_pointer, f"header {name}")
                param = self.parameter({**header_node, "name": str(name), "in": "header"},
                                       header_pointer)
                if param is not None:
                    headers[str(name).lower()] = param
            result[status] = Response(status=status, versions=openstack_range(node),
                                      headers=headers, content=content,
                                      location=self.where(node_pointer, node),
                                      description=_text(node.get("description")))
        return result


def load_openapi(doc: Document, *, source: str = "openapi", marks: Marks | None = None
                 ) -> Snapshot:
    return SnapshotBuilder(doc, source=source, marks=marks).build()


def _check_operations(count: int, doc: Document) -> None:
    if count > MAX_OPERATIONS:
        raise InputError(f"has more than {MAX_OPERATIONS} operations (the limit)", doc.display)


def _spec_version(data: Mapping[str, Any], doc: Document) -> bool:
    """True for Swagger 2.0, False for OpenAPI 3.x; anything else is refused."""
    if "openapi" in data:
        version = str(getattr(data["openapi"], "source_text", data["openapi"]))
        if re.match(r"^3\.[01](\.\d+)?(-.*)?$", version):
            return False
        raise InputError(f"unsupported OpenAPI version {version!r} (3.0 and 3.1 are read)",
                         doc.display, line_of(doc, ("openapi",)))
    if "swagger" in data:
        version = str(getattr(data["swagger"], "source_text", data["swagger"]))
        if version == "2.0":
            return True
        raise InputError(f"unsupported Swagger version {version!r} (2.0 is read)", doc.display,
                         line_of(doc, ("swagger",)))
    raise InputError("not an OpenAPI or Swagger document (no 'openapi' or 'swagger' key)",
                     doc.display)


def _param_key(param: Parameter, placeholders: list[str]) -> tuple[str, str]:
    """Path parameters by position (a renamed placeholder is the same parameter), headers
    whatever their case."""
    if param.where == "path" and param.name in placeholders:
        return "path", str(placeholders.index(param.name))
    if param.where == "header":
        return "header", param.name.lower()
    return param.where, param.name


def _text(*parts: Any) -> str:
    return "\n".join(part for part in parts if isinstance(part, str))


def _media(media: Any) -> str:
    # Parameters such as charset don't change the contract's shape.
    return str(media).split(";", 1)[0].strip().lower()


def _form_field(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """A formData parameter as a form field: Swagger's `type: file` is what OpenAPI 3 writes
    `{type: string, format: binary}`; the parameter's other keys are schema keys or ignored."""
    if node.get("type") != "file":
        return node
    return {**node, "type": "string", "format": "binary"}


def _single_key(node: Any) -> str | None:
    props = node.get("properties") if isinstance(node, dict) else None
    return next(iter(props)) if isinstance(props, dict) and len(props) == 1 else None

