"""Edits to a project's API code, located with `ast` and applied as text.

* `find_handler`: the module, class and method serving an api-ref operation (nova: its
  `routes.py` table and `@wsgi.action` names; the others: the module named after the URL's
  resource and the method named after the HTTP verb, pecan's `get_all`/`get_one`/`post`...).
* `SchemaEditor` (nova, masakari): the JSON schema a handler's decorator names, read by
  executing the schema module with every import stubbed (only to learn the structure:
  where the wrapper's properties are, what is required), then edited the way nova does:
  the property added in place (a forgotten microversion) or a `_vNNN` copy made with
  `copy.deepcopy` plus a decorator split on the new version (done right).
* `handler_edit`: the statements a contributor adds to the handler (read a new field,
  add a response key, raise a 409), gated with the project's idiom when done right.
* `refactor`: code-only changes that keep the contract (a local renamed, a schema fragment
  moved to a module constant, two same-kind decorators swapped, quotes normalised).

Every edited module is checked with `ast.parse`; an edit that does not parse is refused.
"""

from __future__ import annotations

import ast
import builtins
import copy
import posixpath
import random
import re
import types
from dataclasses import dataclass

from benchmarks.known_truth.git import Repo
from benchmarks.known_truth.projects import CodeGate, Profile, Version, vstr


class EditError(RuntimeError):
    pass


def parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


# ---------------------------------------------------------------------------------------
# Finding the handler


@dataclass
class Handler:
    module: str  # repository path
    cls: str | None
    func: str
    how: str  # how it was found (routes, action, name)


def _norm_url(url: str) -> str:
    path = url.split("?", 1)[0].rstrip("/")
    path = re.sub(r"^/v\d+(\.\d+)?(?=/|$)", "", path)
    path = re.sub(r"^/\{(project_id|tenant_id|admin_project_id)\}", "", path)
    return re.sub(r"\{[^}]*\}", "{}", path) or "/"


def _segments(url: str) -> list[str]:
    return [s for s in _norm_url(url).split("/") if s and s != "{}"]


def _variants(word: str) -> set[str]:
    w = word.lower().replace("-", "_")
    w = w[3:] if w.startswith("os_") else w
    out = {w}
    if w.endswith("ies"):
        out.add(w[:-3] + "y")
    if w.endswith("es"):
        out.add(w[:-2])
    if w.endswith("s"):
        out.add(w[:-1])
    out.add(w + "s")
    return {v for v in out if v}


def _module_files(repo: Repo, rev: str, dirs: tuple[str, ...]) -> list[str]:
    files = []
    for folder in dirs:
        for path in repo.files(rev, folder):
            if posixpath.dirname(path) == folder and path.endswith(".py") \
                    and not posixpath.basename(path).startswith(("__", "test")):
                files.append(path)
    return files


def _functions(tree: ast.AST) -> list[tuple[str | None, ast.FunctionDef]]:
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((None, node))
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found.append((node.name, item))
    return found


def _decorator_name(dec: ast.expr) -> str:
    target = dec.func if isinstance(dec, ast.Call) else dec
    try:
        return ast.unparse(target)
    except Exception:  # noqa: BLE001
        return ""


def _action_handler(repo: Repo, rev: str, dirs: tuple[str, ...], key: str,
                    prefer: list[str] | None = None) -> Handler | None:
    hits = []
    for path in _module_files(repo, rev, dirs):
        text = repo.blob(rev, path) or ""
        if key not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for cls, func in _functions(tree):
            for dec in func.decorator_list:
                if isinstance(dec, ast.Call) and _decorator_name(dec).endswith("action") \
                        and dec.args and isinstance(dec.args[0], ast.Constant) \
                        and dec.args[0].value == key:
                    hits.append(Handler(path, cls, func.name, f"@wsgi.action('{key}')"))
    if prefer:
        for hit in hits:
            if posixpath.basename(hit.module)[:-3] in prefer:
                return hit
    return hits[0] if hits else None


