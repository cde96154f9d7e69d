"""Ground truth for the static code reader (loaders/code): nova imported, against nova read.

Not run in CI: it needs nova installed in a virtualenv of its own (outside the project),
and it imports and runs nova's code, which the tool itself never does.

    python3 -m venv /tmp/nova-venv && /tmp/nova-venv/bin/pip install nova
    /tmp/nova-venv/bin/pip install --no-deps --target /tmp/nova-wheels/31.0.0 nova==31.0.0
    .venv/bin/python benchmarks/code_equality.py --python /tmp/nova-venv/bin/python \\
        --mirror /path/to/nova.git --wheels /tmp/nova-wheels 31.0.0 33.0.0 HEAD

Per tag: the static side reads the tag's git blobs (`HEAD`: the git HEAD, compared with
the newest wheel installed in the venv; `wheel`: the venv's own installed files, read as
files); the import side runs in `--python` with the tag's wheel first on `sys.path`,
builds `APIRouterV21()` (oslo.messaging pointed at `fake:/`) and walks
`router.map.matchlist`, unwrapping each method's decorators (`__wrapped__` and their
closure variables) and nova's versioned methods. Compared: the (method, path, action)
operations, each operation's implementation ranges and its request / query / response /
error / success-code range lists, and every schema object (a helper's symbolic value in
the static side matches any text).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_KINDS = ("request", "query", "response", "errors", "codes")

# The import side: runs in nova's virtualenv, prints the table as JSON.
_INTROSPECT = r'''
import json, sys
sys.path.insert(0, sys.argv[1]) if sys.argv[1] else None
import hashlib
from oslo_utils import secretutils
if not hasattr(secretutils, "md5"):  # older nova against today's oslo.utils
    secretutils.md5 = lambda *args, usedforsecurity=True: hashlib.md5(*args)
import nova.conf
CONF = nova.conf.CONF
CONF([], project="nova", default_config_files=[])
import oslo_messaging
from nova import rpc
rpc.TRANSPORT = oslo_messaging.get_rpc_transport(CONF, url="fake:/")
rpc.NOTIFICATION_TRANSPORT = oslo_messaging.get_notification_transport(CONF, url="fake:/")
rpc.NOTIFIER = rpc.LEGACY_NOTIFIER = oslo_messaging.Notifier(rpc.NOTIFICATION_TRANSPORT)
import nova
from nova.api.openstack.compute import routes

SCHEMAS = {"request_body_schema": "request", "query_params_schema": "query",
           "request_query_schema": "query", "response_body_schema": "response"}
objects = {}

def ver(v):
    if v is None or isinstance(v, str):
        return v
    return None if v.is_null() else v.get_string()

def schema_id(value):
    objects[str(id(value))] = value
    return str(id(value))

def layers(func):
    while func is not None:
        yield func
        func = getattr(func, "__wrapped__", None)

def implementation(func, lo=None, hi=None):
    impl = {"versions": [lo, hi], **{k: [] for k in %(kinds)r}, "removed": False,
            "codes": []}
    for layer in layers(func):
        if getattr(layer, "removed", False):
            impl["removed"] = True
        code = getattr(layer, "__code__", None)
        if code is None or not layer.__closure__:
            continue
        cells = dict(zip(code.co_freevars, (c.cell_contents for c in layer.__closure__)))
        kind = next((SCHEMAS[n] for n in SCHEMAS if n in cells), None)
        if kind:
            name = next(n for n in SCHEMAS if n in cells)
            impl[kind].append([schema_id(cells[name]), ver(cells.get("min_version")),
                               ver(cells.get("max_version"))])
        elif "errors" in cells:
            errors = cells["errors"]
            errors = [errors] if isinstance(errors, int) else list(errors)
            impl["errors"].append([errors, ver(cells.get("min_version")),
                                   ver(cells.get("max_version"))])
        elif "min_version" in cells and "max_version" in cells and "f" in cells:
            impl["versions"] = [ver(cells["min_version"]), ver(cells["max_version"])]
    for layer in layers(func):
        if hasattr(layer, "wsgi_codes"):
            impl["codes"] = [[c, ver(lo), ver(hi)] for c, lo, hi in layer.wsgi_codes._codes]
            break
        if hasattr(layer, "wsgi_code"):
            impl["codes"] = [[layer.wsgi_code, None, None]]
            break
    return impl

def implementations(controller, name):
    versioned = getattr(controller, "versioned_methods", None) or {}
    if name in versioned:
        return [implementation(m.func, ver(m.start_version), ver(m.end_version))
                for m in versioned[name]]
    return [implementation(getattr(type(controller), name))]

def owner(bound):
    """The controller a registered action belongs to: a bound method's instance, or the
    `self` that nova's versioned-method selector closes over."""
    if hasattr(bound, "__self__"):
        return bound.__self__
    cells = dict(zip(bound.__code__.co_freevars, (c.cell_contents for c in bound.__closure__)))
    return cells["self"]

