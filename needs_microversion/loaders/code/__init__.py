"""The code reader: a revision's API code -> the contract it declares, read statically.

Nothing is imported or run. `contract.read_code_contract` reads nova's route table
(`nova`), masakari's extensions (`masakari`), manila's and cinder's routers (`mapper`),
placement's route declarations (`placement`) or ironic's and zun's pecan controllers
(`pecan`),
and each method's decorators
(`decorators`), evaluating schema modules with a restricted interpreter (`source` parses,
`scopes` holds names, `evaluator` computes expressions, `interpreter` statements and
calls, `operations`/`builtins`/`calls` the few things it computes, `values` the records and
limits), into the table of `records`; `to_openapi` writes that as the OpenAPI document the
snapshot builder reads (`output` turns values into data). `gates.version_gates` is the
cheap index of where any project's code names each microversion.
"""

# Where each project's code declares its API (the files a change must touch for the code
# contract to be read, and what a kept reading is keyed by). Only this light module is
# imported to ask: the reader itself is imported when a change edits one of these.
API_CODE: dict[str, tuple[str, ...]] = {
    "nova": ("nova/api/",),
    "masakari": ("masakari/api/",),
    "manila": ("manila/api/",),
    "cinder": ("cinder/api/",),
    "placement": ("placement/handler.py", "placement/handlers/", "placement/schemas/",
                  "placement/microversion.py", "placement/util.py"),
    "ironic": ("ironic/api/",),
    "zun": ("zun/api/",),
}


def is_api_code(path: str, project: str) -> bool:
    """A module of the project's API code (not a test)."""
    return path.endswith(".py") and "/tests/" not in path and path.startswith(
        API_CODE.get(project, ()))