def _nova_routes(repo: Repo, rev: str) -> dict[tuple[str, str], tuple[str, str, list[str]]]:
    """(METHOD, normalised path) -> (module, class, action modules) from nova's routes.py."""
    text = repo.blob(rev, "nova/api/openstack/compute/routes.py")
    if text is None:
        return {}
    tree = ast.parse(text)
    modules: dict[str, str] = {}
    controllers: dict[str, tuple[str, str, list[str]]] = {}
    table: dict[tuple[str, str], tuple[str, str, list[str]]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith("nova.api.openstack.compute"):
            for alias in node.names:
                modules[alias.asname or alias.name] = \
                    node.module.replace(".", "/") + "/" + alias.name + ".py"
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            args = node.value.args
            if len(args) >= 2 and isinstance(args[1], ast.Attribute) \
                    and isinstance(args[1].value, ast.Name):
                actions = []
                if len(args) >= 3 and isinstance(args[2], (ast.List, ast.Tuple)):
                    for elt in args[2].elts:
                        if isinstance(elt, ast.Attribute) and isinstance(elt.value, ast.Name):
                            actions.append(elt.value.id)
                controllers[node.targets[0].id] = (args[1].value.id, args[1].attr, actions)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ROUTE_LIST"
                                                for t in node.targets):
            for entry in getattr(node.value, "elts", []):
                if not isinstance(entry, ast.Tuple) or len(entry.elts) != 2:
                    continue
                path, spec = entry.elts
                if not isinstance(path, ast.Constant) or not isinstance(spec, ast.Dict):
                    continue
                for key, value in zip(spec.keys, spec.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(value, ast.List) \
                            and len(value.elts) == 2 and isinstance(value.elts[0], ast.Name):
                        ctl = controllers.get(value.elts[0].id)
                        meth = value.elts[1]
                        if ctl and isinstance(meth, ast.Constant):
                            module = modules.get(ctl[0])
                            if module:
                                table[(key.value, _norm_url(path.value))] = (
                                    module, ctl[1] + "." + meth.value,
                                    [modules.get(a, "") for a in ctl[2]])
    return table


_VERBS = {
    ("GET", False): (["index", "get_all", "list", "detail", "get"],
                     ["list_", "get_all_", "index_"]),
    ("GET", True): (["show", "get_one", "get"], ["get_", "show_"]),
    ("POST", False): (["create", "post", "add"], ["create_", "post_", "add_", "set_"]),
    ("POST", True): (["create", "post", "update", "action", "add"], ["create_", "post_",
                                                                      "set_", "add_"]),
    ("PUT", True): (["update", "put", "replace"], ["update_", "set_", "put_", "replace_"]),
    ("PUT", False): (["update", "put", "replace"], ["update_", "set_", "put_", "replace_"]),
    ("PATCH", True): (["patch", "update"], ["update_", "patch_"]),
    ("PATCH", False): (["patch", "update"], ["update_", "patch_"]),
    ("DELETE", True): (["delete", "remove", "destroy"], ["delete_", "remove_"]),
    ("DELETE", False): (["delete", "remove", "destroy"], ["delete_", "remove_"]),
}


def find_handler(profile: Profile, repo: Repo, rev: str, method: str, url: str,
                 action_key: str | None) -> Handler | None:
    norm = _norm_url(url)
    if profile.name == "nova":
        routes = _nova_routes(repo, rev)
        hit = routes.get((method, norm))
        if norm.endswith("/action") and action_key:
            prefer = [posixpath.basename(m)[:-3] for m in (hit[2] if hit else [])]
            found = _action_handler(repo, rev, profile.code_dirs, action_key, prefer)
            if found:
                return found
        if hit:
            cls, func = hit[1].split(".")
            return Handler(hit[0], cls, func, "routes.py")
        return None
    if norm.endswith("/action") and action_key:
        found = _action_handler(repo, rev, profile.code_dirs, action_key)
        if found:
            return found
    segments = _segments(url)
    if not segments:
        return None
    files = _module_files(repo, rev, profile.code_dirs)
    best, best_score = None, 0
    for path in files:
        stem = posixpath.basename(path)[:-3]
        if stem in ("utils", "versions", "root", "router", "base", "types", "collection",
                    "link", "notification_utils", "wsgi", "microversion", "util"):
            continue
        stems = _variants(stem)
        flat_stems = {v.replace("_", "") for v in stems}
        for distance, seg in enumerate(reversed(segments)):
            variants = _variants(seg)
            flat = {v.replace("_", "") for v in variants}
            if stems & variants or flat_stems & flat:
                score = 100 - distance * 10
            elif any(len(v) >= 4 and stem.replace("_", "").endswith(v) for v in flat):
                # share_types for /types: the module names the resource with a prefix
                score = 80 - distance * 10
            elif any(len(v) >= 4 and (v in stem or stem in v) for v in variants):
                score = 50 - distance * 10
            else:
                continue
            # on a tie the shorter module name is the closer one (share_types over
            # share_group_type_specs)
            if score > best_score or (score == best_score and best is not None
                                      and len(stem) < len(posixpath.basename(best))):
                best, best_score = path, score
    if best is None:
        return None
    text = repo.blob(rev, best) or ""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    item = norm.endswith("{}")
    names, prefixes = _VERBS.get((method, item), ([], []))
    last = segments[-1].lower().replace("-", "_")
    seg_tokens = {t for s in segments for v in _variants(s) for t in v.split("_")}
    scored = []
    for cls, func in _functions(tree):
        name = func.name
        if name.startswith("__"):
            continue
        score = 0
        if name == last and not item:
            score += 12
        if name in names:
            score += 10 - names.index(name)
        elif any(name.startswith(p) for p in prefixes):
            score += 6
            if any(v in name for v in _variants(last)):
                score += 3
        if score == 0:
            continue
        if norm.endswith("/detail") and name == "detail":
            score += 5
        if cls:
            tokens = set(re.findall(r"[a-z]+", re.sub(r"([A-Z])", r" \1", cls).lower()))
            # the controller named after the URL's last segments (NodeStatesController for
            # /nodes/{}/states) beats a same-named method of a sibling controller
            score += 2 * len(tokens & seg_tokens) + 6 * len(tokens & _variants(last))
        if name.startswith("_"):
            score -= 4
        if cls and "legacy" in cls.lower():
            score -= 8  # manila's ...Legacy controllers serve only old microversions
        for dec in func.decorator_list:
            if isinstance(dec, ast.Call) and _decorator_name(dec).endswith("api_version") \
                    and len(dec.args) >= 2:
                score -= 8  # capped at a maximum: not the method newer versions reach
        scored.append((score, cls, name))
    if not scored:
        return None
    scored.sort(key=lambda s: -s[0])
    return Handler(best, scored[0][1], scored[0][2], "name")


def locate(tree: ast.Module, handler: Handler) -> ast.FunctionDef | None:
    """The handler's def; when a name is defined more than once (nova's versioned
    methods), the last one (the newest version)."""
    found = None
    for cls, func in _functions(tree):
        if func.name == handler.func and (handler.cls is None or cls == handler.cls):
            found = func
    if found is None:
        for _cls, func in _functions(tree):
            if func.name == handler.func:
                found = func
    return found


# ---------------------------------------------------------------------------------------
# Text helpers


def _lines(text: str) -> list[str]:
    return text.split("\n")


def add_imports(text: str, imports: list[str]) -> str:
    """Missing import lines added after the last top-level import."""
    missing = [line for line in imports if line not in text.split("\n")]
    if not missing:
        return text
    tree = ast.parse(text)
    last = None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            last = node
    lines = _lines(text)
    at = last.end_lineno if last else 0
    lines[at:at] = missing
    return "\n".join(lines)


def _body_start(func: ast.FunctionDef) -> int:
    """0-based line index where the function's first real statement starts (after a
    docstring)."""
    body = func.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str) and len(body) > 1:
        return body[1].lineno - 1 - _decorated_offset(body[1])
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
            and isinstance(first.value.value, str):
        return first.end_lineno
    return first.lineno - 1 - _decorated_offset(first)


