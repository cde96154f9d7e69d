"""What each OpenAPI and JSON Schema keyword is to the loader: data, names, schemas,
constraints or documentation."""

from __future__ import annotations

# Keys whose values are data, never schema structure: `$ref` or `x-openstack` inside them is
# an example's, never followed or read.
DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "x-examples"})
# Keys whose children are names chosen by the author (a property called "example" is a name).
NAME_MAPS = frozenset({"properties", "patternProperties", "definitions", "$defs", "schemas",
                       "responses", "parameters", "paths", "headers", "content", "callbacks",
                       "links", "securitySchemes", "requestBodies", "pathItems",
                       "dependentSchemas", "variables", "encoding", "webhooks"})
# Keywords whose value is a schema (compared structurally, under a pointer segment `{kw}`).
SUBSCHEMA_KEYWORDS = frozenset(
    {"contains", "propertyNames", "not", "if", "then", "else", "contentSchema",
     "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
)
# Keywords whose value maps names (or positions) to schemas.
SUBSCHEMA_MAP_KEYWORDS = frozenset({"dependentSchemas", "patternProperties"})
# Keywords that restrict or shape accepted/returned values: contract, compared by value.
CONSTRAINT_KEYWORDS = frozenset(
    {"format", "pattern", "maxLength", "minLength", "minimum", "maximum", "exclusiveMinimum",
     "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties",
     "maxProperties", "minContains", "maxContains", "dependentRequired", "contentMediaType",
     "contentEncoding", "discriminator", "default", "xml", "x-extensible-enum",
     "collectionFormat"}
)
# Annotations: they document a schema and constrain nothing.
DOC_ONLY = frozenset({"description", "title", "example", "examples", "deprecated",
                      "externalDocs", "$comment", "$schema", "$id", "$anchor", "$defs",
                      "definitions", "summary"})
