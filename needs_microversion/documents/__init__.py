"""JSON and YAML files before any API meaning: safe, bounded reading (`document`), `$ref`
resolution confined to the document's folder tree (`refs`), and the line a JSON pointer's
element is written on (`locate`)."""