def _decorated_offset(node: ast.stmt) -> int:
    decs = getattr(node, "decorator_list", None)
    if decs:
        return node.lineno - decs[0].lineno
    return 0


def _indent_of(func: ast.FunctionDef, lines: list[str]) -> str:
    line = lines[func.body[-1].lineno - 1]
    if isinstance(func.body[0], ast.Expr):
        line = lines[func.body[0].lineno - 1]
    return line[:len(line) - len(line.lstrip())]


def _last_return(func: ast.FunctionDef) -> ast.Return | None:
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
    inner = [n for n in ast.walk(func) if isinstance(n, (ast.FunctionDef, ast.Lambda))
             and n is not func]
    def inside(ret):
        return any(getattr(f, "lineno", 0) <= ret.lineno <= getattr(f, "end_lineno", 0)
                   for f in inner)
    returns = [r for r in returns if not inside(r)]
    return max(returns, key=lambda r: r.lineno) if returns else None


def _local_names(func: ast.FunctionDef) -> list[str]:
    found = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id not in found:
                    found.append(target.id)
    return found


def _params(func: ast.FunctionDef) -> list[str]:
    return [a.arg for a in func.args.args + func.args.kwonlyargs]


def _fresh(name: str, text: str) -> str:
    candidate = name
    n = 2
    while re.search(rf"\b{re.escape(candidate)}\b", text):
        candidate = f"{name}{n}"
        n += 1
    return candidate


# ---------------------------------------------------------------------------------------
# Handler edits (every project)


@dataclass
class HandlerEdit:
    kind: str  # resp-add, req-add, query-add, resp-remove, err-409
    attr: str
    wrapper: str | None  # the response/request body's top key, from api-ref
    wrapper_is_list: bool
    gate: CodeGate | None  # None: no version check (forgotten)
    params_expr: str  # how this project reads query parameters
    conflict: str  # how this project raises a 409 (an expression to raise)
    conflict_imports: list[str]
    wsme: bool = False


def uses_wsme(module: str) -> bool:
    """A pecan/wsme controller module: its API objects are wsme classes, not dicts."""
    return re.search(r"^(import wsme|from wsme import)", module, re.M) is not None


def _wsme_attrs(node: ast.ClassDef) -> list[ast.Assign]:
    """Class-level attribute declarations: `x = wtypes.text`, `x = wsme.wsattr(...)`,
    `x = types.uuid`, `x = wsme.wsproperty(...)`."""
    found = []
    for item in node.body:
        if not isinstance(item, ast.Assign) or len(item.targets) != 1 \
                or not isinstance(item.targets[0], ast.Name) \
                or item.targets[0].id.startswith("_"):
            continue
        value = item.value
        name = _decorator_name(value) if isinstance(value, (ast.Call, ast.Attribute)) else ""
        if name.endswith(("wsattr", "wsproperty")) or name.startswith(("wtypes.", "types.")):
            found.append(item)
    return found


def _wsme_class(tree: ast.Module, resource: str) -> ast.ClassDef | None:
    best, best_score = None, 0
    variants = {v.replace("_", "") for v in _variants(resource.replace(" ", "_"))}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        attrs = _wsme_attrs(node)
        if len(attrs) < 2:
            continue
        score = len(attrs) + (50 if node.name.lower() in variants else 0)
        if node.name.lower().endswith(("collection", "patchtype")):
            score -= 40
        if score > best_score:
            best, best_score = node, score
    return best


def _convert_method(cls: ast.ClassDef) -> ast.FunctionDef | None:
    """The class's `convert_with_links` (or `_convert_with_links`): where these projects
    hide a field from older microversions, once for every operation showing the object."""
    for name in ("convert_with_links", "_convert_with_links"):
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == name \
                    and _last_return(item) is not None:
                return item
    return None


