"""A secret's value on the line below its label, for the sanitizer (fresh-user report 5,
finding 11).

Personal notes put a password under its label as often as after it:

- a label line ending with a colon, the value alone on the next line (``Password:`` ⏎
  ``Xk8#…``; ``**Password:**`` too);
- a heading (``## Password``) or a bold line (``**Password**``, ``__Password__``), the
  value the next paragraph (a blank line between);
- a list item (``- Password``) with the value its indented child (``  - Xk8#…``);
- (recheck 5) the value alone in a fenced code block under the label; an upper-case label
  alone on its line (``PASSWORD`` ⏎ ``Xk8#…``); a definition list (``Root password`` ⏎
  ``: Xk8#…``); an HTML disclosure (``<details><summary>password</summary>`` ⏎ ``Xk8#…``);
- a table whose header names a login (``| Service | Login |``, ``Credentials``, ``Account``,
  ``User / Password``): a body cell ``admin / Xk8#…`` or ``admin:Xk8#…`` under it.

The plain-text views (a snippet, ``--json``) join the lines and show ``Password: Xk8#…``,
the form every rule redacts. :func:`nextline_view` is the text with the label and its value
joined that way (the heading's ``#``, the bold's markers and the line break rewritten to
``: ``; the table cell prefixed ``creds:`` as :mod:`.pairs` reads a user and password), a
:class:`~.rendered.View` mapped back to the raw text, so the same name rules and gates then
decide. The value line must look like a credential, not prose (:func:`_credential_like`):
one token, no blank inside, mixing two classes of characters (lower, upper, digit, symbol)
or 8+ characters long, and no Markdown or URL of its own. The label is a secret's word
(``password``, ``passphrase``, ``pwd``, ``pw``, ``secret``, ``token``, ``API key``, a
foreign password word of :mod:`.labelled`) ending its line, after at most two other words.

``None`` when no line ends with such a label (one RE2-free regex pass over the lines that
can: the text is first scanned for the words' heads). Linear: each pattern is bounded.
Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from vault_sync.sanitize.labelled import _FOREIGN_WORDS
from vault_sync.sanitize.layout import _cells
from vault_sync.sanitize.rendered import Edit, View, edited_view

#: A secret's word, as a label's last word (a name part may be glued: ``DB_PASSWORD``).
_WORD = (
    r"(?:[\w.-]{0,32}[_.-])?(?i:pass(?:w(?:or)?d|phrase|code)?|pwd|pw|secret|token"
    rf"|api[ _-]?key|apikey|access[ _-]?key|secret[ _-]?key|{_FOREIGN_WORDS})"
)
#: A label line: a heading, list marker or emphasis, at most two words, the secret's word,
#: emphasis, a colon, emphasis; then the line break, one blank line at most, and the value
#: line's indent and list marker. Groups: ``head`` (markup before the label), ``label``,
#: ``tail`` (what follows the label up to the value), ``colon``, ``indent`` (of the label
#: line), ``child`` (the value line's indent when it has a list marker).
_LABEL_LINE = re.compile(
    r"^(?P<indent>[ \t]{0,16})(?P<head>(?:#{1,6}[ \t]{1,4}|[-*+][ \t]{1,4}"
    r"|(?i:<details>[ \t]{0,4})?(?i:<summary>))?(?:\*\*|__)?)"
    rf"(?P<label>(?:[\w.-]{{1,32}}[ \t]{{1,2}}){{0,2}}{_WORD})"
    r"(?P<tail>(?:\*\*|__)?(?i:</summary>)?[ \t]{0,4}(?P<colon>[:\uff1a])?(?:\*\*|__)?[ \t]{0,4}"
    r"#{0,6}[ \t]{0,4}\r?\n(?:[ \t]{0,16}\r?\n)?"
    r"(?:[ \t]{0,3}(?:```|~~~)[\w-]{0,16}[ \t]{0,4}\r?\n)?"
    r"(?P<child>[ \t]{0,32}(?:[-*+:][ \t]{1,4})?)`?)"
    r"(?P<value>[^\s`]{4,128})`?[ \t]{0,8}(?:\r?\n|\Z)",
    re.MULTILINE,
)
_CLASSES = (str.islower, str.isupper, str.isdigit)
#: A value line that is markup, a link or a sentence's word, not a credential.
_NOT_VALUE = re.compile(r"[#>|!\[(<{]|https?:|\w+[.,;:!?)]\Z|.*://|\[REDACTED:")


def _credential_like(value: str) -> bool:
    """A value line reads as a credential: no markup, link or trailing punctuation, and two
    classes of characters (lower, upper, digit, symbol) or 8+ characters."""
    if _NOT_VALUE.match(value):
        return False
    classes = sum(any(f(c) for c in value) for f in _CLASSES)
    classes += any(not c.isalnum() for c in value)
    return classes >= 2 or len(value) >= 8


def _label_lines(text: str, starts: set[int]) -> list[re.Match[str]]:
    """The label lines (:data:`_LABEL_LINE`) of ``text``: tried only at ``starts`` (where the
    gate found one), or at the start of a line holding a non-ASCII label word
    (:data:`_SCRIPT_HEADS`, which the gate's ASCII view cannot show)."""
    if not text.isascii():
        for word in _SCRIPT_HEADS:
            at = text.find(word)
            while at >= 0:
                starts.add(text.rfind("\n", 0, at) + 1)
                at = text.find(word, at + 1)
    found = (_LABEL_LINE.match(text, start) for start in sorted(starts))
    return [m for m in found if m is not None]


#: The same label on one line with its value, in a heading, emphasis or an Obsidian callout's
#: title (``## Password X``, ``**Password** X``, ``> [!warning] password X``: a next-line
#: form flattened, as a typed query or a snippet shows it).
#: The value must hold a digit or a symbol.
_INLINE_LABEL = re.compile(
    r"(?<!\S)(?P<head>#{1,6}[ \t]{1,4}(?:\*\*|__)?|\*\*|__"
    r"|\[![\w-]{1,32}\][+-]?[ \t]{1,4}(?:\*\*|__)?)"
    rf"(?P<label>(?:[\w.-]{{1,32}}[ \t]{{1,2}}){{0,2}}{_WORD})"
    r"(?P<tail>(?:\*\*|__)?[ \t]{1,4})`?(?P<value>[^\s`]{0,64}[0-9!#$%^&*+=~?@][^\s`]{0,64})`?"
    r"(?=\s|\Z)"
)
INLINE_GATE = (
    r"(?:#[ \t]{1,4}|\*\*|__|\[![a-z-]{1,32}\][+-]?[ \t]{1,4})"
    r"(?:[a-z0-9_.-]{1,32}[ \t]{1,2}){0,2}(?:[a-z0-9_.-]{0,32}[_.-])?"
    r"(?:pass|pw|pwd|secret|token|key)[a-z]{0,8}(?:\*\*|__)?[ \t]{1,4}`?"
    r"[^\s`]{0,64}[0-9!#$%^&*+=~?@]"
)


def _inline_edits(text: str, edits: list[Edit]) -> None:
    """``## Password X`` / ``**Password** X``, rewritten to ``Password: X``."""
    for m in _INLINE_LABEL.finditer(text):
        if _credential_like(m.group("value")):
            edits.append((m.start("head"), m.end("head"), ""))
            edits.append((m.start("tail"), m.end("tail"), ": "))


def _label_edits(text: str, starts: set[int], edits: list[Edit]) -> None:
    """The label line and its value line joined to ``label: value`` (the module docstring)."""
    for m in _label_lines(text, starts):
        head = m.group("head")
        heading = head.startswith("#")
        emphasis = "*" in head or "_" in head
        child = m.group("child")
        item = head[:1] in ("-", "*", "+") and not emphasis
        listed = item and child.strip()[:1] in ("-", "*", "+")
        if listed and len(child) - len(child.lstrip(" \t")) <= len(m.group("indent")):
            continue  # the value is a sibling item, not the label's child
        defined = child.strip()[:1] == ":"  # a definition list's ``: value``
        shouted = not head and m.group("label").isupper()  # ``PASSWORD`` alone on its line
        summary = "<" in head  # ``<details><summary>password</summary>``
        if not any((m.group("colon"), heading, emphasis, listed, defined, shouted, summary)):
            continue
        if not _credential_like(m.group("value")):
            continue
        if head:
            edits.append((m.start("head"), m.end("head"), ""))
        edits.append((m.start("tail"), m.end("tail"), ": "))


#: A header cell naming a login (user and password together).
_LOGIN_HEADER = re.compile(
    r"(?i:(?:[\w.-]{1,32}[ _-])?(?:log[io]ns?|credentials?|creds?|accounts?"
    r"|user(?:name)?[ \t]{0,2}/[ \t]{0,2}pass(?:word)?))"
)
#: A delimiter row right below a header row.
_DELIMITER_ROW = re.compile(r"^[ \t]{0,3}\|?(?:[ \t]{0,8}:?-{1,64}:?[ \t]{0,8}\|?){1,64}\r?$")
#: A cell's ``user / password`` or ``user:password`` (the pair :mod:`.pairs` reads).
_PAIR_CELL = re.compile(
    r"[ \t]*[A-Za-z][\w.@+-]{0,127}([ \t]{0,2}[:/][ \t]{0,2})[^\s|]{4,256}[ \t]*"
)


def _table_edits(text: str, edits: list[Edit]) -> None:
    """Each ``user / password`` cell under a header naming a login, prefixed ``creds:``, its
    separator read as ``:``."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    done = 0  # rows read as a body already: each line is read once (linear)
    for i in range(1, len(lines) - 1):
        if i < done or "|" not in lines[i - 1] or "-" not in lines[i]:
            continue
        if not _DELIMITER_ROW.match(lines[i]):
            continue
        header = lines[i - 1]
        columns = {
            k
            for k, (s, e) in enumerate(_cells(header))
            if _LOGIN_HEADER.fullmatch(header[s:e].strip(" \t*_`"))
        }
        j = i + 1
        while columns and j < len(lines) and "|" in lines[j]:
            for k, (s, e) in enumerate(_cells(lines[j])):
                cell = _PAIR_CELL.fullmatch(lines[j], s, e) if k in columns else None
                if cell is not None:
                    edits.append((offsets[j] + s, offsets[j] + s, " creds: "))
                    # under a login header `/` parts a user from a password, never a path's
                    # folders: read as `:`, whose password need not mix both cases
                    # (`admin / kryv0t5j6301` leaked; the leak audit's draw)
                    edits.append((offsets[j] + cell.start(1), offsets[j] + cell.end(1), ":"))
            j += 1
        done = j


#: A line ending with a secret's word (and markup, a colon), in the lowercased ASCII view:
#: RE2, one linear pass before any line is looked at in Python (the bench's pages hold a
#: secret's word on most lines, never ending one).
GATE_PATTERN = (
    r"(?m)^[ \t]{0,16}(?:#{1,6}[ \t]{1,4}|[-*+][ \t]{1,4}|(?:<details>[ \t]{0,4})?<summary>)?"
    r"[*_]{0,2}"
    r"(?:[a-z0-9_.-]{1,32}[ \t]{1,2}){0,2}(?:[a-z0-9_.-]{0,32}[_.-])?"
    r"(?:pass|pw|pwd|secret|token|key|api[ _-]?key|access[ _-]?key|passwort|kennwort"
    r"|mot de passe|senha|contrase\??n?a|haslo|heslo|parol"
    r"|sifre|losenord|passord|adgangskode|salasana)[a-z]{0,8}[*_]{0,2}(?:</summary>)?[ \t]{0,4}:?"
    r"[*_]{0,2}[ \t]{0,4}#{0,6}[ \t]{0,4}\r?\n(?:[ \t]{0,16}\r?\n)?"
    r"(?:[ \t]{0,3}(?:```|~~~)[a-z0-9_-]{0,16}[ \t]{0,4}\r?\n)?[ \t]{0,32}(?:[-*+:][ \t]{1,4})?`?"
    r"[^\s`]{4,128}`?[ \t]{0,8}\r?$"
)
#: Non-ASCII words a label may end with (the view shows them as ``?``).
_SCRIPT_HEADS = ("密码", "密碼", "口令", "パスワード", "비밀번호", "ароль", "АРОЛЬ", "κωδικ")
#: What a table's delimiter row holds.
_DELIMITER_MARKS = ("-|", "|-", "- |", "| -", ":|", "|:")


#: A header row naming a login above a delimiter row (RE2, case-insensitive): the gate of
#: :func:`_table_edits`, which reads a table's rows in Python.
TABLE_GATE = (
    r"(?i)\|[^|\n]{0,48}(?:log[io]n|cred|account|user[ \t]{0,2}/)[^|\n]{0,48}\|[^\n]{0,512}\n"
    r"[ \t]{0,3}\|?[ \t]{0,8}:?-"
)


@functools.cache
def _table_gate() -> Any:
    """:data:`TABLE_GATE` compiled by RE2."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(TABLE_GATE, options)


@functools.cache
def _gate() -> Any:
    """:data:`GATE_PATTERN` or :data:`INLINE_GATE`, compiled by RE2 (bytes)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(f"{GATE_PATTERN}|{INLINE_GATE}".encode("ascii"), options)


def nextline_view(text: str) -> View | None:
    """``text`` with each secret's label and the value on the line below it joined (the
    module docstring), mapped back to ``text``; ``None`` when it holds none.

    Args:
        text: any text.
    """
    edits: list[Edit] = []
    starts = {g.start() for g in _gate().finditer(text.encode("ascii", "replace").lower())}
    if starts:
        _inline_edits(text, edits)
    if starts or not text.isascii():
        _label_edits(text, starts, edits)
    if any(m in text for m in _DELIMITER_MARKS) and _table_gate().search(text) is not None:
        _table_edits(text, edits)
    return edited_view(text, edits)
