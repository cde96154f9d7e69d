"""Building the cases: a random real revision, a random place in it, one edit per class.

Each builder returns a `Built` (the files to write, the commit message, what was done) or
raises `Skip` with a reason. The truth of each class is fixed here, with its source in
docs/known-truth.md; the tool under test is never asked.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from benchmarks.known_truth import apiref, projects, pyedit
from benchmarks.known_truth.git import Repo
from benchmarks.known_truth.projects import Profile, Version, vstr

CLASSES = ["forgotten", "done-right", "raised-owns", "docs-only", "new-error-code",
           "gated-409", "marker-not-evidence", "unreleased-next", "code-refactor",
           "served-before", "code-only", "bump-forgotten", "coverage",
           "code-done-right"]

# A status code newly documented by a change of the api-ref alone: the API did not change
# (the change touches no code: rule documentation-only), so no project needs a microversion
# for it, whatever its guide says of new codes. cinder's and manila's guides
# (api_microversion_dev.rst) ask one for a code the API starts returning, which a change of
# the code makes (tests/commands/test_evidence_outranks.py); nova's footnote f2 (seed 003)
# exempts a newly documented 400/404 even then.
NEW_CODE_NEEDS_MICROVERSION: set[str] = set()
YEARS = 3
ATTEMPTS = 6  # random places tried on one revision before another revision is drawn


class Skip(Exception):
    """This class cannot be built here (the reason says why)."""


@dataclass
class Built:
    changes: dict[str, str | None]
    message: str
    description: str
    truth: int
    new_max: Version | None = None
    detail: dict = field(default_factory=dict)
    # Committed first, on the real revision: the case's base (the change is made on it).
    base_changes: dict[str, str | None] = field(default_factory=dict)


@dataclass
class Context:
    """One project at one base revision."""
    name: str
    profile: Profile
    repo: Repo
    rev: str
    old_max: Version
    rng: random.Random

    def tree(self) -> apiref.Tree:
        tree = apiref.Tree.load(self.profile, self.repo, self.rev)
        if tree is None:
            raise Skip("no api-ref tree")
        return tree

    def blob(self, path: str, pending: dict[str, str | None]) -> str | None:
        if path in pending:
            return pending[path]
        return self.repo.blob(self.rev, path)


# ---------------------------------------------------------------------------------------
# Revisions


def candidate_revisions(repo: Repo, profile: Profile) -> list[str]:
    """First-parent commits of the default branch from the last YEARS years of the
    project's life (measured from its newest commit that still has an api-ref tree, so a
    retired project such as senlin counts back from its retirement)."""
    head = repo.rev("HEAD")
    if not repo.files(head, profile.api_ref):
        head = repo.text("log", "-1", "--format=%H", "HEAD", "--", profile.api_ref).strip()
        head = repo.rev(head + "~1")
    stamp, _ = repo.commit_info(head)
    since = stamp - YEARS * 365 * 86400
    return repo.lines("rev-list", "--first-parent", f"--since={since}", head)


def last_release(repo: Repo, rev: str) -> str | None:
    """The newest release tag (X.Y.Z, no rc/b) the revision contains."""
    out = repo.git("describe", "--tags", "--abbrev=0", "--match", "[0-9]*.[0-9]*.[0-9]*",
                   "--exclude", "*rc*", "--exclude", "*b*", rev, check=False)
    tag = out.decode().strip()
    return tag or None


def unreleased(ctx_repo: Repo, profile: Profile, rev: str) -> tuple[str, Version] | None:
    """(tag, its maximum) when the revision's maximum is above the newest release's."""
    tag = last_release(ctx_repo, rev)
    if tag is None:
        return None
    released = projects.read_version(profile, ctx_repo, tag)
    current = projects.read_version(profile, ctx_repo, rev)
    if released is None or current is None or current <= released:
        return None
    return tag, released


# ---------------------------------------------------------------------------------------
# Code edits


_CONFLICT = {
    "ironic": ("exception.Conflict(_('The node is busy.'))",
               ["from ironic.common import exception", "from ironic.common.i18n import _"]),
    "cyborg": ("exception.Conflict(_('The resource is busy.'))",
               ["from cyborg.common import exception", "from cyborg.common.i18n import _"]),
    "watcher": ("exception.Conflict(_('The resource is busy.'))",
                ["from watcher.common import exception", "from watcher._i18n import _"]),
    "zun": ("exception.Conflict(_('The resource is busy.'))",
            ["from zun.common import exception", "from zun.common.i18n import _"]),
    "magnum": ("exception.Conflict(_('The resource is busy.'))",
               ["from magnum.common import exception", "from magnum.i18n import _"]),
}


def conflict_expr(name: str, module: str) -> tuple[str, list[str]]:
    """How a module of this project raises a 409, from the imports it already has."""
    if name in _CONFLICT:
        expr, imports = _CONFLICT[name]
        have = module.split("\n")
        # keep whichever i18n import the module already uses
        imports = [i for i in imports if "import _" not in i or not re.search(
            r"^from \S+ import _\b", module, re.M)] if "import _" in module else imports
        return expr, [i for i in imports if i not in have]
    msg = "'The resource is busy.'"
    if re.search(r"^from webob import exc$", module, re.M):
        return f"exc.HTTPConflict(explanation={msg})", []
    if name == "placement":
        return f"webob.exc.HTTPConflict({msg})", [] if re.search(
            r"^import webob$", module, re.M) else ["import webob"]
    return f"webob.exc.HTTPConflict(explanation={msg})", [] if re.search(
        r"^import webob(\.exc)?$", module, re.M) else ["import webob"]


def params_expr(name: str, module: str) -> tuple[str, list[str]]:
    """How this project's handlers read the query string."""
    if name in ("nova", "placement", "masakari"):
        return "req.GET", []
    if name in ("cinder", "manila", "senlin"):
        return "req.params", []
    if name == "ironic" and "from ironic import api" in module:
        return "api.request.GET", []
    return "pecan.request.GET", [] if re.search(r"^import pecan$", module, re.M) \
        else ["import pecan"]