def apply_handler_edit(text: str, func: ast.FunctionDef, edit: HandlerEdit,
                       resource: str) -> str:
    """The module text with the handler edited for `edit`."""
    lines = _lines(text)
    tree = ast.parse(text)
    indent = _indent_of(func, lines)
    step = "    "
    attr = edit.attr
    imports = list(edit.gate.imports) if edit.gate else []
    gate = edit.gate.expr if edit.gate else None
    params = _params(func)
    locals_ = _local_names(func)
    singulars = _variants(edit.wrapper or resource) | _variants(resource)
    subject = next((n for n in locals_ + params if n.lower() in singulars), None)
    value = f"getattr({subject}, '{attr}', None)" if subject else "None"

    if edit.wsme and edit.kind in ("resp-add", "req-add"):
        cls = _wsme_class(tree, resource)
        if cls is not None:
            return _wsme_edit(text, tree, cls, func, edit, resource, gate, imports, params)

    if edit.kind in ("req-add", "query-add"):
        if edit.kind == "query-add":
            source = f"{edit.params_expr}.get('{attr}')"
        else:
            body = "body" if "body" in params else next(
                (p for p in params if p not in ("self", "req", "context")
                 and p.lower() in singulars | {"values", "data", "patch"}), None)
            if body is None:
                source = f"{edit.params_expr}.get('{attr}')"
            elif body == "body" and edit.wrapper:
                source = f"body.get('{edit.wrapper}', {{}}).get('{attr}')"
            else:
                source = f"{body}.get('{attr}')"
        name = _fresh(attr, ast.get_source_segment(text, func) or "")
        block = [f"{indent}{name} = {source}"]
        if gate:
            block += [f"{indent}if {name} is not None and not {gate}:",
                      f"{indent}{step}# {attr} is only accepted from this microversion on",
                      f"{indent}{step}{name} = None"]
        at = _body_start(func)
        lines[at:at] = block
        return add_imports("\n".join(lines), imports)

    if edit.kind in ("resp-add", "resp-remove"):
        ret = _last_return(func)
        if ret is None:
            raise EditError("handler returns nothing")
        wrapper, is_list = edit.wrapper, edit.wrapper_is_list
        if isinstance(ret.value, ast.Dict) and ret.value.keys:
            keys = [k.value for k in ret.value.keys if isinstance(k, ast.Constant)]
            if keys and wrapper not in keys:
                # the code's own top key wins over the api-ref table's first row
                wrapper, is_list = keys[0], False
        edit = HandlerEdit(edit.kind, attr, wrapper, is_list, edit.gate, edit.params_expr,
                           edit.conflict, edit.conflict_imports, edit.wsme)
        lines, var, at, ind = _bind_return(lines, ret, "resp")
        target = var
        inner = ind + (step if gate else "")
        if edit.wrapper and edit.wrapper_is_list:
            loop = [f"{inner}for item in {var}['{edit.wrapper}']:"]
            body_target = "item"
            inner2 = inner + step
        else:
            loop = []
            body_target = f"{var}['{edit.wrapper}']" if edit.wrapper else target
            inner2 = inner
        if edit.kind == "resp-add":
            stmt = [f"{inner2}{body_target}['{attr}'] = {value}"]
        else:
            stmt = [f"{inner2}{body_target}.pop('{attr}', None)"]
        block = ([f"{ind}if {gate}:"] if gate else []) + loop + stmt
        lines[at:at] = block
        return add_imports("\n".join(lines), imports)

    if edit.kind == "err-409":
        helper = _fresh(f"_check_{attr}_conflict", text)
        subject_param = next((p for p in params if p not in ("self", "req", "body")), None)
        arg = subject_param or "req"
        func_text = [
            "",
            "",
            f"def {helper}({arg}):",
            f'    """Refuse the request while the {resource} is busy (409 Conflict)."""',
            f"    if getattr({arg}, 'task_state', None) is not None:",
            f"        raise {edit.conflict}",
        ]
        call = f"{helper}({arg})"
        block = ([f"{indent}if {gate}:", f"{indent}{step}{call}"] if gate
                 else [f"{indent}{call}"])
        at = _body_start(func)
        lines[at:at] = block
        # the helper goes before the first class (or at the end of the imports)
        tree = ast.parse("\n".join(lines))
        first_class = next((n for n in tree.body if isinstance(n, ast.ClassDef)), None)
        where = (first_class.lineno - 1 - len(first_class.decorator_list)) if first_class \
            else len(lines)
        while where > 0 and not lines[where - 1].strip():
            where -= 1
        lines[where:where] = func_text
        return add_imports("\n".join(lines), imports + edit.conflict_imports)
    raise EditError(f"no handler edit for {edit.kind}")


