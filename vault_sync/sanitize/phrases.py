"""A password of several words on a config line (fresh-user report, kind 2).

After a password-like name a value ends at its first blank: ``the password: it must be
rotated every month`` is prose, and its first word alone no password. On a *config line* a
bare value is the rest of the line, as YAML, ``.env`` and INI files read it:

    user: bob
    password: correct horse battery staple

A config line is one whose name begins it (after blanks, a list marker ``-``, ``export``, or
other ``key: value`` pairs of one-word values), with an operator ``:`` or ``=``, and that is
a config by its company: a pair before the name on its line (``user: bob password: …``:
config lines joined into one, as a query is), or a line before or after it that is a
``key: value`` / ``KEY=value`` line with a one-word value (or none), a frontmatter or code
fence (``---``, `````` ``` ``````, ``~~~``) or an INI ``[section]``. An UPPER_CASE name with
``=`` (``DB_PASSWORD=two words``) is a config line on its own — unless its rest reads as
prose (:func:`prose_after`: ``MYSQL_PWD=Hq9x!Lm2Vb7z is only for staging; production uses
IAM auth.``, an agent's sentence, whose value ends at its first blank: fresh-user report 5,
finding 4). A prose label line (``Note: the vault holds it.``) is no neighbour: its value has
several words.

Bounded: the value's line and its neighbours are read at most :data:`LINE_CAP` characters
each, so a long line of repeated names costs a constant per name. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import random_looking

#: Longest line (its value's rest, or a neighbour) read, in characters.
LINE_CAP = 256
#: What may precede a name at the start of its line: blanks, a list marker, ``export``, other
#: ``key: value`` / ``KEY=value`` pairs of one-word values (``user: bob password: …``, config
#: lines joined into one, as a query is), a quote.
_LINE_HEAD = re.compile(
    r"[ \t]{0,16}(?:[-*+][ \t]{1,4})?(?:export[ \t]{1,4})?"
    r"(?P<pairs>(?:[\"']?[\w.-]{1,64}[\"']?[ \t]{0,8}(?::[ \t]{1,8}|=[ \t]{0,8})"
    r"(?:\"[^\"\n]{0,64}\"|'[^'\n]{0,64}'|[^\s\"']{1,64})[ \t]{1,8}){0,8})[\"']?"
)
#: A neighbour that marks a config: a ``key: value`` / ``KEY=value`` line whose value is one
#: word, quoted, or absent (a comment may follow), a fence or an INI section header.
_CONFIG_LINE = re.compile(
    r"[ \t]{0,16}(?:---|```[^\n]*|~~~[^\n]*|\[[\w. -]{1,64}\]"
    r"|(?:[-*+][ \t]{1,4})?(?:export[ \t]{1,4})?[\"']?[\w.-]{1,64}[\"']?[ \t]{0,8}"
    r"(?::(?=[ \t]|\r?\Z)|=)[ \t]{0,8}(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'][^\s]*)?"
    r"[ \t]{0,8}(?:#[^\n]*)?)\r?"
)
#: The rest of a value's line: more words after a blank.
_MORE_WORDS = re.compile(r"[ \t]+\S[^\n]*")


#: A sentence mark in a value's rest: ``.``, ``,``, ``;``, ``!``, ``?`` or ``:`` before a
#: blank or the line's end (``… for staging; production uses IAM auth.``).
_SENTENCE_MARK = re.compile(r"[.,;!?:](?=[ \t]|\r?\n|\Z)")
#: An ordinary word: lower-case ASCII letters (after a generated first word: prose).
_WORD = re.compile(r"[ \t]+[a-z]{2,24}(?=[ \t]|\r?\n|\Z)")


def prose_after(text: str, value_end: int, first_word: str) -> bool:
    """Whether the rest of the line after a value's first word reads as prose, not as more
    words of a password: it holds a sentence mark (:data:`_SENTENCE_MARK`), or the first
    word reads as generated (a password by itself) and an ordinary word follows it. A
    passphrase of words (``correct horse battery staple``) has neither.

    Args:
        text: the text.
        value_end: where the value's first word ends.
        first_word: that word.
    """
    rest = _line_at(text, value_end)
    if rest is None:
        return True  # a line longer than the cap: no config line's value
    if _SENTENCE_MARK.search(rest):
        return True
    return random_looking(first_word) and _WORD.match(rest) is not None


def _line_at(text: str, start: int) -> str | None:
    """The line that begins at ``start`` (without its newline), or ``None`` when it is longer
    than :data:`LINE_CAP`."""
    end = text.find("\n", start, start + LINE_CAP + 1)
    if end < 0:
        end = len(text)
        if end - start > LINE_CAP:
            return None
    return text[start:end]


def _beside_config(text: str, line_start: int, line_end: int) -> bool:
    """Whether the line before ``line_start`` or the one after ``line_end`` (a newline) is a
    config line (:data:`_CONFIG_LINE`)."""
    if line_start > 0:
        end = line_start - 1  # the newline that ends the line before
        start = text.rfind("\n", max(0, end - LINE_CAP - 1), end) + 1
        if (start or end <= LINE_CAP) and _CONFIG_LINE.fullmatch(text, start, end):
            return True
    if line_end < len(text):
        line = _line_at(text, line_end + 1)
        if line is not None and _CONFIG_LINE.fullmatch(line):
            return True
    return False


def line_value_end(text: str, name_start: int, value_end: int, env_line: bool) -> int | None:
    """Where a bare password value that ends at ``value_end`` really ends when it is the
    first word of several on a config line (see the module docstring): the line's end, less
    trailing blanks; ``None`` when it is not (no more words, the name does not begin its
    line, no config line beside it).

    Args:
        text: the text.
        name_start: where the name before the value starts (its prefix included).
        value_end: where the value's first word ends.
        env_line: an UPPER_CASE name assigned with ``=``: a config line on its own.
    """
    more = _MORE_WORDS.match(text, value_end, value_end + LINE_CAP + 1)
    if more is None or (more.end() < len(text) and text[more.end()] != "\n"):
        return None  # no other word, or a line longer than the cap
    if "[REDACTED:" in more.group():
        return None  # never over our own token (scrubbing stays idempotent)
    line_start = text.rfind("\n", max(0, name_start - LINE_CAP), name_start) + 1
    if not line_start and name_start > LINE_CAP:
        return None
    head = _LINE_HEAD.fullmatch(text, line_start, name_start)
    if head is None:
        return None  # words before the name: prose (`the password: it must be rotated`)
    if not (env_line or head.group("pairs") or _beside_config(text, line_start, more.end())):
        return None
    return value_end + len(more.group().rstrip())