table = {}
missing = []
router = routes.APIRouterV21()
for route in router.map.matchlist:
    resource = route.defaults.get("controller")
    if resource is None:
        continue
    path = route.routepath
    if path.startswith("/{project_id"):
        continue
    action = route.defaults["action"]
    for method in route.conditions["method"]:
        main = resource.controller
        if action == "action" and not hasattr(main, "action"):
            for key, bound in resource.wsgi_actions.items():
                ctl = owner(bound)
                table[f"{method} {path}#{key}"] = implementations(
                    ctl, type(ctl).wsgi_actions[key])
        elif hasattr(type(main), action) or action in (
                getattr(main, "versioned_methods", None) or {}):
            table[f"{method} {path}"] = implementations(main, action)
        else:  # Resource falls back to an action named "create", "delete"...
            bound = resource.wsgi_actions.get(action)
            if bound is not None:  # else: no method, the route answers 404
                ctl = owner(bound)
                table[f"{method} {path}"] = implementations(ctl, type(ctl).wsgi_actions[action])
            else:
                missing.append(f"{method} {path}")
print(json.dumps({"version": nova.__file__, "table": table, "objects": objects,
                  "missing": missing},
                 default=lambda o: sorted(o) if isinstance(o, (set, frozenset)) else repr(o)))
