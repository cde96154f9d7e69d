"""The api-ref side of a case: one operation's tables, status codes and prose edited the
way the project writes them, and `parameters.yaml` entries added, gated or removed.

`Tree` holds the api-ref folder at one revision (its included `.inc` files parsed, its
parameter files as text); the edit functions change a `Tree` in memory and `Tree.changes`
returns the files to write into the case commit.
"""

from __future__ import annotations

import posixpath
import random
import re
import textwrap
from dataclasses import dataclass, field

from benchmarks.known_truth.git import Repo
from benchmarks.known_truth.projects import Profile, Version, vstr
from benchmarks.known_truth.rst import (IncFile, Operation, ParamsFile, Table,
                                        included_files, prose_code_name)

SCALAR_TYPES = ("string", "uuid", "integer", "int", "boolean", "bool", "float", "datetime",
                "number", "str")
OBJECT_TYPES = ("object", "dict", "array", "list", "dictionary")

# Names a contributor might add; none is a real field of these APIs (checked per tree).
NEW_FIELDS = [
    ("retention_days", "integer", "The number of days the {r} is kept after deletion."),
    ("maintenance_reason", "string", "The reason the {r} was put into maintenance."),
    ("owner_domain_id", "string", "The ID of the domain that owns the {r}."),
    ("last_audit_at", "string", "The date and time of the last audit of the {r}."),
    ("priority_class", "string", "The priority class assigned to the {r}."),
    ("sync_state", "string", "The synchronisation state of the {r}."),
    ("is_protected", "boolean", "Whether the {r} is protected against deletion."),
    ("placement_hint", "string", "A free-text placement hint recorded for the {r}."),
    ("revision_number", "integer", "The revision number of the {r}, raised on each update."),
    ("labels_digest", "string", "A digest of the labels attached to the {r}."),
    ("quarantine_reason", "string", "Why the {r} was quarantined, if it was."),
    ("expected_ready_at", "string", "When the {r} is expected to become ready."),
]
NEW_FILTERS = [
    ("created_before", "string", "Only list items created before this date and time."),
    ("owner_domain", "string", "Only list items owned by this domain."),
    ("sync_state", "string", "Only list items in this synchronisation state."),
    ("is_protected", "boolean", "Only list protected (or unprotected) items."),
    ("priority_class", "string", "Only list items of this priority class."),
    ("revision_min", "integer", "Only list items at or above this revision number."),
]
REASONS = [
    "the {r} is locked by another operation",
    "the {r} is in a transitional state",
    "another request is already updating the {r}",
    "the {r} is still in use",
]


@dataclass
class Tree:
    profile: Profile
    repo: Repo
    rev: str
    folder: str
    incs: dict[str, IncFile] = field(default_factory=dict)
    params: dict[str, ParamsFile] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, profile: Profile, repo: Repo, rev: str) -> Tree | None:
        folder = profile.api_ref
        present = repo.files(rev, folder)
        if not present:
            return None
        index = repo.blob(rev, f"{folder}/index.rst")
        tree = cls(profile, repo, rev, folder)
        for path in included_files(folder, index, present):
            text = repo.blob(rev, path)
            if text is not None:
                tree.incs[path] = IncFile(path, text)
        for path in present:
            if path.endswith(".yaml") and posixpath.basename(path).startswith("parameters"):
                tree.params[path] = ParamsFile(path, repo.blob(rev, path) or "")
        return tree if tree.incs else None

    def operations(self) -> list[Operation]:
        return [op for inc in self.incs.values() for op in inc.operations]

    def params_for(self, table: Table) -> ParamsFile | None:
        path = posixpath.normpath(posixpath.join(self.folder, table.param_file.lstrip("/")))
        return self.params.get(path)

    def all_refkeys(self) -> set[str]:
        return {ref for op in self.operations() for t in op.tables for _, _, ref in t.items}

    def uses(self, refkey: str) -> int:
        return sum(1 for op in self.operations() for t in op.tables for _, _, ref in t.items
                   if ref == refkey)

    def changes(self) -> dict[str, str]:
        out = dict(self.extra)
        for path in self.touched:
            if path in self.incs:
                out[path] = self.incs[path].text()
            elif path in self.params:
                out[path] = self.params[path].text()
        return out

    def texts(self) -> list[str]:
        return [inc.text() for inc in self.incs.values()]


