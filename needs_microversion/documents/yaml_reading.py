"""Read one YAML text into plain data, safely and in bounded time and memory.

YAML tags other than the core ones are refused. Nesting depth is bounded before PyYAML's C
composer runs (it recurses per level and crashes the process on very deep input), and
alias expansion is measured before anything walks the data ("billion laughs").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

import yaml
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import Node

from needs_microversion.documents.limits import MAX_DEPTH, MAX_NODES, MAX_YAML_NODES, SourceFloat
from needs_microversion.errors import InputError

# Longer integers are refused by int() itself; sexagesimal ones ("1:2:3...") would be slow.
_MAX_INT_DIGITS = 4300
# PyYAML's C composer handles this depth quickly; deeper input is checked event by event,
# and so is text with longer runs of indentation (and "- ? :") than this.
_SAFE_COMPOSE_DEPTH = 10_000
_LONGEST_INDENT = 500
# What can stand in front of a block collection on its line becomes " ", the rest "x".
_INDENT_TO_SPACE = bytes(ord(" ") if c in b" \t-?:" else ord("x") for c in range(256))
_AMPERSAND = re.compile(rb"&[^\s\[\]{},]")
_BEFORE_TOKEN = frozenset(b" \t\r\n[{,:\x85\xa8\xa9")  # \x85, \u2028, \u2029 end in these

# PyYAML's C loader where it was built with libyaml (ten times faster), else the Python one.
SAFE_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _checked(construct: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A scalar constructor whose bad values (`!!int abc`) become errors with a line."""

    def checked(loader: Any, node: Any) -> Any:
        try:
            return construct(loader, node)
        except (ValueError, KeyError):
            raise ConstructorError(None, None, f"invalid {node.tag} value {node.value!r}",
                                   node.start_mark) from None

    return checked


def _construct_int(loader: Any, node: Any) -> int:
    if len(node.value) > _MAX_INT_DIGITS:
        raise ConstructorError(None, None, f"integer longer than {_MAX_INT_DIGITS} digits",
                               node.start_mark)
    value: int = SafeConstructor.construct_yaml_int(loader, node)
    return value


def _construct_float(loader: Any, node: Any) -> SourceFloat:
    return SourceFloat(node.value, SafeConstructor.construct_yaml_float(loader, node))


def _refuse_tag(loader: Any, node: Any) -> Any:
    raise ConstructorError(None, None, f"unsupported YAML tag {node.tag!r}", node.start_mark)


class YamlLoader(SAFE_LOADER):  # type: ignore[misc]
    """The safe loader, minus every tag that is not plain JSON-like data; merges bounded.
    A subclass may let a key be written twice (`unique_keys`) or construct other scalars."""

    unique_keys: ClassVar[bool] = True

    yaml_constructors: ClassVar[dict[str | None, Callable[[Any, Any], Any]]] = {
        "tag:yaml.org,2002:null": SafeConstructor.construct_yaml_null,
        "tag:yaml.org,2002:bool": _checked(SafeConstructor.construct_yaml_bool),
        "tag:yaml.org,2002:int": _checked(_construct_int),
        "tag:yaml.org,2002:float": _checked(_construct_float),
        "tag:yaml.org,2002:str": SafeConstructor.construct_yaml_str,
        # A date such as `2024-01-01` stays the text it was written as.
        "tag:yaml.org,2002:timestamp": SafeConstructor.construct_yaml_str,
        # `<<` and `=` outside mapping keys are just text.
        "tag:yaml.org,2002:merge": SafeConstructor.construct_yaml_str,
        "tag:yaml.org,2002:value": SafeConstructor.construct_yaml_str,
        "tag:yaml.org,2002:seq": SafeConstructor.construct_yaml_seq,
        "tag:yaml.org,2002:map": SafeConstructor.construct_yaml_map,
        None: _refuse_tag,
    }

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.merged_keys = 0
        self.flattened: set[int] = set()  # ids of the nodes whose written keys were checked

    def flatten_mapping(self, node: Node) -> None:
        # A key written twice is an error (YAML says keys are unique; PyYAML keeps the last
        # silently). Keys a merge (`<<`) brings in may be overridden: that is what it is for,
        # so only the keys as written count, the first time a node is flattened (a merged
        # node is flattened again, its merged keys already in it).
        if self.unique_keys and id(node) not in self.flattened:
            self.flattened.add(id(node))
            if not _distinct_texts(node.value):
                _check_unique(node.value)
        # `<<: [*a, *a, ...]` copies key lists, so a merge bomb grows before any data exists:
        # count every key each flatten produces (merged copies included) and stop early.
        super().flatten_mapping(node)
        self.merged_keys += len(node.value)
        if self.merged_keys > MAX_NODES:
            raise ConstructorError(None, None,
                                   f"merges expand to more than {MAX_NODES} keys "
                                   f"(YAML merge-key bomb?)", node.start_mark)


