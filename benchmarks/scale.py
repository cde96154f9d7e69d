"""Does the cost of a run grow with the change or with the document?

Writes a generated OpenAPI document of --operations operations (every one referring to a
shared component schema) and two changed copies: one operation given a new response field,
and the shared component given a new field (a change to every operation). Then it times the
installed console script on each pair (median of --repeat runs after a warm-up), without
validation and, with --validate, with it.

Run: python benchmarks/scale.py [--operations N] [--repeat N] [--validate]
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import measure, tool_command  # noqa: E402  (the same timing as bench.py)


def document(operations: int) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for i in range(operations // 2):
        item = {"type": "object", "properties": {"id": {"type": "string"},
                                                 f"field{i}": {"type": "integer"}}}
        responses = {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"allOf": [{"$ref": "#/components/schemas/Shared"}, item]}}}}}
        paths[f"/things{i}/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "string"}}],
            "get": {"operationId": f"get{i}", "responses": responses},
            "delete": {"operationId": f"delete{i}",
                       "responses": {"204": {"description": "gone"}}},
        }
    return {"openapi": "3.0.3", "info": {"title": "scale", "version": "1.0"}, "paths": paths,
            "components": {"schemas": {"Shared": {"type": "object", "properties": {
                "name": {"type": "string"}}}}}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--operations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--validate", action="store_true", help="also time validated runs")
    args = parser.parse_args()
    base = document(args.operations)
    one = copy.deepcopy(base)
    middle = f"/things{args.operations // 4}/{{id}}"
    schema = one["paths"][middle]["get"]["responses"]["200"]["content"]["application/json"]
    schema["schema"]["allOf"][1]["properties"]["added"] = {"type": "string"}
    shared = copy.deepcopy(base)
    shared["components"]["schemas"]["Shared"]["properties"]["added"] = {"type": "string"}
    tool = tool_command()
    modes = [["--no-validate"], []] if args.validate else [["--no-validate"]]
    with tempfile.TemporaryDirectory() as folder:
        files = {}
        for name, data in (("old", base), ("one", one), ("shared", shared)):
            files[name] = Path(folder) / f"{name}.json"
            files[name].write_text(json.dumps(data, indent=1))
        size = files["old"].stat().st_size / 2**20
        print(f"{args.operations} operations, {size:.1f} MB")
        print(f"{'change':<22}{'options':<16}{'median s':>9}{'peak MB':>9}{'exit':>6}")
        for options in modes:
            for name in ("one", "shared"):
                argv = [*tool, str(files["old"]), str(files[name]), "--format", "json",
                        *options]
                wall, peak, code = measure(argv, args.repeat)
                label = "one operation" if name == "one" else "shared component"
                print(f"{label:<22}{' '.join(options) or '(validated)':<16}{wall:>9.3f}"
                      f"{peak:>9.0f}{code:>6}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
