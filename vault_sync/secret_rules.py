"""The vendor secret formats the sanitizer knows, as data (DESIGN §8).

The table is ``secret_formats.toml`` beside this module: one row per format, each the label it
reports, a regex written from the vendor's documented token format, the lowercase literals that
must occur where a match starts (the scrubber searches for them before it runs any regex:
TECH-NOTES §9), and where the format is documented. :mod:`vault_sync.sanitize` holds the
mechanism that runs them; adding a vendor is adding a row (and a well-formed sample to
``tests/secret_samples.py``, which ``tests/test_secret_rules.py`` checks).

Pattern rules, checked for every row by ``tests/test_secret_rules.py``: every repeat bounded
(``{m,n}``, possessive where it can run long), no nested quantifiers, so matching is linear
(DESIGN §8); a match starts at one of the row's triggers (or ``back``/``lead`` finds its start).
The file is read on first use, never at import time.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

#: The data table, beside this module (read as a plain file: ``importlib.resources`` costs
#: ~5 ms of imports in every process that scrubs, and the package is never zipped).
TABLE = Path(__file__).with_name("secret_formats.toml")


@dataclass(frozen=True)
class SecretFormat:
    """One vendor format.

    Attributes:
        label: the label written as ``[REDACTED:<label>]``.
        pattern: a regex, matched (not searched) at each trigger occurrence.
        triggers: lowercase ASCII literals, each where a match starts.
        source: where the format is documented (vendor page, RFC, or scanner rule).
        group: the regex group that is the secret (0: the whole match).
        before: characters that may not precede a match: ``"word"`` (``[A-Za-z0-9_]``),
            ``"word_dash"`` (and ``-``), ``"alnum"``, ``"digit"``, or ``""`` (anything).
        back: ``"digits"`` when the trigger follows the match start by a run of digits
            (a Telegram bot id before ``:A``); ``""`` when the trigger is the start.
        check: ``"not_hex"`` to refuse an all-hexadecimal secret (a git SHA), ``"generated"``
            to refuse a value that reads as a word (after a vendor's name: no digit, one
            case, under 30 letters); or ``""``.
        lead: how many characters a match starts before its trigger (a fixed-length head
            before the literal, as in MaxMind's ``…_mmk``); 0 when the trigger is the start.
        keyed: the vendor's name keys the value (``TWITTER_SECRET = …``, gitleaks'
            semi-generic rules): the triggers are words of a name, and the row is tried only
            where a value of 16+ token characters follows an assignment (``=``, ``:``, ``=>``)
            whose name holds one, never by a search of the whole text (:mod:`.sanitize.search`).
    """

    label: str
    pattern: str
    triggers: tuple[str, ...]
    source: str
    group: int = 0
    before: str = ""
    back: str = ""
    check: str = ""
    lead: int = 0
    keyed: bool = False


@functools.cache
def vendor_formats() -> tuple[SecretFormat, ...]:
    """The rows of ``secret_formats.toml``, in precedence order (read once per process).

    Raises:
        OSError, tomllib.TOMLDecodeError: the packaged table is missing or broken (a bad
            install, never user input).
    """
    data = tomllib.loads(TABLE.read_text("utf-8"))
    return tuple(
        SecretFormat(**{**row, "triggers": tuple(row["triggers"])}) for row in data["format"]
    )


def vendor_labels() -> tuple[str, ...]:
    """Each vendor label once, in precedence order."""
    return tuple(dict.fromkeys(row.label for row in vendor_formats()))
