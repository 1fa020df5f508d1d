"""The hand-written corpus (FORMAT.md): conversations memoryd's rules were not written from, and their scoring."""
