"""The api-ref reader: an os-api-ref source tree -> an OpenAPI 3.1 document (`reader`).

`tree` finds the files and `rst` (or `rst_docutils`) reads their blocks; `include` and
`parameters_yaml` read what the blocks name; `sections` turns one file's blocks into
`records`, with `prose`, `availability` and `grid` reading what is written only in
sentences and tables; `body` nests the flat parameter rows, and `to_openapi` writes it all
as OpenAPI. `context` is what one load shares.
"""