def entry_type(pfile: ParamsFile, ref: str) -> str:
    return str(pfile.entry(ref).get("type", "")).strip().lower()


def is_versioned(pfile: ParamsFile, ref: str) -> bool:
    entry = pfile.entry(ref)
    return entry.get("min_version") is not None or entry.get("max_version") is not None


def body_rows(tree: Tree, table: Table) -> list[tuple[int, str, str, str]]:
    """(line, name, refkey, type) of the table's body rows."""
    pfile = tree.params_for(table)
    if pfile is None:
        return []
    rows = []
    for line, name, ref in table.items:
        entry = pfile.entry(ref)
        if entry.get("in") == "body":
            rows.append((line, name, ref, entry_type(pfile, ref)))
    return rows


def wrapper_of(tree: Tree, table: Table) -> tuple[str | None, bool]:
    """The body's top key (`server`, `volumes`) when the first body row is an object or
    array; (None, False) for a flat body."""
    rows = body_rows(tree, table)
    if len(rows) < 2:
        return None, False
    _, name, _, typ = rows[0]
    if "." in name or not typ.startswith(OBJECT_TYPES):
        return None, False
    return name, typ.startswith(("array", "list"))


def resource_word(op: Operation) -> str:
    segments = [s for s in op.url.split("?")[0].split("/")
                if s and not s.startswith("{") and not re.match(r"^v\d", s)]
    word = segments[-1] if segments else "resource"
    if word in ("detail", "action", "actions") and len(segments) > 1:
        word = segments[-2]
    word = word.replace("os-", "").replace("-", " ").replace("_", " ")
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def action_key(tree: Tree, op: Operation) -> str | None:
    match = re.search(r"\(([\w:-]+)\s+Action\)", op.title.text, re.I)
    if match:
        return match.group(1)
    table = op.table("request")
    if table is not None:
        for _, row, _, _ in body_rows(tree, table):
            if "." not in row:
                return row
    return None


# ---------------------------------------------------------------------------------------
# Parameter rows


@dataclass
class RowEdit:
    op: Operation
    table: Table
    name: str  # display name in the table
    attr: str  # the last segment (the JSON key)
    refkey: str
    typ: str
    wrapper: str | None
    wrapper_is_list: bool
    description: str
    where: str  # "body" or "query"


def _pick_field(rng: random.Random, pool, taken: set[str]):
    options = [f for f in pool if f[0] not in taken]
    return rng.choice(options) if options else None


def plan_add_row(tree: Tree, op: Operation, kind: str, rng: random.Random) -> RowEdit | None:
    """Where a new response attribute / request attribute / query parameter goes."""
    role = "response" if kind == "resp-add" else "request"
    table = op.table(role)
    if table is None or not table.items:
        return None
    pfile = tree.params_for(table)
    if pfile is None:
        return None
    names_taken = {name.split(".")[-1] for _, name, _ in table.items}
    resource = resource_word(op)
    if kind == "query-add":
        # filters belong to list operations (GET on a collection), not to a show
        if op.method != "GET" or op.url.split("?")[0].rstrip("/").endswith("}"):
            return None
        choice = _pick_field(rng, NEW_FILTERS, names_taken | set(pfile.data))
        if choice is None:
            return None
        attr, typ, desc = choice
        refkey = f"{attr}_query"
        n = 2
        while pfile.has(refkey):
            refkey = f"{attr}_query_{n}"
            n += 1
        return RowEdit(op, table, attr, attr, refkey, typ, None, False, desc, "query")
    if kind == "req-add" and op.method not in ("POST", "PUT", "PATCH"):
        return None
    rows = body_rows(tree, table)
    if len(rows) < 2:
        return None
    wrapper, is_list = wrapper_of(tree, table)
    children = rows[1:] if wrapper else rows
    depth = min(name.count(".") for _, name, _, _ in children)
    siblings = [r for r in children if r[1].count(".") == depth
                and r[3].startswith(SCALAR_TYPES)]
    if wrapper and depth > 0:
        siblings = [r for r in siblings if r[1].split(".")[0] == wrapper]
    if not siblings:
        return None
    sibling = rng.choice(siblings)
    choice = _pick_field(rng, NEW_FIELDS, names_taken | set(pfile.data))
    if choice is None:
        return None
    attr, typ, desc = choice
    prefix = sibling[1].rsplit(".", 1)[0] + "." if "." in sibling[1] else ""
    refkey = attr if not pfile.has(attr) else f"{attr}_{resource.replace(' ', '_')}"
    if pfile.has(refkey):
        return None
    return RowEdit(op, table, prefix + attr, attr, refkey, typ, wrapper, is_list,
                   desc.format(r=resource), "body")