def _distinct_texts(pairs: list[tuple[Node, Node]]) -> bool:
    """No two keys written alike: the one set a mapping needs (nearly every mapping)."""
    try:
        return len({key.value for key, _ in pairs}) == len(pairs)
    except TypeError:  # a complex key (a mapping or a sequence)
        return False


def _check_unique(pairs: list[tuple[Node, Node]]) -> None:
    seen: set[tuple[str, object]] = set()
    for key, _ in pairs:
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
            if (key.tag, key.value) in seen:
                raise ConstructorError(None, None, f"duplicate key {key.value!r}",
                                       key.start_mark)
            seen.add((key.tag, key.value))


def parse_yaml(raw: bytes, text: str, display: str, loader_class: type[YamlLoader] = YamlLoader
               ) -> tuple[Any, Node | None]:
    """The data of one YAML text and its root node, in bounded time and memory; InputError
    (with the line where known) when it is not YAML or breaks a bound."""
    if _yaml_depth_bound(raw) > _SAFE_COMPOSE_DEPTH or _yaml_nodes_bound(raw) > MAX_YAML_NODES:
        _check_yaml_events(text, display)
    try:
        loader = loader_class(text)  # the pure-Python reader checks the characters here
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, text, display) from None
    except RecursionError:  # the pure-Python composer, or a long chain of merge keys
        raise InputError("nested too deeply", display) from None
    # Aliases need an anchor: without one the data is a tree, walked faster without memos.
    (_check_expansion if may_anchor(raw) else _check_tree)(data, display)
    return data, node


def may_anchor(raw: bytes) -> bool:
    """Whether an anchor (`&name`) may be written: one starts a token, so it follows a space,
    a line break or a flow indicator, not text (`?a=1&b=2`)."""
    return any(m.start() == 0 or raw[m.start() - 1] in _BEFORE_TOKEN
               for m in _AMPERSAND.finditer(raw))


def _yaml_depth_bound(raw: bytes) -> int:
    """An upper bound on the nesting depth, from two C-speed counts.

    Block collections nest by indentation (or by "- - -"), at most two levels per column
    (a mapping and its indentless sequence), and the columns in front of a block collection
    hold only spaces, tabs and `-?:` indicators. Flow collections each need a bracket.
    """
    if b" " * _LONGEST_INDENT in raw.translate(_INDENT_TO_SPACE):
        return _SAFE_COMPOSE_DEPTH + 1
    return 2 * _LONGEST_INDENT + raw.count(b"[") + raw.count(b"{")


def _yaml_nodes_bound(raw: bytes) -> int:
    """An upper bound on the number of YAML nodes, from C-speed counts: every node but the
    root is a mapping key or value (`:`, `?`, or a flow `,` `[` `{` in front of it) or a
    sequence item (`-`, or flow `,` `[`). Real documents count 1.1-2 times their nodes."""
    pairs = raw.count(b":") + raw.count(b"?") + raw.count(b",") + raw.count(b"[") + \
        raw.count(b"{")
    return 1 + 2 * pairs + raw.count(b"-")


def _check_yaml_events(text: str, display: str) -> None:
    """Exact nesting depth and node count from the parser's events (no recursion, nothing
    composed), stopping at the limits."""
    depth = nodes = 0
    try:
        loader = YamlLoader(text)
        try:
            while (event := loader.get_event()) is not None:
                if isinstance(event, _NODE_EVENTS):
                    nodes += 1
                    if nodes > MAX_YAML_NODES:
                        mark = event.start_mark
                        raise InputError(f"has more than {MAX_YAML_NODES} YAML nodes (the "
                                         f"limit)", display,
                                         mark.line + 1 if mark is not None else None)
                if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                    depth += 1
                    if depth > MAX_DEPTH:
                        mark = event.start_mark
                        raise InputError(f"nested more than {MAX_DEPTH} levels deep", display,
                                         mark.line + 1 if mark is not None else None)
                elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                    depth -= 1
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, text, display) from None


_NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, yaml.SequenceStartEvent,
                yaml.MappingStartEvent)


def _yaml_error(exc: yaml.YAMLError, text: str, display: str) -> InputError:
    if isinstance(exc, yaml.reader.ReaderError):
        bad = text.find(chr(exc.character)) if isinstance(exc.character, int) else -1
        line = text.count("\n", 0, bad) + 1 if bad >= 0 else None
        return InputError(f"invalid YAML: character U+{exc.character:04X} is not allowed",
                          display, line)
    if not isinstance(exc, yaml.MarkedYAMLError):
        return InputError(f"invalid YAML: {exc}", display)
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    if exc.problem == "but found another document":
        return InputError("more than one YAML document in the file", display, line)
    if exc.problem == "exceeded maximum nesting depth":  # LibYAML's own bound (1,000 levels)
        return InputError(f"nested more than {MAX_DEPTH} levels deep", display, line)
    context = f" ({exc.context})" if exc.context else ""
    return InputError(f"invalid YAML: {exc.problem}{context}", display, line)


def _check_tree(data: Any, display: str) -> None:
    """Refuse data nested too deeply, walking every container once per reference.

    Only for text without anchors, where nothing is shared; should that guess be wrong, the
    node count still bounds the walk and the depth limit stops a cycle.
    """
    if not isinstance(data, (dict, list)):
        return
    nodes = 1 + len(data)
    path = [data]
    pending = [iter(_containers(data))]
    while pending:
        for child in pending[-1]:
            if len(path) >= MAX_DEPTH:
                path.append(child)
                raise _too_deep(path, display)
            nodes += len(child)
            if nodes > MAX_NODES:
                raise InputError(f"expands to more than {MAX_NODES} nodes (YAML alias bomb?)",
                                 display)
            path.append(child)
            pending.append(iter(_containers(child)))
            break
        else:
            pending.pop()
            path.pop()


def _check_expansion(data: Any, display: str) -> None:
    """Refuse data whose alias-expanded tree is too big, too deep, or contains itself.

    Shared (aliased) containers are walked once: their expanded size and height are
    memoised by id(), so the walk is linear in the distinct containers.
    """
    if not isinstance(data, (dict, list)):
        return
    # id -> (expanded nodes, height), or _WALKING while the container is on the current path.
    done: dict[int, tuple[int, int]] = {id(data): _WALKING}
    # The current path, one entry per level: container, child containers left, counts.
    path: list[Any] = [data]
    pending = [iter(_containers(data))]
    sizes, heights = [1 + len(data)], [1]
    while pending:
        for child in pending[-1]:
            hit = done.get(id(child))
            if hit is None:
                if len(path) >= MAX_DEPTH:
                    raise _too_deep([*path, child], display)
                done[id(child)] = _WALKING
                path.append(child)
                pending.append(iter(_containers(child)))
                sizes.append(1 + len(child))
                heights.append(1)
                break
            if hit is _WALKING:
                raise _too_deep([*path, child], display)
            if len(path) + hit[1] > MAX_DEPTH:
                raise InputError(f"nested more than {MAX_DEPTH} levels deep once YAML aliases "
                                 f"are expanded", display)
            sizes[-1] += hit[0] - 1  # the child itself is already counted, as an element
            heights[-1] = max(heights[-1], hit[1] + 1)
        else:
            node, size, height = path.pop(), sizes.pop(), heights.pop()
            pending.pop()
            if size > MAX_NODES:
                raise InputError(f"expands to more than {MAX_NODES} nodes (YAML alias bomb?)",
                                 display)
            done[id(node)] = (size, height)
            if path:
                sizes[-1] += size - 1
                heights[-1] = max(heights[-1], height + 1)


_WALKING = (-1, -1)


def _containers(node: dict[Any, Any] | list[Any]) -> list[Any]:
    """The dicts and lists among a container's values (its scalars only need counting)."""
    values = node.values() if isinstance(node, dict) else node
    return [v for v in values if isinstance(v, (dict, list))]


def _too_deep(path: list[Any], display: str) -> InputError:
    if len({id(node) for node in path}) < len(path):
        return InputError("a YAML alias refers to a node that contains it", display)
    return InputError(f"nested more than {MAX_DEPTH} levels deep", display)
