"""Text a person or an agent typed (a query, a page reference, a tool argument), scrubbed
before it is searched for or echoed (issue 17, kind 6).

Plain words skip the sanitizer, and its ~20 ms of compiling on first use, so ``query``
stays fast: only text with a run of 8+ characters holding a digit, a symbol or mixed case,
or of 12+ words (a seed phrase), can hold a secret a built-in rule finds (in a vault with
``extra_patterns``, all text is scrubbed). A query is searched as scrubbed — the stores hold
``[REDACTED:label]`` where the secret was, so the raw value can match nothing, and no output
built from the query (its echo, ``--explain``'s clauses and terms, snippets) can carry it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vault_sync.config import Config

#: Text that may hold a secret: a run of 8+ characters with a digit, a symbol, markup, an
#: invisible character, mixed case, or 8 capitals (an AWS key id of letters only, split by a
#: backtick, was echoed whole: full leak audit, issue 14).
MAYBE_SECRET = re.compile(
    r"(?=\S{8})\S{0,8}?(?:[0-9_=:/+.@$~*<>`!#%&\u00ad\u200b-\u200f\u2060-\u2064\ufeff-]"
    r"|[a-z][A-Z]|[A-Z]{8})"
)

#: Plain words may be a wallet's seed phrase (``sanitize/seeds.py``): text of this many words
#: or more (blanks, line breaks, commas between) is scrubbed too.
SEED_WORDS = 12


def scrub_typed(text: str, config: Config | None = None) -> str:
    """``text`` scrubbed like page text, with the vault's ``[sanitize]`` settings when
    ``config`` is given; returned as is when it cannot hold a secret (any text can hold what
    a vault's own ``extra_patterns`` match: a code name is a plain word)."""
    custom = config is not None and bool(config.sanitize_extra_patterns)
    words = sum(map(text.count, " \n,"))
    if not custom and not MAYBE_SECRET.search(text) and words < SEED_WORDS - 1:
        return text
    from vault_sync.sanitize import Scrubber, shared_scrubber

    scrubber = Scrubber.from_config(config) if config is not None else shared_scrubber((), ())
    return scrubber.scrub(text)[0]


def scrub_data(data: object, config: Config | None = None) -> object:
    """``data`` (JSON-like: dicts, lists, strings, numbers) with every string, dict keys too,
    passed through :func:`scrub_typed`: a path or a message shown to a person or a log (the
    watcher's batch lines, its state in ``status``) never carries a secret a folder or file
    name holds (fresh-user report: ``watching /tmp/x/vault-ghp_…``)."""
    if isinstance(data, str):
        return scrub_typed(data, config)
    if isinstance(data, dict):
        return {scrub_data(k, config): scrub_data(v, config) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [scrub_data(v, config) for v in data]
    return data