def _wsme_edit(text: str, tree: ast.Module, cls: ast.ClassDef, func: ast.FunctionDef,
               edit: HandlerEdit, resource: str, gate: str | None, imports: list[str],
               params: list[str]) -> str:
    """A wsme attribute declared on the API class; done right, hidden below the new
    version in the class's conversion (response) or refused by the handler (request)."""
    lines = _lines(text)
    attr = edit.attr
    step = "    "
    anchor = _wsme_attrs(cls)[-1]
    first = lines[anchor.lineno - 1]
    cls_indent = first[:len(first) - len(first.lstrip())]
    wtypes = "wtypes" if re.search(r"\bwtypes\b", text) else "wsme.types"
    decl = f"{cls_indent}{attr} = {wtypes}.text"
    doc = f'{cls_indent}"""The {attr.replace("_", " ")} of the {resource}"""'
    # after the anchor and the docstring that follows it, if any
    end = anchor.end_lineno
    if end < len(lines) and lines[end].strip().startswith('"""') \
            and lines[end].strip().endswith('"""') and len(lines[end].strip()) > 3:
        end += 1
    lines[end:end] = ["", decl, doc]
    text = "\n".join(lines)
    if gate is None:
        return add_imports(text, imports)
    tree = ast.parse(text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.name)
    lines = _lines(text)
    if edit.kind == "resp-add":
        convert = _convert_method(cls)
        target_func = convert if convert is not None else _refind(tree, func)
        ret = _last_return(target_func)
        if ret is None:
            raise EditError("no return to gate")
        lines, var, at, ind = _bind_return(lines, ret, "obj" if convert else "result")
        lines[at:at] = [f"{ind}if not {gate}:",
                        f"{ind}{step}# {attr} is only shown from this microversion on",
                        f"{ind}{step}{var}.{attr} = {wtypes}.Unset"]
    else:
        func = _refind(tree, func)
        indent = _indent_of(func, lines)
        body_param = next((p for p in params if p not in ("self", "req")
                           and p.lower().rstrip("s") in {v.rstrip("s") for v in
                                                         _variants(resource)} | {"body"}),
                          params[-1] if len(params) > 1 else None)
        if body_param is None:
            raise EditError("no request body parameter")
        at = _body_start(func)
        lines[at:at] = [
            f"{indent}if (getattr({body_param}, '{attr}', {wtypes}.Unset)",
            f"{indent}        is not {wtypes}.Unset and not {gate}):",
            f"{indent}{step}raise {wtypes}.exc.ClientSideError(",
            f"{indent}{step}    'The {attr} field is not supported in this microversion',",
            f"{indent}{step}    status_code=406)"]
    return add_imports("\n".join(lines), imports)


def _refind(tree: ast.Module, old: ast.FunctionDef) -> ast.FunctionDef:
    best = None
    for _, func in _functions(tree):
        if func.name == old.name:
            best = func if best is None or abs(func.lineno - old.lineno) < \
                abs(best.lineno - old.lineno) else best
    if best is None:
        raise EditError("handler lost")
    return best


def _bind_return(lines: list[str], ret: ast.Return, name: str
                 ) -> tuple[list[str], str, int, str]:
    """Prepare to add statements before `return EXPR`: (lines, the name holding the
    response, the line index to insert at, the indentation). `return name` is kept; any
    other expression is bound first (`name = EXPR` ... `return name`)."""
    first = ret.lineno - 1
    line = lines[first]
    ind = line[:len(line) - len(line.lstrip())]
    if len(ind) != ret.col_offset:
        raise EditError("return shares its line with another statement")
    if isinstance(ret.value, ast.Name):
        return lines, ret.value.id, first, ind
    lines[first] = line.replace("return ", f"{name} = ", 1)
    lines.insert(ret.end_lineno, f"{ind}return {name}")
    return lines, name, ret.end_lineno, ind


# ---------------------------------------------------------------------------------------
# Executing a schema module with its imports stubbed (to learn its structure)


class _Stub:
    """Anything an import gives: callable, subscriptable, copyable, iterable (empty)."""

    def __init__(self, name: str = "stub"):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        return _Stub(f"{self._name}()")

    def __getitem__(self, key):
        return _Stub(f"{self._name}[]")

    def __setitem__(self, key, value):
        pass

    def __delitem__(self, key):
        pass

    def __iter__(self):
        return iter(())

    def __deepcopy__(self, memo):
        return self

    def __or__(self, other):
        return self

    __ror__ = __or__
    __add__ = __or__
    __radd__ = __or__


def exec_schema_module(text: str) -> dict:
    """The module's globals after running it with every non-stdlib import stubbed."""
    real_import = builtins.__import__
    allowed = {"copy", "re", "functools", "itertools", "collections", "typing", "enum",
               "http", "operator"}

    def fake_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name.split(".")[0] in allowed and level == 0:
            return real_import(name, globals, locals, fromlist, level)
        module = types.ModuleType(name)
        module.__getattr__ = lambda attr: _Stub(f"{name}.{attr}")  # type: ignore
        return module

    env_builtins = dict(vars(builtins))
    env_builtins["__import__"] = fake_import
    namespace: dict = {"__builtins__": env_builtins, "__name__": "kt_schema"}
    exec(compile(text, "<schema>", "exec"), namespace)  # noqa: S102 (stubbed imports)
    return namespace


def wrapper_path(schema, wrapper: str | None) -> tuple[list[str], dict] | None:
    """The subscript path to the dict of properties a new attribute of `wrapper` goes in,
    and that dict's parent (for its `required` list)."""
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    if not isinstance(props, dict):
        return None
    if wrapper and wrapper in props and isinstance(props[wrapper], dict):
        inner = props[wrapper]
        path = ["properties", wrapper]
        if inner.get("type") == "array" and isinstance(inner.get("items"), dict):
            inner = inner["items"]
            path.append("items")
        if isinstance(inner.get("properties"), dict):
            return path + ["properties"], inner
        return None
    if wrapper and wrapper not in props:
        return None
    return ["properties"], schema


def _subscript(path: list[str]) -> str:
    return "".join(f"['{p}']" for p in path)


# ---------------------------------------------------------------------------------------
# Schema decorators (nova, masakari)

