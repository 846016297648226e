"""A password given as the item after a short flag in an argument list (label
``cli_credentials``): ``args: ["-p", "v"]``, ``command: ["mysql", "-u", "root", "-p", "v"]``,
a YAML flow list ``[-p, v]`` or block list (``- -p`` then ``- v``), and a password glued to
its flag (``["-pv"]``, mysql's form). A fresh user's container ``args`` kept theirs: the
long flags (``["--password", "v"]``, ``["--token=v"]``) are read by :mod:`.apart` and
:mod:`.names`, whose names say what the value is; a short flag says nothing by itself.

So the flags are the short ones that take a password in the clients that use them
(:data:`_FLAGS`: ``-p`` mysql, sshpass, docker/podman/helm login, twine; ``-P`` sqlcmd,
zip; ``-w`` ldapsearch; ``-a`` redis-cli; ``-k`` openssl; ``-N`` ssh-keygen), and as the
same letters mean other things elsewhere (``-p 8080:80``, ``virtualenv -p python3``,
``mkdir -p build/out``, ``-a amd64``), the value must read as a password of its own
(:func:`arg_password`): 6+ characters mixing upper and lower case with a digit, or a symbol
with a letter and a digit; never a path, a URL, a file name, a flag or a variable.

Every repeat bounded (linear time). Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import password_placeholder, placeholder
from vault_sync.sanitize.rule import LazyPattern, Rule, Span

#: Short flags that take a password in the clients that use them (see the module docstring).
_FLAGS = "pPwakN"
#: Symbols that mark a password (not ``-``, ``_``, ``.``, ``/``, ``:``: names, paths,
#: versions and ports hold them).
_SYMBOLS = frozenset("!@#$%^&*+=?~")
#: A file name's extension ends the value (``key.pem``, ``config.yaml``).
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}\Z")


def arg_password(value: str) -> bool:
    """Whether a list item after a short flag reads as a password (the module docstring)."""
    if len(value) < 6 or value[0] in "-./~$%{<" or any(c in value for c in "/\\"):
        return False
    if _EXTENSION.search(value) or placeholder(value) or password_placeholder(value):
        return False
    digit = any(c.isdigit() for c in value)
    cases = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(c in _SYMBOLS for c in value)
    return digit and (cases or (symbol and any(c.isalpha() for c in value)))


def _item_span(text: str, m: re.Match[str]) -> Span | None:
    """The value item (the last group that matched), when it reads as a password."""
    index = m.lastindex or 0
    return m.span(index) if index and arg_password(m.group(index)) else None


def _in_list(text: str, at: int) -> bool:
    """The item at ``at`` follows ``[`` or ``,`` (blanks between): an item of a list."""
    i = at
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i > 0 and text[i - 1] in "[,"


def _block_item(text: str, at: int) -> bool:
    """The ``-`` at ``at`` begins a YAML block list's item (blanks before it on its line)."""
    i = at
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i == 0 or text[i - 1] == "\n"


_Q_FLAG = rf"([\"'])-[{_FLAGS}]\1[ \t]{{0,8}},[ \t]{{0,8}}"
_Q_VALUE = r"(?:\"([^\"\r\n]{1,256}+)\"|'([^'\r\n]{1,256}+)')"
_BARE_VALUE = r"([^\s\"',\[\]{}#][^\s\"',\[\]{}]{0,255}+)"


def arglist_rules() -> list[Rule]:
    """The rules of this module, in order (triggers: a list's opening or separator, a quote,
    then the flag's dash; the letter is read by the pattern)."""
    c = LazyPattern
    return [
        # ["-p", "v"] (JSON, YAML flow, Python, TOML): a quoted flag, then a quoted value.
        Rule("cli_credentials", c(_Q_FLAG + _Q_VALUE), ('"-', "'-"), _item_span, pre=_in_list),
        # [-p, v]: a YAML flow list's plain scalars.
        Rule(
            "cli_credentials",
            c(rf"[\[,][ \t]{{0,8}}-[{_FLAGS}],[ \t]{{0,8}}{_BARE_VALUE}[ \t]{{0,8}}[,\]]"),
            ("[-", "[ -", ",-", ", -"),
            _item_span,
        ),
        # - -p / - v: a YAML block list, one item a line.
        Rule(
            "cli_credentials",
            c(
                rf"-[ \t]{{1,4}}[\"']?-[{_FLAGS}][\"']?[ \t]{{0,8}}\r?\n[ \t]{{0,32}}-[ \t]{{1,4}}"
                rf"(?:{_Q_VALUE}|{_BARE_VALUE})[ \t]{{0,8}}(?=\r?\n|\Z)"
            ),
            ("- -", "- '-", '- "-'),
            _item_span,
            pre=_block_item,
        ),
        # ["-pv"]: mysql's password glued to its flag, a list item of its own.
        Rule(
            "cli_credentials",
            c(r"([\"'])-p([^\s\"']{6,256}+)\1"),
            ('"-', "'-"),
            _item_span,
            pre=_in_list,
        ),
    ]