@dataclass
class CodeEdit:
    changes: dict[str, str]
    what: str


def handler_for(ctx: Context, tree: apiref.Tree, op: apiref.Operation) -> pyedit.Handler:
    handler = pyedit.find_handler(ctx.profile, ctx.repo, ctx.rev, op.method, op.url,
                                  apiref.action_key(tree, op))
    if handler is None:
        raise Skip(f"no handler found for {op.key}")
    return handler


def _handler_text(ctx: Context, tree: apiref.Tree, op: apiref.Operation
                  ) -> tuple[pyedit.Handler, str] | str:
    """The operation's handler and its module's text at the revision, or why not."""
    try:
        handler = handler_for(ctx, tree, op)
    except Skip as exc:
        return str(exc)
    module = ctx.repo.blob(ctx.rev, handler.module)
    return (handler, module) if module is not None else f"{handler.module} missing"


def edit_code(ctx: Context, tree: apiref.Tree, op: apiref.Operation, kind: str, attr: str,
              wrapper: str | None, is_list: bool, typ: str, gate_version: Version | None,
              pending: dict[str, str | None]) -> CodeEdit:
    """The handler (and, in nova and masakari, its JSON schema) edited for `kind`, with the
    project's version check when `gate_version` is given."""
    handler = handler_for(ctx, tree, op)
    module = ctx.blob(handler.module, pending)
    if module is None:
        raise Skip(f"handler module {handler.module} missing")
    changes: dict[str, str] = {}
    what = [f"{handler.module}: {handler.cls or ''}.{handler.func} ({handler.how})"]
    func = pyedit.locate(ast.parse(module), handler)
    if func is None:
        raise Skip("handler def not found")
    if ctx.profile.schema_code and kind != "err-409":
        alias_refs = pyedit.schema_decorators(func, kind)
        if alias_refs:
            ref = ([r for r in alias_refs if r.max_version is None] or alias_refs)[-1]
            spath = pyedit.schema_module_path(module, ref.module_alias)
            stext = ctx.blob(spath, pending) if spath else None
            if stext is not None:
                min_default = "2.1" if ctx.name == "nova" else "1.0"
                done = pyedit.schema_edit(module, stext, func, kind, attr, wrapper, typ,
                                          False, gate_version, ctx.old_max, min_default)
                if done is not None:
                    module, new_schema, how = done
                    changes[spath] = new_schema
                    what.append(f"schema {how}")
                    func = pyedit.locate(ast.parse(module), handler)
    if kind == "err-409" and ctx.profile.schema_code:
        versioned = "min_version" in (ctx.repo.blob(ctx.rev, "nova/api/openstack/wsgi.py")
                                      or "").split("def expected_errors", 1)[-1][:300]
        edited = pyedit.add_expected_error(module, func, 409, gate_version, ctx.old_max,
                                           versioned and ctx.name == "nova",
                                           ctx.name == "masakari")
        if edited is not None:
            module = edited
            func = pyedit.locate(ast.parse(module), handler)
            what.append("409 in @expected_errors")
    gate = None
    if gate_version is not None:
        # placement's idiom depends on whether this handler binds want_version itself
        seen = (ast.get_source_segment(module, func) or "") if ctx.name == "placement" \
            else module
        gate = projects.code_gate(ctx.profile, ctx.repo, ctx.rev, gate_version,
                                  _slug(attr, kind), seen, {**pending, **changes})
        changes.update(gate.changes)
    pexpr, pimports = params_expr(ctx.name, module)
    cexpr, cimports = conflict_expr(ctx.name, module)
    if gate is not None and pimports:
        gate = projects.CodeGate(gate.expr, gate.imports + pimports, gate.changes)
    elif pimports and kind == "query-add":
        gate = None
        module = pyedit.add_imports(module, pimports)
        func = pyedit.locate(ast.parse(module), handler)
    edit = pyedit.HandlerEdit(kind, attr, wrapper, is_list, gate, pexpr, cexpr, cimports,
                              wsme=pyedit.uses_wsme(module))
    try:
        text = pyedit.apply_handler_edit(module, func, edit, apiref.resource_word(op))
    except (pyedit.EditError, AssertionError, IndexError, ValueError) as exc:
        raise Skip(f"handler edit refused: {exc}") from exc
    if not pyedit.parses(text):
        raise Skip("edited handler does not parse")
    changes[handler.module] = text
    return CodeEdit(changes, "; ".join(what))