_KIND_DECORATOR = {"req-add": ("schema",), "query-add": ("query_schema",),
                   "resp-add": ("response_body_schema",),
                   "resp-remove": ("response_body_schema",)}


@dataclass
class SchemaRef:
    decorator: ast.Call
    module_alias: str
    name: str
    min_version: str | None
    max_version: str | None


def schema_decorators(func: ast.FunctionDef, kind: str) -> list[SchemaRef]:
    wanted = _KIND_DECORATOR.get(kind, ())
    refs = []
    for dec in func.decorator_list:
        if not isinstance(dec, ast.Call):
            continue
        name = _decorator_name(dec)
        if not name.startswith("validation.") or name.split(".")[-1] not in wanted:
            continue
        if not dec.args or not isinstance(dec.args[0], ast.Attribute) \
                or not isinstance(dec.args[0].value, ast.Name):
            continue
        versions = [a.value for a in dec.args[1:3] if isinstance(a, ast.Constant)]
        for kw in dec.keywords:
            if kw.arg == "min_version" and isinstance(kw.value, ast.Constant):
                versions = [kw.value.value] + versions[1:]
            if kw.arg == "max_version" and isinstance(kw.value, ast.Constant):
                versions = (versions[:1] or [None]) + [kw.value.value]
        refs.append(SchemaRef(dec, dec.args[0].value.id, dec.args[0].attr,
                              versions[0] if versions else None,
                              versions[1] if len(versions) > 1 else None))
    return refs


def schema_module_path(module_text: str, alias: str) -> str | None:
    tree = ast.parse(module_text)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for name in node.names:
                if (name.asname or name.name) == alias:
                    return node.module.replace(".", "/") + "/" + name.name + ".py"
    return None


def _base_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _last_statement_of(tree: ast.Module, name: str) -> ast.stmt | None:
    """The last top-level statement that assigns or mutates `name`, or a part of it held
    under another name (`sg_properties = create_v264['properties']['server_group']` and then
    `sg_properties['required'].remove(...)`)."""
    last = None
    names = {name}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Subscript,
                                                                    ast.Attribute)) \
                and _base_name(node.value) in names:
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            targets = [node.value.func]
        for target in targets:
            base = target
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name) and base.id in names:
                last = node
    return last


def _quote(text: str) -> str:
    return "'" if text.count("'") >= text.count('"') else '"'


def _prop_value(kind: str, typ: str, schema_text: str) -> str:
    t = (typ or "string").lower()
    if kind == "query-add":
        for candidate in ("parameter_types.common_query_param",
                          "parameter_types.common_query_regex_param",
                          "parameter_types.single_param"):
            if candidate in schema_text:
                return candidate
        return "{'type': 'string'}"
    if kind == "req-add":
        if t.startswith("bool"):
            return "parameter_types.boolean" if "parameter_types.boolean" in schema_text \
                else "{'type': 'boolean'}"
        if t.startswith("int"):
            return "{'type': 'integer', 'minimum': 0}"
        return "{'type': 'string', 'maxLength': 255}"
    if t.startswith("bool"):
        return "{'type': 'boolean'}"
    if t.startswith("int"):
        return "{'type': 'integer'}"
    return "{'type': ['string', 'null']}"


def _version_name(name: str, new: Version) -> str:
    base = re.sub(r"_v\d+$", "", name)
    return f"{base}_v{new[0]}{new[1]}"


def schema_edit(module_text: str, schema_text: str, func: ast.FunctionDef, kind: str,
                attr: str, wrapper: str | None, typ: str, required: bool,
                done_right: Version | None, old_max: Version, min_default: str,
                ) -> tuple[str, str, str] | None:
    """(new module text, new schema text, what was done), or None when the handler has no
    schema decorator of this kind (or its structure cannot be learnt)."""
    refs = schema_decorators(func, kind)
    if not refs:
        return None
    latest = [r for r in refs if r.max_version is None] or refs
    ref = latest[-1]
    try:
        namespace = exec_schema_module(schema_text)
    except Exception:  # noqa: BLE001 (an unreadable schema module: no schema edit)
        return None
    schema = namespace.get(ref.name)
    where = wrapper_path(schema, wrapper)
    if where is None and wrapper:
        where = wrapper_path(schema, None)
    if where is None:
        return None
    path, parent = where
    props = parent.get("properties", {}) if path[-1] == "properties" else {}
    if kind == "resp-remove" and attr not in props:
        return None
    if kind != "resp-remove" and attr in props:
        return None
    is_required = isinstance(parent.get("required"), list) and attr in parent["required"]
    tree = ast.parse(schema_text)
    anchor = _last_statement_of(tree, ref.name)
    if anchor is None:
        return None
    s_lines = schema_text.split("\n")
    value = _prop_value(kind, typ, schema_text)
    req_path = _subscript(path[:-1] + ["required"])
    if done_right is None:
        target = ref.name
        new_lines = []
    else:
        target = _version_name(ref.name, done_right)
        new_lines = ["", f"{target} = copy.deepcopy({ref.name})"]
    if kind == "resp-remove":
        new_lines.append(f"del {target}{_subscript(path)}['{attr}']")
        if is_required:
            new_lines.append(f"{target}{req_path}.remove('{attr}')")
    else:
        stmt = f"{target}{_subscript(path)}['{attr}'] = {value}"
        if len(stmt) > 79:
            stmt = f"{target}{_subscript(path)}['{attr}'] = (\n    {value}\n)"
        new_lines.append(stmt)
        if kind == "resp-add" and required and isinstance(parent.get("required"), list):
            new_lines.append(f"{target}{req_path}.append('{attr}')")
    s_lines[anchor.end_lineno:anchor.end_lineno] = new_lines
    new_schema = "\n".join(s_lines)
    if done_right is not None and not re.search(r"^import copy$", new_schema, re.M):
        new_schema = add_imports(new_schema, ["import copy"])
    done = f"{'in place' if done_right is None else target} ({ref.name})"
    if done_right is None:
        return module_text, new_schema, done
    # the decorator split: the old schema up to the old maximum, the copy from the new one
    m_lines = module_text.split("\n")
    dec = ref.decorator
    seg = ast.get_source_segment(module_text, dec) or ""
    q = _quote(seg) if ("'" in seg or '"' in seg) else "'"
    func_name = _decorator_name(dec)
    first_arg = ast.get_source_segment(module_text, dec.args[0])
    low = _low_bound(module_text, dec, ref.min_version or min_default, q)
    ind = m_lines[dec.lineno - 1][:dec.col_offset - 1] if dec.col_offset >= 1 else ""
    old_dec = f"{ind}@{func_name}({first_arg}, {low}, {q}{vstr(old_max)}{q})"
    new_dec = f"{ind}@{func_name}(schema_placeholder, {q}{vstr(done_right)}{q})"
    new_dec = new_dec.replace("schema_placeholder", f"{ref.module_alias}.{target}")
    if len(new_dec) > 79:
        new_dec = (f"{ind}@{func_name}(\n{ind}    {ref.module_alias}.{target}, "
                   f"{q}{vstr(done_right)}{q})")
    # the decorator line(s) start at dec.lineno - 1 (the "@" is one column left)
    start = dec.lineno - 1
    end = dec.end_lineno
    m_lines[start:end] = [old_dec, new_dec]
    # the same-kind decorators after it stay in order: nothing else moves
    return "\n".join(m_lines), new_schema, done


