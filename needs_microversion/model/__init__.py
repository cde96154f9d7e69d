"""Records shared by every stage: versions, the extension keys, documents as read, schemas,
snapshots, changes and verdicts. Nothing here imports a stage (loaders, compare, rules,
judge, commands, report); every stage imports from here."""