def _slug(attr: str, kind: str) -> str:
    return {"err-409": f"{attr}-conflict", "query-add": f"{attr}-filter"}.get(kind, attr)


# ---------------------------------------------------------------------------------------
# A contract change (classes 1, 2, 3, 7, 8)


KINDS = ["resp-add", "req-add", "query-add"]


def contract_change(ctx: Context, bumped: bool, doc_gate: bool,
                    only_files: set[str] | None = None,
                    kinds: list[str] | None = None, docs: bool = True
                    ) -> tuple[dict[str, str | None], str, Version | None]:
    """A new response/request attribute or query parameter: api-ref row + parameters.yaml
    entry + the code a contributor writes. With `bumped`, the version file raised by one
    (history entry, release note) and the code gated on it; the api-ref row gated too
    when `doc_gate`."""
    tree = ctx.tree()
    ops = [op for op in tree.operations() if only_files is None or op.file in only_files]
    if not ops:
        raise Skip("no operation in the chosen files")
    last = "no operation fits"
    for _ in range(ATTEMPTS * 3):
        op = ctx.rng.choice(ops)
        kind = ctx.rng.choice(kinds or KINDS)
        plan = apiref.plan_add_row(tree, op, kind, ctx.rng)
        if plan is None:
            last = f"no place for {kind} in {op.key}"
            continue
        word = {"resp-add": "response attribute", "req-add": "request attribute",
                "query-add": "query parameter"}[kind]
        pending: dict[str, str | None] = {}
        new = None
        if bumped:
            where = "to the response of" if kind == "resp-add" else "to"
            summary = f"Add the ``{plan.attr}`` {word} {where} ``{op.method} {op.url}``."
            pending, new = bump_changes(ctx, summary, _slug(plan.attr, kind))
        try:
            code = edit_code(ctx, tree, op, kind, plan.attr, plan.wrapper,
                             plan.wrapper_is_list, plan.typ, new, pending)
        except Skip as exc:
            last = str(exc)
            continue
        if not docs:  # the contract changed in code alone: api-ref left as it was
            return ({**pending, **code.changes},
                    f"{word} `{plan.attr}` on {op.key}, code only; code: {code.what}", new)
        apiref.apply_add_row(tree, plan, ctx.rng, new if doc_gate else None,
                             request=kind != "resp-add")
        changes: dict[str, str | None] = {**pending, **tree.changes(), **code.changes}
        return changes, f"{word} `{plan.attr}` on {op.key} ({op.file}); code: {code.what}", new
    raise Skip(last)


