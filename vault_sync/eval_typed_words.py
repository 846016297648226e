"""The wording of ``vault-sync eval typed``: its word tables, read from the packaged data file.

The tables live in ``eval_typed_words.toml`` beside this module (data, not code), read once
when this module is first imported (only by the ``eval typed`` modules, never on the query
path) through :mod:`importlib.resources`. :mod:`vault_sync.eval_typed_pages` builds vaults and
:mod:`vault_sync.eval_typed` questions from them. Every table is shared by the dev and the
test seeds: what differs between the splits is which entries a seed draws, how they combine,
and every page and question built from them.

``{c}`` in a string is the component's name (``payment worker``), ``{C}`` the same with a
capital first letter, ``{n}`` a number, ``{date}`` an ISO date. A ``title`` names a page;
``ask`` and ``said`` are how a person asks about a thing without the answer page's title
words (the generator checks that and draws again where a combination would share a word).
Question wordings take ``{x}``, what is asked about (a bug's symptom, a topic, what a rule or
old decision said); note lines take ``{x}`` (a topic) and ``{y}`` (a symptom).

The tables, each a tuple in the file's order (what each holds is written above it in the
file): ``COMPONENTS`` (``(name, ticket prefix, what it does)``), ``BUGS`` (``title``,
``told``, ``ask``, ``fixes`` and ``causes`` as ``(title, text)`` pairs), ``POLICIES``
(``ask``, ``old``, ``old_text``, ``new``, ``new_text``, ``said``), ``RULES`` (``title``,
``text``, ``said``, ``obs``, ``obs_text``), the question wordings ``ASK_FIX``, ``ASK_CAUSE``,
``ASK_CURRENT``, ``ASK_STILL``, and ``RUNBOOKS``, ``NOTE_LINES``, ``AGENTS``.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

#: The data file, a resource of this package (shipped by ``[tool.setuptools.package-data]``).
DATA_FILE = "eval_typed_words.toml"


def _load() -> dict[str, Any]:
    """The tables of :data:`DATA_FILE` as Python values: each table a tuple, pairs as tuples.

    Raises:
        OSError, tomllib.TOMLDecodeError: the packaged file is missing or broken (a bad
            install, never user input).
    """
    text = resources.files("vault_sync").joinpath(DATA_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)
    tables: dict[str, Any] = {name: tuple(rows) for name, rows in data.items()}
    tables["COMPONENTS"] = tuple(tuple(row) for row in tables["COMPONENTS"])
    for family in tables["BUGS"]:
        family["fixes"] = [tuple(pair) for pair in family["fixes"]]
        family["causes"] = [tuple(pair) for pair in family["causes"]]
    return tables


_TABLES = _load()

COMPONENTS: tuple[tuple[str, str, str], ...] = _TABLES["COMPONENTS"]
BUGS: tuple[dict[str, Any], ...] = _TABLES["BUGS"]
POLICIES: tuple[dict[str, Any], ...] = _TABLES["POLICIES"]
RULES: tuple[dict[str, Any], ...] = _TABLES["RULES"]
ASK_FIX: tuple[str, ...] = _TABLES["ASK_FIX"]
ASK_CAUSE: tuple[str, ...] = _TABLES["ASK_CAUSE"]
ASK_CURRENT: tuple[str, ...] = _TABLES["ASK_CURRENT"]
ASK_STILL: tuple[str, ...] = _TABLES["ASK_STILL"]
RUNBOOKS: tuple[str, ...] = _TABLES["RUNBOOKS"]
NOTE_LINES: tuple[str, ...] = _TABLES["NOTE_LINES"]
AGENTS: tuple[str, ...] = _TABLES["AGENTS"]
