"""The code reader: a revision's API code -> the contract it declares, read statically.

Nothing is imported or run. `contract.read_code_contract` reads nova's route table
(`nova`) or masakari's extensions (`masakari`) and each method's decorators
(`decorators`), evaluating schema modules with a restricted interpreter (`source` parses,
`scopes` holds names, `evaluator` computes expressions, `interpreter` statements and
calls, `operations`/`builtins`/`calls` the few things it computes, `values` the records and
limits), into the table of `records`; `to_openapi` writes that as the OpenAPI document the
snapshot builder reads (`output` turns values into data). `gates.version_gates` is the
cheap index of where any project's code names each microversion.
"""