def bump_changes(ctx: Context, summary: str, slug: str) -> tuple[dict[str, str | None],
                                                                  Version]:
    new = (ctx.old_max[0], ctx.old_max[1] + 1)
    changes: dict[str, str | None] = dict(projects.bump(ctx.profile, ctx.repo, ctx.rev, new,
                                                        summary, slug))
    if ctx.repo.files(ctx.rev, "releasenotes/notes"):
        path, text = projects.release_note(slug, f"{ctx.rev}{slug}{vstr(new)}", "features",
                                           f"API microversion {vstr(new)}: {summary}")
        changes[path] = text
    return changes, new


def _contract(ctx: Context, gated_docs: bool, bumped: bool, only: set[str] | None = None
              ) -> Built:
    changes, what, new = contract_change(ctx, bumped, gated_docs, only)
    return Built(changes, "", what, 0 if bumped else 1, new)


def build_forgotten(ctx: Context) -> Built:
    built = _contract(ctx, gated_docs=False, bumped=False)
    built.message = "Add " + built.description.split(" (")[0]
    return built


def build_done_right(ctx: Context) -> Built:
    built = _contract(ctx, gated_docs=True, bumped=True)
    built.message = f"Microversion {vstr(built.new_max)}: " + built.description.split(" (")[0]
    return built


def build_raised_owns(ctx: Context) -> Built:
    built = _contract(ctx, gated_docs=False, bumped=True)
    built.message = f"Microversion {vstr(built.new_max)}: " + built.description.split(" (")[0]
    return built


def build_bump_forgotten(ctx: Context) -> Built:
    """`done-right` with the version file's maximum left where it was: the code gated on
    the next microversion, the api-ref gated on it, its history entry and release note
    written, the raise forgotten (issue 35: a gate above the version file's maximum is
    served by no microversion). Where the maximum is not one string constant, skipped."""
    built = _contract(ctx, gated_docs=True, bumped=True)
    found = projects.version_file(ctx.profile, ctx.repo, ctx.rev)
    assert found is not None and built.new_max is not None
    path = found[0]
    text = built.changes.get(path)
    unraised = None if text is None else projects.max_unraised(ctx.profile, text, ctx.old_max)
    if unraised is None:
        raise Skip("the version file's maximum is not one string constant")
    built.changes[path] = unraised
    built.truth = 1
    built.message = f"Microversion {vstr(built.new_max)}: " + built.description.split(" (")[0]
    built.detail["gated_on"] = vstr(built.new_max)  # the maximum stays: no new one
    built.new_max = None
    return built


# A schema declared where the code declared none: what the schema-coverage commits do
# (nova 92442bfaf1 "permissive query schemas, effectively a no-op"; the response schemas
# written for behaviour that already existed).
_PERMISSIVE = ("{\n    'type': 'object',\n    'properties': {},\n"
               "    'additionalProperties': True,\n}\n")
_COVERAGE = {"query-add": ("query_schema", "_query"), "req-add": ("schema", "_request"),
             "resp-add": ("response_body_schema", "_response")}


