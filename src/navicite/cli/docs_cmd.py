"""Collection commands: ingest, search, docs, stats (filled in by the index and ingest work)."""
