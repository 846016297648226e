"""vault-sync: a Markdown vault kept in step with a tantivy index and a SQLite sidecar."""

__version__ = "0.1.0"