def build_coverage(ctx: Context) -> Built:
    """nova and masakari: a handler with no query (GET), request (POST, PUT) or response
    schema gets one, a
    permissive schema added to its schema module and the decorator to the handler; no
    bump, no api-ref change. Truth 0: a schema added where none was declared describes
    what the API already did (issue 35's coverage rule)."""
    if not ctx.profile.schema_code:
        raise Skip("the code declares no contract a static reader reads")
    tree = ctx.tree()
    validation = "\n".join(ctx.repo.blob(ctx.rev, path) or "" for path in (
        f"{ctx.name}/api/validation/__init__.py", f"{ctx.name}/api/validation.py"))
    ops = tree.operations()
    last = "every handler tried declares its schemas"
    for _ in range(ATTEMPTS * 3):
        op = ctx.rng.choice(ops)
        kind = ctx.rng.choice(["query-add" if op.method == "GET" else "req-add", "resp-add"]
                              if op.method in ("GET", "POST", "PUT") else ["resp-add"])
        decorator, suffix = _COVERAGE[kind]
        if f"def {decorator}(" not in validation:
            last = f"validation.{decorator} does not exist at this revision"
            continue
        found = _handler_text(ctx, tree, op)
        if isinstance(found, str):
            last = found
            continue
        handler, module = found
        func = pyedit.locate(ast.parse(module), handler)
        if func is None or pyedit.schema_decorators(func, kind):
            last = f"{op.key}: its handler declares a {decorator} already"
            continue
        aliases = [ref.module_alias for k in ("req-add", "query-add", "resp-add")
                   for other in ast.walk(ast.parse(module))
                   if isinstance(other, ast.FunctionDef)
                   for ref in pyedit.schema_decorators(other, k)]
        spath = pyedit.schema_module_path(module, aliases[0]) if aliases else None
        stext = ctx.repo.blob(ctx.rev, spath) if spath else None
        if stext is None:
            last = f"{handler.module} uses no schema module"
            continue
        name = f"{handler.func.strip('_')}{suffix}"
        if re.search(rf"^{name}\b", stext, re.M):
            last = f"{name} exists in {spath}"
            continue
        lines = module.split("\n")
        at = func.lineno - 1  # the `def` line: the new decorator goes last, above it
        indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
        lines.insert(at, f"{indent}@validation.{decorator}({aliases[0]}.{name})")
        text = "\n".join(lines)
        if "validation" not in module or not pyedit.parses(text):
            last = "the decorator cannot be written here"
            continue
        changes: dict[str, str | None] = {
            handler.module: text, spath: stext.rstrip("\n") + f"\n\n{name} = {_PERMISSIVE}"}
        what = (f"{decorator} declared for {op.key} ({handler.module}: "
                f"{handler.cls or ''}.{handler.func}), {spath}: {name}")
        return Built(changes, f"Add {decorator.replace('_', ' ')} for {op.key}", what, 0)
    raise Skip(last)


def build_code_only(ctx: Context) -> Built:
    """The classic forgotten microversion: an attribute or query parameter added to the
    code's JSON schema and handler, no bump, no api-ref change (issue 35). Only where the
    code declares its contract (nova, masakari); elsewhere the class is skipped."""
    if not ctx.profile.schema_code:
        raise Skip("the code declares no contract a static reader reads")
    changes, what, _ = contract_change(ctx, False, False, docs=False,
                                       kinds=["req-add", "query-add", "resp-add"])
    if not any(path.startswith(ctx.profile.code_dirs) and "/schemas/" in path
               for path in changes):
        raise Skip("the handler's schema was not edited: the contract change is not declared")
    return Built(changes, "Add " + what.split(",")[0], what, 1)


def build_code_done_right(ctx: Context) -> Built:
    """`code-only` done right: the schema copied for the next microversion and the handler
    gated on it, the version file raised, its history entry and release note written; the
    api-ref not touched (issue 35: the documents may follow; the change provides its
    microversion). nova and masakari only."""
    if not ctx.profile.schema_code:
        raise Skip("the code declares no contract a static reader reads")
    changes, what, new = contract_change(ctx, True, False, docs=False,
                                         kinds=["req-add", "query-add", "resp-add"])
    if not any(path.startswith(ctx.profile.code_dirs) and "/schemas/" in path
               for path in changes):
        raise Skip("the handler's schema was not edited: the contract change is not declared")
    return Built(changes, f"Microversion {vstr(new)}: " + what.split(",")[0], what, 0, new)


