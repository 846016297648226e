"""``python -m vault_sync``: the same as the ``vault-sync`` command."""

from vault_sync.cli import main

main()