def apply_add_row(tree: Tree, edit: RowEdit, rng: random.Random, gate: Version | None,
                  request: bool) -> None:
    """The row in the table (after its sibling / after the last query row) and the
    parameters.yaml entry, gated as the project writes it when `gate` is given."""
    inc = tree.incs[edit.op.file]
    table = edit.table
    pfile = tree.params_for(table)
    lines = inc.lines
    if edit.where == "query":
        query_rows = [line for line, _, ref in table.items
                      if pfile.entry(ref).get("in") in ("query", "path", "header")]
        after = max(query_rows) if query_rows else table.items[0][0] - 1
    else:
        after = _sibling_line(tree, edit)
    lines.insert(after + 1, f"{table.indent}- {edit.name}: {edit.refkey}")
    description = edit.description
    values = {"in": edit.where, "required": "false" if request or edit.where == "query"
              else rng.choice(["true", "false"]), "type": edit.typ}
    if gate is not None:
        style = tree.profile.doc_gate
        if style == "min_version":
            values["min_version"] = vstr(gate)
        elif style == "new_in_version":
            description += f"\n\n``New in version {vstr(gate)}``"
        elif style == "prose_since":
            what = "parameter is only accepted" if request or edit.where == "query" \
                else "field is only returned"
            description += (f" This {what} starting with API microversion {vstr(gate)} "
                            "or greater.")
    _insert_entry(pfile, edit.refkey, values, description)
    tree.touched.update({inc.path, pfile.path})
    if gate is not None and tree.profile.doc_gate == "versionadded":
        what = "query parameter" if edit.where == "query" else "field"
        _versionadded(inc, edit.op, gate, f"Introduced the ``{edit.attr}`` {what}.",
                      shift_from=after + 1)
    _reparse(tree, inc.path)


def _sibling_line(tree: Tree, edit: RowEdit) -> int:
    rows = body_rows(tree, edit.table)
    prefix = edit.name.rsplit(".", 1)[0] if "." in edit.name else None
    candidates = [line for line, name, _, typ in rows
                  if (name.rsplit(".", 1)[0] if "." in name else None) == prefix
                  and name != edit.wrapper and typ.startswith(SCALAR_TYPES)]
    return candidates[-1] if candidates else rows[-1][0]


def _insert_entry(pfile: ParamsFile, key: str, values: dict[str, str], description: str):
    if "\n\n" in description:  # a paragraph break (masakari's version note)
        first, second = description.split("\n\n", 1)
        pfile.insert_entry(key, values, first)
        span = pfile.description_span(key)
        if span:
            _, end, indent = span
            pfile.lines[end:end] = ["", indent + second]
        return
    pfile.insert_entry(key, values, description)


def _reparse(tree: Tree, path: str) -> None:
    tree.incs[path] = IncFile(path, tree.incs[path].text())


