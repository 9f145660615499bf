"""The match service over HTTP: the same pipeline, engine and store as the CLI."""