def build_marker(ctx: Context) -> Built:
    tree = ctx.tree()
    markers = apiref.marker_files(tree)
    if not markers:
        raise Skip("no api-ref file carries a needs:* marker or file-level versionadded")
    changes, what, _ = contract_change(ctx, False, False, set(markers), ["resp-add"])
    built = Built(changes, "", what, 1)
    built.detail["marker"] = {k: v for k, v in markers.items() if k in built.changes}
    built.message = "Add " + built.description.split(" (")[0]
    return built


def build_unreleased(ctx: Context) -> Built:
    found = unreleased(ctx.repo, ctx.profile, ctx.rev)
    if found is None:
        raise Skip("maximum not raised since the last release")
    built = _contract(ctx, gated_docs=False, bumped=False, only=None)
    built.detail["release"] = {"tag": found[0], "released_max": vstr(found[1])}
    built.detail["expected_next"] = vstr((ctx.old_max[0], ctx.old_max[1] + 1))
    built.message = "Add " + built.description.split(" (")[0]
    return built


def build_docs_only(ctx: Context) -> Built:
    tree = ctx.tree()
    what = apiref.docs_only(tree, ctx.rng)
    if what is None:
        raise Skip("no description to reword")
    return Built(dict(tree.changes()), "api-ref: " + what.split(": ", 1)[-1][:60], what, 0)


def _ops_with_codes(tree: apiref.Tree, missing: int) -> list[apiref.Operation]:
    out = []
    for op in tree.operations():
        if not op.codes:
            continue
        if any(missing in c.codes for c in op.codes):
            continue
        out.append(op)
    return out


def build_new_error_code(ctx: Context) -> Built:
    tree = ctx.tree()
    code = ctx.rng.choice([400, 404])
    ops = _ops_with_codes(tree, code)
    if not ops:
        raise Skip(f"every operation documents {code} already")
    op = ctx.rng.choice(ops)
    if not apiref.add_code(tree, op, code):
        raise Skip(f"cannot add {code} to {op.key}")
    truth = 1 if ctx.name in NEW_CODE_NEEDS_MICROVERSION else 0
    return Built(dict(tree.changes()), f"api-ref: document {code} for {op.title.text}",
                 f"{code} newly documented on {op.key} ({op.file})", truth)


def build_gated_409(ctx: Context) -> Built:
    tree = ctx.tree()
    ops = [op for op in _ops_with_codes(tree, 409)
           if op.method in ("POST", "PUT", "PATCH", "DELETE")]
    if not ops:
        raise Skip("no write operation without a documented 409")
    last = "no operation fits"
    for _ in range(ATTEMPTS):
        op = ctx.rng.choice(ops)
        resource = apiref.resource_word(op)
        reason = ctx.rng.choice(apiref.REASONS).format(r=resource)
        attr = resource.replace(" ", "_")
        slug = _slug(attr, "err-409")
        summary = (f"{op.method} {op.url} returns 409 Conflict when {reason}.")
        pending, new = bump_changes(ctx, summary, slug)
        try:
            code = edit_code(ctx, tree, op, "err-409", attr, None,
                             False, "", new, pending)
        except Skip as exc:
            last = str(exc)
            continue
        if not apiref.add_code(tree, op, 409):
            last = f"cannot add 409 to {op.key}"
            tree = ctx.tree()
            continue
        phrasing = ctx.rng.choice(apiref.PHRASINGS)
        how = apiref.gate_code_in_prose(tree, op, 409, new, phrasing, reason)
        changes = {**pending, **tree.changes(), **code.changes}
        return Built(changes, f"Microversion {vstr(new)}: 409 Conflict on {op.title.text}",
                     f"409 on {op.key} ({op.file}) gated by {how}; code: {code.what}", 0, new)
    raise Skip(last)