def _versionadded(inc: IncFile, op: Operation, gate: Version, text: str,
                  shift_from: int) -> None:
    """ironic: `.. versionadded:: X.Y` + an indented sentence in the operation's
    description, after its other version notes, before the response codes."""
    lines = inc.lines
    fresh = IncFile(inc.path, inc.text())
    target = next((o for o in fresh.operations if o.method_line == op.method_line), None)
    if target is None:
        return
    first_code = min([c.start for c in target.codes] +
                     [t.directive for t in target.tables] + [target.end])
    # after the last versionadded/versionchanged block before the codes
    at = first_code
    while at - 1 > target.method_line and not lines[at - 1].strip():
        at -= 1
    block = ["", f".. versionadded:: {vstr(gate)}", f"  {text}"]
    lines[at:at] = block


def plan_remove_row(tree: Tree, op: Operation, rng: random.Random, unique: bool
                    ) -> RowEdit | None:
    table = op.table("response")
    if table is None:
        return None
    pfile = tree.params_for(table)
    if pfile is None:
        return None
    rows = body_rows(tree, table)
    wrapper, is_list = wrapper_of(tree, table)
    children = rows[1:] if wrapper else rows
    if len(children) < 3:
        return None
    depth = min(name.count(".") for _, name, _, _ in children)
    candidates = [r for r in children if r[1].count(".") == depth
                  and r[3].startswith(SCALAR_TYPES) and not is_versioned(pfile, r[2])
                  and r[1].split(".")[-1] not in ("id", "uuid", "name", "links", "href")
                  and (not unique or tree.uses(r[2]) == 1)]
    if not candidates:
        return None
    _, name, ref, typ = rng.choice(candidates)
    return RowEdit(op, table, name, name.split(".")[-1], ref, typ, wrapper, is_list, "",
                   "body")


def apply_remove_row(tree: Tree, edit: RowEdit, gate_max: Version | None) -> None:
    """Forgotten: the row removed (and its entry when nothing else uses it). Done right
    (max_version projects): the row kept, its entry capped at the old maximum."""
    inc = tree.incs[edit.op.file]
    pfile = tree.params_for(edit.table)
    if gate_max is None:
        line = next(line for line, name, ref in edit.table.items
                    if name == edit.name and ref == edit.refkey)
        del inc.lines[line]
        if tree.uses(edit.refkey) == 1:
            span = pfile.span(edit.refkey)
            if span:
                first, end = span
                if end < len(pfile.lines) and not pfile.lines[end].strip():
                    end += 1
                del pfile.lines[first:end]
        tree.touched.add(pfile.path)
    else:
        pfile.set_field(edit.refkey, "max_version", vstr(gate_max))
        tree.touched.add(pfile.path)
    tree.touched.add(inc.path)
    _reparse(tree, inc.path)


# ---------------------------------------------------------------------------------------
# Status codes


