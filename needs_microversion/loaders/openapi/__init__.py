"""OpenAPI 3.0/3.1 and Swagger 2.0 documents -> Snapshot (`builder`), their schemas
normalised on first use (`normalise`), and what is wrong in them as warnings: validation
(`validate`) and unreadable microversions (`version_warnings`)."""
