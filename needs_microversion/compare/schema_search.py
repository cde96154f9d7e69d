"""Every difference below two schemas, each once, at its shortest pointer.

A search over the pairs of schemas the two reach, shortest pointer first, each pair visited
once: recursive schemas are never expanded, and a densely linked graph (Stripe's expandable
fields reach one schema along exponentially many paths) costs one visit per pair. Pairs from
which no difference can be reached are not entered (`_live`). The answer depends on nothing
but the pair, so it is memoised and shared by every operation that uses it.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from typing import Any, NamedTuple

from needs_microversion.compare.schema_diff import Child, PairDiff, Rel, prefix, summary
from needs_microversion.compare.taint import RefTaint
from needs_microversion.model.schema import RawSchema, Schema, SchemaLookup, schema_at
from needs_microversion.model.versions import Version


class SchemaSearch:
    """The schema differences of one comparison, memoised for all its operations."""

    def __init__(self, old_table: SchemaLookup, new_table: SchemaLookup, taint: RefTaint,
                 pairs: PairDiff) -> None:
        self.old_table, self.new_table = old_table, new_table
        self.taint = taint
        self.pairs = pairs
        self._memo: dict[tuple[Any, ...], tuple[Rel, ...]] = {}
        # (raw pair, versions, direction) -> the schema pair, its own differences and the
        # pairs below it that may differ
        self._steps: dict[tuple[Any, ...], _Step] = {}
        self._alive: dict[tuple[Any, ...], bool] = {}  # raw pair -> a difference is below
        # (schema pair, versions, direction) -> its step: many `$ref`s name one schema
        self._resolved: dict[tuple[Any, ...], _Step] = {}
        # raw pair -> (segment, raw pair, schema pair) of the children a difference is below
        self._links: dict[tuple[Any, ...], tuple[tuple[str, tuple[Any, ...], Any], ...]] = {}

    def diff(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
             direction: str) -> tuple[Rel, ...]:
        """Every difference below two schemas (see the module docstring)."""
        key = _raw_key(a, b, va, vb, direction)
        cached = self._memo.get(key)
        if cached is not None:
            return cached
        if self.same(a, b) or not self._live(a, b, va, vb, direction):
            self._memo[key] = ()
            return ()
        # Many `$ref`s name one schema: the schemas they resolve to decide the answer.
        pair = (self._steps[key].pair, va, vb, direction)
        cached = self._memo.get(pair)
        if cached is not None:
            self._memo[key] = cached
            return cached
        found: list[Rel] = []
        seen: set[tuple[int | None, int | None]] = set()
        order = itertools.count()  # ties keep the order children were found in
        heap: list[tuple[int, str, int, tuple[Any, ...]]] = [(0, "", next(order), key)]
        # The best place each pair was queued at: a pair reached again along a longer (or
        # later) pointer is not queued again (Stripe's schemas reach one pair many ways).
        queued: dict[tuple[int | None, int | None] | None, tuple[int, str]] = {}
        steps, push, pop = self._steps, heapq.heappush, heapq.heappop
        while heap:  # the hot loop of a large diff: locals, no calls it can avoid
            _, pointer, _, here = pop(heap)
            step = steps[here]  # computed by _live for every pair it reached
            if step.pair is None or step.pair in seen:
                continue  # the same schemas under another `$ref`: already walked
            seen.add(step.pair)
            if step.own:
                found.extend(prefix(rel, pointer) for rel in step.own)
            links = self._links.get(here)
            if links is None:
                links = self._links[here] = self._live_links(step, va, vb, direction)
            for segment, below, target in links:
                if target in seen:
                    continue
                place = (len(pointer) + len(segment), pointer + segment)
                best = queued.get(target)
                if best is None or place < best:
                    queued[target] = place
                    push(heap, (place[0], place[1], next(order), below))
        result = tuple(found)
        self._memo[key] = self._memo[pair] = result
        return result

    def _live_links(self, step: _Step, va: Version, vb: Version, direction: str
                    ) -> tuple[tuple[str, tuple[Any, ...], Any], ...]:
        """The children of a pair worth walking into (decided by `_live` before any walk)."""
        links = []
        for segment, ca, cb in step.children:
            below = _raw_key(ca, cb, va, vb, direction)
            if self._alive[below]:
                links.append((segment, below, self._steps[below].pair))
        return tuple(links)

    def _step(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
              direction: str) -> _Step:
        """One pair's own differences and the pairs below it that may differ."""
        key = _raw_key(a, b, va, vb, direction)
        step = self._steps.get(key)
        if step is None:
            step = self._steps[key] = self._compute_step(a, b, va, vb, direction)
        return step

    def _live(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
              direction: str) -> bool:
        """Whether any difference can be reached from a pair: its own, or a live pair's
        below it. Pairs that reach each other (a recursive schema) are live together, so
        this is Tarjan's strongly connected components over the pairs, iterative (schemas
        nest deeply), each pair decided once for the whole comparison."""
        root = _raw_key(a, b, va, vb, direction)
        if root in self._alive:
            return self._alive[root]
        index: dict[tuple[Any, ...], int] = {}
        low: dict[tuple[Any, ...], int] = {}
        flag: dict[tuple[Any, ...], bool] = {}
        stack: list[tuple[Any, ...]] = []

        def enter(key: tuple[Any, ...], pa: RawSchema | None, pb: RawSchema | None
                  ) -> tuple[tuple[Any, ...], Iterator[Child]]:
            index[key] = low[key] = len(index)
            stack.append(key)
            step = self._step(pa, pb, va, vb, direction)
            flag[key] = bool(step.own)
            return key, iter(step.children)

        frames = [enter(root, a, b)]
        while frames:
            key, children = frames[-1]
            child = next(children, None)
            if child is not None:
                below = _raw_key(child.old, child.new, va, vb, direction)
                if below in self._alive:  # decided: a finished component
                    flag[key] = flag[key] or self._alive[below]
                elif below not in index:
                    frames.append(enter(below, child.old, child.new))
                else:  # on the stack: the same component
                    low[key] = min(low[key], index[below])
                continue
            frames.pop()
            if low[key] == index[key]:  # the root of a component: decide all of it
                members = stack[stack.index(key):]
                del stack[len(stack) - len(members):]
                alive = any(flag[m] for m in members)
                self._alive.update(dict.fromkeys(members, alive))
            if frames:
                parent = frames[-1][0]
                low[parent] = min(low[parent], low[key])
                flag[parent] = flag[parent] or self._alive.get(key, False)
        return self._alive[root]

    def _compute_step(self, a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
                      direction: str) -> _Step:
        sa = schema_at(self.old_table, a, va)
        sb = schema_at(self.new_table, b, vb)
        if sa is None and sb is None:
            return _Step(None, (), ())
        pair = (id(sa) if sa else None, id(sb) if sb else None)
        resolved = (pair, va, vb, direction)
        step = self._resolved.get(resolved)
        if step is None:
            step = self._resolved[resolved] = self._pair_step(pair, sa, sb, va, vb, direction)
        return step

    def _pair_step(self, pair: tuple[int | None, int | None], sa: Schema | None,
                   sb: Schema | None, va: Version, vb: Version, direction: str) -> _Step:
        if sa is None or sb is None:
            shown = sb or sa
            assert shown is not None
            return _Step(pair, (Rel("", "added" if sa is None else "removed", "",
                                    old=sa and summary(sa), new=sb and summary(sb),
                                    old_at=sa.location if sa else None,
                                    new_at=sb.location if sb else None,
                                    inferred=shown.inferred),), ())
        own: list[Rel] = []
        children: list[Child] = []
        for item in self.pairs.own(sa, sb, va, vb, direction):
            if not isinstance(item, Child):
                own.append(item)
            elif not self.same(item.old, item.new):
                children.append(item)
        return _Step(pair, tuple(own), tuple(children))

    def same(self, a: RawSchema | None, b: RawSchema | None) -> bool:
        """Raw-equal schemas whose `$ref`s reach equal targets cannot differ anywhere below."""
        return a is not None and b is not None and a.node == b.node and self.taint.clean(a.node)



def _raw_key(a: RawSchema | None, b: RawSchema | None, va: Version, vb: Version,
             direction: str) -> tuple[Any, ...]:
    return (id(a.node) if a else None, id(b.node) if b else None, va, vb, direction)


class _Step(NamedTuple):
    pair: tuple[int | None, int | None] | None  # the schemas compared (None: neither exists)
    own: tuple[Rel, ...]
    children: tuple[Child, ...]