def add_code(tree: Tree, op: Operation, code: int) -> bool:
    """`code` added to the operation's error codes, in the file's own syntax."""
    inc = tree.incs[op.file]
    lines = inc.lines
    codes = op.codes_of("error")
    if codes is None:
        success = op.codes_of("success")
        if success is None:
            return False
        if success.style == "directive":
            block = ["", f".. rest_status_code:: error {success.status_file}", "",
                     f"   - {code}"]
        else:
            word = "Error response codes" if "response" in lines[success.start].lower() \
                else "Error codes"
            item = f"{prose_code_name(code, tree.texts())}({code})" \
                if re.search(r"[A-Za-z]\(\d{3}\)", "\n".join(tree.texts())) else str(code)
            block = ["", f"{word}: {item}"]
        lines[success.end + 1:success.end + 1] = block
        tree.touched.add(inc.path)
        _reparse(tree, inc.path)
        return True
    if code in codes.codes:
        return False
    if codes.style == "directive":
        items = [(k, int(m.group(2))) for k in range(codes.start + 1, codes.end + 1)
                 if (m := re.match(r"^(\s+)-\s+(\d{3})", lines[k]))]
        if not items:
            return False
        indent = re.match(r"^(\s+)", lines[items[0][0]]).group(1)
        at = next((k for k, c in items if c > code), items[-1][0] + 1)
        lines.insert(at, f"{indent}- {code}")
        _ensure_status(tree, codes.status_file, code)
    elif codes.style == "bullets":
        items = [(k, int(m.group(2))) for k in range(codes.start + 1, codes.end + 1)
                 if (m := re.match(r"^(\s+)-\s+(\d{3})", lines[k]))]
        indent = re.match(r"^(\s+)", lines[items[0][0]]).group(1)
        at = next((k for k, c in items if c > code), items[-1][0] + 1)
        name = {400: "Invalid", 404: "NotFound", 409: "Conflict"}.get(code, "Error")
        lines.insert(at, f"{indent}- {code} ({name})")
    else:
        text = " ".join(lines[codes.start:codes.end + 1])
        named = re.search(r"[A-Za-z]\s?\(\d{3}\)", text) is not None
        item = f"{prose_code_name(code, tree.texts())}({code})" if named else str(code)
        sep = ", " if ", " in text.split(":", 1)[1] or not re.search(r"\d,\d", text) else ","
        # before the first larger code, else at the end of the paragraph
        placed = False
        for k in range(codes.start, codes.end + 1):
            line = lines[k]
            for match in re.finditer(r"([A-Za-z]*\s?\()?(\d{3})\)?", line):
                if k == codes.start and match.start() < line.find(":"):
                    continue
                if int(match.group(2)) > code:
                    lines[k] = line[:match.start()] + item + sep + line[match.start():]
                    placed = True
                    break
            if placed:
                break
        if not placed:
            last = lines[codes.end].rstrip()
            if len(last) + len(sep) + len(item) <= 79:
                lines[codes.end] = last + sep + item
            else:
                lines[codes.end] = last + sep.rstrip()
                lines.insert(codes.end + 1, item)
    tree.touched.add(inc.path)
    _reparse(tree, inc.path)
    return True


def _ensure_status(tree: Tree, status_file: str, code: int) -> None:
    path = posixpath.normpath(posixpath.join(tree.folder, status_file))
    text = tree.extra.get(path, tree.repo.blob(tree.rev, path))
    if text is None or re.search(rf"^\s*{code}:", text, re.M):
        return
    indent = re.search(r"^(\s*)\d{3}:", text, re.M)
    ind = indent.group(1) if indent else ""
    words = {400: "Some content in the request was invalid.",
             404: "The requested resource could not be found.",
             409: "This operation conflicted with another operation on this resource."}
    tree.extra[path] = text.rstrip("\n") + f"\n{ind}{code}:\n{ind}  default: |\n" \
                                           f"{ind}    {words.get(code, 'Error.')}\n"


PHRASINGS = ["note-after", "in-list", "versionadded", "description"]