def _low_bound(module_text: str, dec: ast.Call, default: str, q: str, first: int = 1) -> str:
    """A decorator's lower bound as its author wrote it (a literal, or a name such as
    GROUP_POLICY_OBJ_MICROVERSION), quoted `default` when it has none."""
    given = dec.args[first] if len(dec.args) > first else next(
        (kw.value for kw in dec.keywords if kw.arg == "min_version"), None)
    if given is None:
        return f"{q}{default}{q}"
    if isinstance(given, ast.Constant) and isinstance(given.value, str):
        return f"{q}{given.value}{q}"
    return ast.get_source_segment(module_text, given) or f"{q}{default}{q}"


def add_expected_error(module_text: str, func: ast.FunctionDef, code: int,
                       gate_version: Version | None, old_max: Version,
                       versioned: bool, masakari: bool) -> str | None:
    """409 added to the handler's `expected_errors` (nova: split on the new version when
    the decorator takes versions; else added to the tuple)."""
    decs = [d for d in func.decorator_list if isinstance(d, ast.Call)
            and _decorator_name(d).endswith("expected_errors")]
    if not decs:
        return None
    dec = decs[-1]
    if not dec.args:
        return None
    arg = dec.args[0]
    if isinstance(arg, ast.Tuple):
        items = [ast.get_source_segment(module_text, e) for e in arg.elts]
    else:
        items = [ast.get_source_segment(module_text, arg)]
    new_item = "HTTPStatus.CONFLICT" if masakari else str(code)
    if new_item in items or str(code) in items:
        return None
    lines = module_text.split("\n")
    ind = lines[dec.lineno - 1][:dec.col_offset - 1] if dec.col_offset >= 1 else ""
    name = _decorator_name(dec)
    old_tuple = "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    new_tuple = "(" + ", ".join(items + [new_item]) + ")"
    if gate_version is not None and versioned:
        q = "'"
        low = _low_bound(module_text, dec, "2.1", q, first=1)
        new = [f"{ind}@{name}({old_tuple}, {low}, {q}{vstr(old_max)}{q})",
               f"{ind}@{name}({new_tuple}, {q}{vstr(gate_version)}{q})"]
    else:
        extra = [ast.get_source_segment(module_text, a) for a in dec.args[1:]]
        new = [f"{ind}@{name}(" + ", ".join([new_tuple] + extra) + ")"]
    out = []
    for line in new:
        if len(line) > 79:
            head, rest = line.split("(", 1)
            out += [head + "(", f"{ind}        {rest}"]
        else:
            out.append(line)
    lines[dec.lineno - 1:dec.end_lineno] = out
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Refactors (nova, masakari): code-only, no contract change

_RENAMES = {"ctxt": "context", "inst": "instance", "msg": "message", "ret": "result",
            "res": "result", "kp": "keypair", "sg": "security_group", "ex": "exc",
            "e": "exc", "params": "query_params", "filters": "search_filters",
            "limit": "page_limit", "marker": "page_marker"}