''' % {"kinds": _KINDS}


def imported(python: str, wheel: str) -> dict[str, Any]:
    started = time.monotonic()
    done = subprocess.run([python, "-c", _INTROSPECT, wheel], capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"nova could not be imported from {wheel or python}:\n"
                           + "\n".join(done.stderr.splitlines()[-15:]))
    found: dict[str, Any] = json.loads(done.stdout)
    found["seconds"] = time.monotonic() - started
    return found


# -- the static side ---------------------------------------------------------------------
def git_files(mirror: str, rev: str) -> tuple[tuple[str, ...], dict[str, bytes]]:
    listing = subprocess.run(["git", "-C", mirror, "ls-tree", "-r", "--format=%(objectname) "
                              "%(path)", rev], capture_output=True, check=True, text=True)
    entries = [line.split(" ", 1) for line in listing.stdout.splitlines()]
    wanted = [(sha, path) for sha, path in entries if path.endswith(".py")
              and path.startswith("nova/") and "/tests/" not in path]
    data = subprocess.run(["git", "-C", mirror, "cat-file", "--batch"], check=True,
                          capture_output=True,
                          input="".join(f"{sha}\n" for sha, _ in wanted).encode()).stdout
    files, at = {}, 0
    for _, path in wanted:
        end = data.index(b"\n", at)
        size = int(data[at:end].split()[2])
        files[path] = data[end + 1:end + 1 + size]
        at = end + 1 + size + 1
    return tuple(path for _, path in entries), files


def dir_files(top: Path) -> tuple[tuple[str, ...], dict[str, bytes]]:
    files = {str(p.relative_to(top)): p.read_bytes() for p in (top / "nova").rglob("*.py")
             if "/tests/" not in str(p)}
    return tuple(files), files


def static(listing: tuple[str, ...], files: dict[str, bytes]) -> dict[str, Any]:
    from needs_microversion.loaders.code.contract import read_code_contract

    started = time.process_time()
    contract = read_code_contract(files.get, listing)
    seconds = time.process_time() - started
    assert contract is not None
    table: dict[str, Any] = {}
    for op in contract.operations:
        key = f"{op.method} {op.path}" + (f"#{op.action}" if op.action else "")
        table[key] = [_implementation(impl) for impl in op.implementations]
    return {"table": table, "seconds": seconds, "unread": len(contract.unread)}


def _implementation(impl: Any) -> dict[str, Any]:
    def bounds(versions: Any) -> list[str | None]:
        return [None if v is None else str(v) for v in (versions.lo, versions.hi)]

    kinds = {"request": impl.requests, "query": impl.queries, "response": impl.responses,
             "errors": impl.errors, "codes": impl.codes}
    return {"versions": bounds(impl.versions), "removed": impl.removed is not None,
            **{kind: [[_plain(d.value), *bounds(d.versions)] for d in declared]
               for kind, declared in kinds.items()}}


def _plain(value: Any) -> Any:
    from needs_microversion.loaders.code.output import Converter

    return _strip(Converter({}).convert(value))


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "x-needs-microversion-location"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


# -- comparison --------------------------------------------------------------------------
_SYMBOL = re.compile(r"<[A-Za-z_][\w.]*\([^<>]*\)#[0-9a-f]{12}>")


def same(mine: Any, theirs: Any, loose: list[int]) -> bool:
    """Equal, a helper's symbol matching any text; a list of plain values in another
    order (built from a set: its order depends on the hash seed) counts in `loose`."""
    if isinstance(mine, str) and isinstance(theirs, str) and _SYMBOL.search(mine):
        parts = _SYMBOL.split(mine)
        return re.fullmatch(".*".join(re.escape(p) for p in parts), theirs, re.S) is not None
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(same(mine[k], theirs[k], loose)
                                                    for k in mine)
    if isinstance(mine, list) and isinstance(theirs, list):
        if len(mine) != len(theirs):
            return False
        if all(same(a, b, loose) for a, b in zip(mine, theirs, strict=True)):
            return True
        if all(isinstance(v, (str, int)) for v in mine + theirs) and sorted(
                map(str, mine)) == sorted(map(str, theirs)):
            loose.append(1)
            return True
        return False
    return bool(mine == theirs) and type(mine) is type(theirs)


def _impl_key(impl: dict[str, Any]) -> tuple[tuple[int, int], tuple[int, int]]:
    return _range_key(impl["versions"])


def _range_key(bounds: list[str | None]) -> tuple[tuple[int, int], tuple[int, int]]:
    return (_tuple(bounds[0]) or (0, 0), _tuple(bounds[1]) or (999, 0))


def _tuple(version: str | None) -> tuple[int, int] | None:
    if version is None:
        return None
    major, minor = version.split(".")
    return int(major), int(minor)


def _norm(version: str | None) -> str | None:
    if version is None:
        return None
    major, minor = version.split(".")
    return f"{int(major)}.{int(minor)}"


def compare(mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    objects = theirs["objects"]
    ops_mine, ops_theirs = set(mine["table"]), set(theirs["table"])
    common = sorted(ops_mine & ops_theirs)
    lists = lists_same = 0
    schema_same: dict[str, bool] = {}
    loose: list[int] = []
    differences: list[str] = []
    for key in common:
        a, b = mine["table"][key], theirs["table"][key]
        lists += 1
        a, b = sorted(a, key=_impl_key), sorted(b, key=_impl_key)
        ranges_a = [[_norm(v) for v in i["versions"]] for i in a]
        ranges_b = [[_norm(v) for v in i["versions"]] for i in b]
        if ranges_a == ranges_b:
            lists_same += 1
        else:
            differences.append(f"{key}: implementations {ranges_a} != {ranges_b}")
            continue
        for impl_a, impl_b in zip(a, b, strict=True):
            for kind in _KINDS:
                lists += 1
                ra = sorted(([_norm(x[1]), _norm(x[2])] for x in impl_a[kind]), key=_range_key)
                rb = sorted(([_norm(x[1]), _norm(x[2])] for x in impl_b[kind]), key=_range_key)
                if ra != rb:
                    differences.append(f"{key} {kind}: {ra} != {rb}")
                    continue
                lists_same += 1
                _compare_values(key, kind, impl_a, impl_b, objects, schema_same, loose,
                                differences)
    return {"operations static": len(ops_mine), "operations imported": len(ops_theirs),
            "operations identical": len(common), "only static": sorted(ops_mine - ops_theirs),
            "only imported": sorted(ops_theirs - ops_mine), "range lists": lists,
            "range lists identical": lists_same, "schema objects": len(schema_same),
            "schema objects identical": sum(schema_same.values()),
            "lists equal only in another order": len(loose), "differences": differences[:20],
            "static seconds": round(mine["seconds"], 3), "static unread": mine["unread"],
            "routes to no method (404)": theirs["missing"],
            "import seconds": round(theirs["seconds"], 1)}


def _compare_values(key: str, kind: str, impl_a: dict[str, Any], impl_b: dict[str, Any],
                    objects: dict[str, Any], schema_same: dict[str, bool], loose: list[int],
                    differences: list[str]) -> None:
    def order(items: list[Any]) -> list[Any]:
        return sorted(items, key=lambda x: (_tuple(x[1]) or (0, 0), _tuple(x[2]) or (999, 0)))

    for x, y in zip(order(impl_a[kind]), order(impl_b[kind]), strict=True):
        if kind in ("errors", "codes"):
            if sorted(x[0]) != sorted(y[0]) if kind == "errors" else x[0] != y[0]:
                differences.append(f"{key} {kind}: {x[0]} != {y[0]}")
            continue
        ok = same(x[0], objects[y[0]], loose)
        schema_same[y[0]] = schema_same.get(y[0], True) and ok
        if not ok:
            differences.append(f"{key} {kind} {x[1]}-{x[2]}: schema differs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="python of nova's virtualenv")
    parser.add_argument("--mirror", required=True, help="nova's git repository")
    parser.add_argument("--wheels", default="/tmp/nova-wheels",
                        help="folder of `pip install --target` folders, one per tag")
    parser.add_argument("tags", nargs="+", help="tags; HEAD: git HEAD against the venv's "
                                                "nova; wheel: the venv's nova read as files")
    args = parser.parse_args()
    site = subprocess.run([args.python, "-c", "import nova, os; print(os.path.dirname("
                           "os.path.dirname(nova.__file__)))"], capture_output=True,
                          text=True, check=True).stdout.strip()
    for tag in args.tags:
        wheel = "" if tag in ("HEAD", "wheel") else str(Path(args.wheels) / tag)
        listing, files = dir_files(Path(site)) if tag == "wheel" else git_files(args.mirror,
                                                                               tag)
        try:
            result = compare(static(listing, files), imported(args.python, wheel))
        except RuntimeError as exc:  # that wheel does not import with the venv's packages
            result = {"error": str(exc)}
        print(json.dumps({"tag": tag, **result}, indent=1), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