def gate_code_in_prose(tree: Tree, op: Operation, code: int, gate: Version, phrasing: str,
                       reason: str) -> str:
    """The 409 gated in prose, one of four ways; returns a word on how."""
    inc = tree.incs[op.file]
    fresh = next(o for o in inc.operations if o.method_line == op.method_line)
    lines = inc.lines
    codes = fresh.codes_of("error")
    v = vstr(gate)
    if phrasing == "in-list" and codes is not None and codes.style == "prose" \
            and re.search(rf"\({code}\)", " ".join(lines[codes.start:codes.end + 1])):
        for k in range(codes.start, codes.end + 1):
            if f"({code})" in lines[k]:
                lines[k] = lines[k].replace(f"({code})", f"({code}) (microversion {v} - )", 1)
                if len(lines[k]) > 79 and ", " in lines[k][:79]:
                    cut = lines[k].rfind(", ", 0, 79)
                    lines[k:k + 1] = [lines[k][:cut + 1], lines[k][cut + 2:]]
                break
        tree.touched.add(inc.path)
        _reparse(tree, inc.path)
        return f"'{code} (microversion {v} - )' in the error codes list"
    if phrasing == "in-list":
        phrasing = "note-after"
        after_directive = codes is not None and codes.style == "directive"
        if after_directive:
            text = (f"New in version {v}: the request fails with ``{code} Conflict`` "
                    f"when {reason}.")
            at = codes.end + 1
            lines[at:at] = [""] + textwrap.wrap(text, 79)
            tree.touched.add(inc.path)
            _reparse(tree, inc.path)
            return f"'New in version {v}' paragraph after the status code list"
    if phrasing == "note-after":
        anchor = codes.end + 1 if codes else fresh.method_line + 1
        body = textwrap.wrap(f"Starting with microversion {v}, this API returns "
                             f"``{code} Conflict`` if {reason}.", 76)
        block = ["", ".. note::", ""] + ["   " + line for line in body]
        lines[anchor:anchor] = block
        tree.touched.add(inc.path)
        _reparse(tree, inc.path)
        return "'.. note:: Starting with microversion ...' after the status codes"
    if phrasing == "versionadded":
        first_code = min([c.start for c in fresh.codes] + [fresh.end])
        at = first_code
        while at - 1 > fresh.method_line and not lines[at - 1].strip():
            at -= 1
        block = ["", f".. versionadded:: {v}",
                 f"   The API returns ``{code} Conflict`` when {reason}."]
        lines[at:at] = block
        tree.touched.add(inc.path)
        _reparse(tree, inc.path)
        return "'.. versionadded::' before the status codes"
    # description: a sentence at the end of the operation's description
    first_code = min([c.start for c in fresh.codes] + [t.directive for t in fresh.tables]
                     + [fresh.end])
    at = first_code
    while at - 1 > fresh.method_line and not lines[at - 1].strip():
        at -= 1
    text = (f"Since microversion {v}, if {reason}, the request fails with HTTP "
            f"{code} (Conflict).")
    lines[at:at] = [""] + textwrap.wrap(text, 79)
    tree.touched.add(inc.path)
    _reparse(tree, inc.path)
    return "'Since microversion ...' sentence in the operation description"


# ---------------------------------------------------------------------------------------
# Documentation-only edits

REWORDS = [
    (r"\bThe UUID of the\b", "The unique identifier (UUID) of the"),
    (r"\bThe name of the\b", "The human-readable name of the"),
    (r"\bThe date and time when the\b", "The date and time at which the"),
    (r"\bA list of\b", "The list of"),
    (r"\bThe ID of the\b", "The identifier of the"),
    (r"\bin order to\b", "to"),
    (r"\bThe number of\b", "The count of"),
    (r"\bIndicates whether\b", "Shows whether"),
    (r"\be\.g\.", "for example,"),
    (r"\bi\.e\.", "that is,"),
]
TYPOS = [("teh", "the"), ("recieve", "receive"), ("occured", "occurred"),
         ("seperate", "separate"), ("paramter", "parameter"), ("accross", "across"),
         ("availabe", "available"), ("specifed", "specified"), ("retreive", "retrieve"),
         ("identifer", "identifier"), ("wich", "which"), ("existance", "existence"),
         ("dependant", "dependent"), ("succesful", "successful"), ("asociated",
                                                                   "associated")]


def _plain_paragraph(lines: list[str]) -> bool:
    text = "\n".join(lines)
    return (len(lines) >= 2 and "::" not in text and "`" not in text
            and not any(re.match(r"^\s*([-*+|]|\d+\.|\.\.)", line) for line in lines)
            and len({len(line) - len(line.lstrip()) for line in lines}) == 1)