def refactor_rename_local(text: str, rng: random.Random) -> tuple[str, str] | None:
    tree = ast.parse(text)
    candidates = []
    for cls, func in _functions(tree):
        params = set(_params(func))
        stores: dict[str, int] = {}
        loads: dict[str, int] = {}
        for node in ast.walk(func):
            if isinstance(node, ast.Name):
                bucket = stores if isinstance(node.ctx, ast.Store) else loads
                bucket[node.id] = bucket.get(node.id, 0) + 1
        nested = any(isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ListComp, ast.DictComp,
                                    ast.SetComp, ast.GeneratorExp, ast.Global, ast.Nonlocal))
                     for n in ast.walk(func) if n is not func)
        if nested:
            continue
        excepts = {h.name for h in ast.walk(func) if isinstance(h, ast.ExceptHandler)}
        for name in stores:
            if name in params or name in excepts or loads.get(name, 0) < 1 or len(name) < 2:
                continue
            new = _RENAMES.get(name, f"{name}_value" if len(name) < 12 else None)
            if not new or re.search(rf"\b{re.escape(new)}\b", ast.get_source_segment(text, func)
                                    or ""):
                continue
            candidates.append((cls, func, name, new))
    if not candidates:
        return None
    cls, func, old, new = rng.choice(candidates)
    positions = sorted({(n.lineno, n.col_offset) for n in ast.walk(func)
                        if isinstance(n, ast.Name) and n.id == old}, reverse=True)
    lines = text.split("\n")
    for lineno, col in positions:
        line = lines[lineno - 1]
        assert line[col:col + len(old)] == old
        lines[lineno - 1] = line[:col] + new + line[col + len(old):]
    out = "\n".join(lines)
    if not parses(out):
        return None
    where = f"{cls}.{func.name}" if cls else func.name
    return out, f"rename local `{old}` to `{new}` in {where}"


def refactor_extract_constant(text: str, rng: random.Random) -> tuple[str, str] | None:
    """A property schema written inline moved to a module constant and referenced."""
    tree = ast.parse(text)
    candidates = []
    for top in tree.body:
        if not isinstance(top, ast.Assign):
            continue
        for node in ast.walk(top):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                            and isinstance(value, ast.Dict) and value.keys \
                            and all(isinstance(k, ast.Constant) for k in value.keys) \
                            and not any(isinstance(n, (ast.Name, ast.Attribute, ast.Call))
                                        for n in ast.walk(value)) \
                            and key.value not in ("properties", "items") \
                            and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key.value) \
                            and value.lineno == value.end_lineno:
                        candidates.append((top, value, key.value))
    if not candidates:
        return None
    top, value, key = rng.choice(candidates)
    const = _fresh(f"_{key.upper()}_SCHEMA", text)
    lines = text.split("\n")
    line = lines[value.lineno - 1]
    segment = line[value.col_offset:value.end_col_offset]
    lines[value.lineno - 1] = line[:value.col_offset] + const + line[value.end_col_offset:]
    insert_at = top.lineno - 1
    lines[insert_at:insert_at] = [f"{const} = {segment}", "", ""]
    out = "\n".join(lines)
    if not parses(out):
        return None
    return out, f"move the `{key}` property schema to the module constant `{const}`"


def refactor_swap_decorators(text: str, rng: random.Random) -> tuple[str, str] | None:
    tree = ast.parse(text)
    candidates = []
    for cls, func in _functions(tree):
        decs = func.decorator_list
        for a, b in zip(decs, decs[1:], strict=False):
            na, nb = _decorator_name(a), _decorator_name(b)
            if na == nb and na.split(".")[-1] in ("schema", "query_schema",
                                                  "response_body_schema", "response") \
                    and a.end_lineno + 1 == b.lineno and b.end_lineno >= b.lineno:
                candidates.append((cls, func, a, b, na))
    if not candidates:
        return None
    cls, func, a, b, name = rng.choice(candidates)
    lines = text.split("\n")
    block_a = lines[a.lineno - 1:a.end_lineno]
    block_b = lines[b.lineno - 1:b.end_lineno]
    lines[a.lineno - 1:b.end_lineno] = block_b + block_a
    out = "\n".join(lines)
    if not parses(out):
        return None
    return out, f"swap two `@{name}` decorators of {cls}.{func.name}"


def refactor_quotes(text: str, rng: random.Random) -> tuple[str, str] | None:
    """Single-quoted string literals of one function's decorators written with double
    quotes (a formatter's change)."""
    tree = ast.parse(text)
    candidates = []
    for cls, func in _functions(tree):
        spans = []
        for dec in func.decorator_list:
            for node in ast.walk(dec):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and node.lineno == node.end_lineno:
                    spans.append(node)
        if spans:
            candidates.append((cls, func, spans))
    if not candidates:
        return None
    cls, func, spans = rng.choice(candidates)
    lines = text.split("\n")
    changed = 0
    for node in sorted(spans, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        line = lines[node.lineno - 1]
        literal = line[node.col_offset:node.end_col_offset]
        if len(literal) >= 2 and literal[0] == literal[-1] and literal[0] in "'\"" \
                and "\\" not in literal and '"' not in literal[1:-1] \
                and "'" not in literal[1:-1]:
            other = '"' if literal[0] == "'" else "'"
            lines[node.lineno - 1] = (line[:node.col_offset] + other + literal[1:-1] + other
                                      + line[node.end_col_offset:])
            changed += 1
    if not changed:
        return None
    out = "\n".join(lines)
    if not parses(out):
        return None
    return out, f"switch the quotes of {changed} decorator string(s) of {cls}.{func.name}"


REFACTORS = [refactor_rename_local, refactor_extract_constant, refactor_swap_decorators,
             refactor_quotes]


def deep(value):
    return copy.deepcopy(value)
