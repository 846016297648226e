"""vault-sync: a Markdown vault kept in step with a tantivy index and a SQLite sidecar.

The public API is imported lazily (PEP 562 ``__getattr__``), so ``import vault_sync`` stays
cheap and the ``query`` path never loads the parser, pydantic or PyYAML.

>>> from vault_sync import find_vault, load_config, run_sync, open_reader
>>> config = load_config(find_vault("~/notes"))            # doctest: +SKIP
>>> plan, report, notice = run_sync(config)               # doctest: +SKIP
>>> reader = open_reader(config)                          # doctest: +SKIP
>>> hits = reader.search("retry storm", limit=5)          # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "Config": "vault_sync.config",
    "Hit": "vault_sync.retrieve",
    "Link": "vault_sync.page",
    "Page": "vault_sync.page",
    "PageIndex": "vault_sync.index",
    "Reader": "vault_sync.readers",
    "Sidecar": "vault_sync.store",
    "SyncResult": "vault_sync.engine",
    "VaultSyncError": "vault_sync.errors",
    "find_vault": "vault_sync.discover",
    "load_config": "vault_sync.config",
    "open_reader": "vault_sync.readers",
    "parse_page": "vault_sync.parser",
    "run_rebuild": "vault_sync.engine",
    "run_sync": "vault_sync.engine",
    "scan": "vault_sync.vault",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    """Import a public name on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vault_sync' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