def _reorder_imports(text: str, rng: random.Random) -> tuple[str, str] | None:
    """Two adjacent one-line imports of the same kind swapped (what an import sorter
    undoes or does): no statement depends on import order in these modules."""
    tree = ast.parse(text)
    lines = text.split("\n")
    pairs = []
    body = tree.body
    for a, b in zip(body, body[1:], strict=False):
        if type(a) is type(b) and isinstance(a, (ast.Import, ast.ImportFrom)) \
                and a.lineno == a.end_lineno and b.lineno == b.end_lineno \
                and b.lineno == a.lineno + 1 and lines[a.lineno - 1] != lines[b.lineno - 1]:
            pairs.append((a, b))
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    lines[a.lineno - 1], lines[b.lineno - 1] = lines[b.lineno - 1], lines[a.lineno - 1]
    out = "\n".join(lines)
    return (out, f"swap the imports `{lines[b.lineno - 1].strip()}` and "
                 f"`{lines[a.lineno - 1].strip()}`") if pyedit.parses(out) else None


REFACTORS: list[Callable[[str, random.Random], tuple[str, str] | None]] = [
    pyedit.refactor_rename_local, _reorder_imports, pyedit.refactor_quotes]


def build_refactor(ctx: Context) -> Built:
    tree = ctx.tree()
    ops = tree.operations()
    last = "no refactor applies"
    for _ in range(ATTEMPTS * 2):
        op = ctx.rng.choice(ops)
        try:
            handler = handler_for(ctx, tree, op)
        except Skip as exc:
            last = str(exc)
            continue
        text = ctx.repo.blob(ctx.rev, handler.module)
        if text is None:
            continue
        refactor = ctx.rng.choice(REFACTORS)
        done = refactor(text, ctx.rng)
        if done is None:
            last = f"{refactor.__name__} does not apply to {handler.module}"
            continue
        new_text, what = done
        return Built({handler.module: new_text}, f"Refactor: {what}"[:72],
                     f"{handler.module}: {what}", 0)
    raise Skip(last)


def build_served_before(ctx: Context) -> Built:
    """The document catching up with what the code served: a base made from the real
    revision with one response row taken out of api-ref, then the change puts it back
    (ungated, as the real revision has it) beside a code edit of its handler that names
    the attribute. The API served it all along: truth 0. Only where the code declares its
    contract (nova, masakari) is there evidence to read; elsewhere the class is skipped."""
    if not ctx.profile.schema_code:
        raise Skip("the code declares no contract a static reader reads")
    tree = ctx.tree()
    ops = [op for op in tree.operations() if op.method == "GET"]
    last = "no response row to take out"
    for _ in range(ATTEMPTS * 2):
        if not ops:
            break
        op = ctx.rng.choice(ops)
        edit = apiref.plan_remove_row(tree, op, ctx.rng, unique=False)
        if edit is None:
            last = f"no removable response row in {op.key}"
            continue
        found = _handler_text(ctx, tree, op)
        if isinstance(found, str):
            last = found
            continue
        handler, module = found
        apiref.apply_remove_row(tree, edit, None)
        base = dict(tree.changes())
        restored = {path: ctx.repo.blob(ctx.rev, path) for path in base}
        note = f"# `{edit.attr}` is returned by this API and documented in api-ref.\n"
        return Built({**restored, handler.module: note + module},
                     f"api-ref: document {edit.attr} of {op.method} {op.url}"[:72],
                     f"response attribute `{edit.attr}` of {op.key} ({op.file}) documented "
                     f"again; code: a comment naming it in {handler.module}", 0,
                     base_changes=base)
    raise Skip(last)


BUILDERS: dict[str, Callable[[Context], Built]] = {
    "forgotten": build_forgotten,
    "done-right": build_done_right,
    "raised-owns": build_raised_owns,
    "docs-only": build_docs_only,
    "new-error-code": build_new_error_code,
    "gated-409": build_gated_409,
    "marker-not-evidence": build_marker,
    "unreleased-next": build_unreleased,
    "code-refactor": build_refactor,
    "served-before": build_served_before,
    "code-only": build_code_only,
    "bump-forgotten": build_bump_forgotten,
    "coverage": build_coverage,
    "code-done-right": build_code_done_right,
}