def docs_only(tree: Tree, rng: random.Random) -> str | None:
    """One documentation-only edit; returns its description."""
    used = tree.all_refkeys()
    options = []
    for pfile in tree.params.values():
        for key, _, _ in pfile.spans:
            if key not in used:
                continue
            span = pfile.description_span(key)
            if span is None:
                continue
            first, end, indent = span
            body = pfile.lines[first:end]
            text = "\n".join(body)
            for wrong, right in TYPOS:
                if re.search(rf"\b{wrong}\b", text):
                    options.append(("typo", pfile, key, first, end, (wrong, right)))
            for pattern, repl in REWORDS:
                if re.search(pattern, text):
                    options.append(("reword", pfile, key, first, end, (pattern, repl)))
            if _plain_paragraph(body) and len(" ".join(body)) > 90:
                options.append(("reflow", pfile, key, first, end, indent))
    for inc in tree.incs.values():
        for op in inc.operations:
            stop = min([c.start for c in op.codes] + [t.directive for t in op.tables]
                       + [op.end])
            k = op.method_line + 1
            while k < stop:
                if inc.lines[k].strip() and (k == 0 or not inc.lines[k - 1].strip()):
                    j = k
                    while j < stop and inc.lines[j].strip():
                        j += 1
                    para = inc.lines[k:j]
                    if _plain_paragraph(para) and len(" ".join(para)) > 100 \
                            and not any(re.search(r"\d+\.\d+", line) for line in para):
                        options.append(("prose-reflow", inc, op, k, j, None))
                    k = j
                k += 1
    if not options:
        return None
    kinds = sorted({o[0] for o in options})
    kind = rng.choice(kinds)
    choice = rng.choice([o for o in options if o[0] == kind])
    if kind in ("typo", "reword"):
        _, pfile, key, first, end, (a, b) = choice
        for i in range(first, end):
            new = re.sub(rf"\b{a}\b" if kind == "typo" else a, b, pfile.lines[i], count=1)
            if new != pfile.lines[i]:
                pfile.lines[i] = new
                break
        if kind == "reword":
            _rewrap(pfile.lines, first, end)
        tree.touched.add(pfile.path)
        what = f"fix the typo '{a}' -> '{b}'" if kind == "typo" else \
            f"reword '{a.replace(chr(92) + 'b', '')}' -> '{b}'"
        return f"{pfile.path}: {key} description: {what}"
    if kind == "reflow":
        _, pfile, key, first, end, indent = choice
        words = " ".join(line.strip() for line in pfile.lines[first:end])
        current = max(len(line) for line in pfile.lines[first:end])
        width = 60 if current > 66 else 76
        pfile.lines[first:end] = textwrap.wrap(words, width, initial_indent=indent,
                                               subsequent_indent=indent)
        tree.touched.add(pfile.path)
        return f"{pfile.path}: {key} description reflowed to {width} columns"
    _, inc, op, k, j, _ = choice
    words = " ".join(line.strip() for line in inc.lines[k:j])
    current = max(len(line) for line in inc.lines[k:j])
    width = 60 if current > 66 else 76
    inc.lines[k:j] = textwrap.wrap(words, width)
    tree.touched.add(inc.path)
    _reparse(tree, inc.path)
    return f"{inc.path}: description of {op.key} reflowed to {width} columns"


def _rewrap(lines: list[str], first: int, end: int) -> None:
    """Keep a reworded paragraph under 80 columns without moving other words."""
    for i in range(first, end):
        if len(lines[i]) > 79:
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            wrapped = textwrap.wrap(lines[i].strip(), 79 - len(indent))
            lines[i:i + 1] = [indent + w for w in wrapped]
            break


# ---------------------------------------------------------------------------------------
# Catch-up markers


def marker_files(tree: Tree) -> dict[str, str]:
    """`.inc` files that carry a catch-up marker: `.. needs:*` (nova, cyborg) or an ironic
    file-level `.. versionadded::` (before the file's first operation)."""
    found = {}
    for path, inc in tree.incs.items():
        first_op = inc.operations[0].start if inc.operations else len(inc.lines)
        for line in inc.lines[:first_op]:
            if re.match(r"^\.\.\s+needs:\w+", line):
                found[path] = line.strip()
                break
            if tree.profile.name == "ironic" and re.match(r"^\.\.\s+versionadded::", line):
                found[path] = line.strip()
                break
    return found
