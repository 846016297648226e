"""A secret's label in a sentence, for the sanitizer (fresh-user report 5, finding 3).

The name rules read ``password: X`` and :mod:`.pairs` reads ``the password is X``. Prose
writes the label in more ways, and each kept its value:

- words between the label and its colon: ``password for the prod db: X``, ``Token for
  staging: X``, ``pw of root = X`` (a preposition, then at most five words), ``root password
  (prod): X`` (a bracketed note); in German, French, Spanish and Portuguese too, before the
  colon or the copula: ``Passwort für die DB: X``, ``Das Kennwort für den Server lautet X``,
  ``le mot de passe du wifi est X``, ``senha do banco: X`` (recheck 5);
- a password word of another language followed by that language's copula or topic
  particle: Chinese ``密码是 X`` / ``密码为 X``, Japanese ``パスワードは X``, Korean
  ``비밀번호는 X`` / ``암호는 X``, German ``Passwort ist X`` / ``Kennwort lautet X``, French
  ``le mot de passe est X``, Spanish ``la contraseña es X``, Portuguese ``a senha é X``;
- ``with password X``: ``login with password X``, ``sign in with the password X``;
- an HTML password field's value: ``<input type="password" value="X">``.

:func:`spoken_view` rewrites each to a form the rules read (``password: X``, ``password is
X``, ``password="X"``), a :class:`~.rendered.View` mapped back to the raw text; the rules'
gates then decide (:mod:`.pairs` wants a value that reads as generated after ``is``, so
``the password is rotated`` and ``パスワードは 8 文字以上`` stay). ``None`` when the text holds
none of these (a few ``in`` scans). Linear: each pattern is bounded. Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from vault_sync.sanitize.rendered import Edit, View, edited_view

#: A secret's label, then a preposition and at most five words, then ``:`` or ``=``.
_WORDS_BEFORE_COLON = re.compile(
    r"(?<![\w-])(?i:pass(?:word|phrase|code)?|passwd|pwd|pw|secret|token|api[ _-]?key)"
    r"(?P<words>[ \t]{1,2}(?i:for|of|to|on|at|in)(?:[ \t]{1,2}[\w.@/'-]{1,32}){1,5}[ \t]{0,2}"
    r"|[ \t]{1,2}\([^()\r\n]{1,32}\)[ \t]{0,2})"
    r"(?=[:=][ \t]{0,4}\S)"
)
#: A password word of another language, its preposition and at most five words (group
#: ``words``), then a colon or that language's copula (group ``copula``): ``Passwort für die
#: DB: X``, ``Das Kennwort für den Server lautet X``, ``senha do banco: X``, ``contraseña de
#: la base: X``, ``le mot de passe du wifi est X``.
_FOREIGN_WORDS_BEFORE = re.compile(
    r"(?<![\w-])(?i:passwort|kennwort|mot de passe|contraseña|contrasena|senha)"
    r"(?P<words>[ \t]{1,2}(?i:für|fuer|zum|zur|vom|von|de|do|da|dos|das|del|du|des|pour|para)"
    r"(?:[ \t]{1,2}[\w.@/'-]{1,32}){1,5}?)"
    r"(?:[ \t]{0,2}(?=[:=][ \t]{0,4}\S)"
    r"|(?P<copula>[ \t]{1,2}(?i:ist|lautet|war|est|es|é|e)[ \t]{1,2})(?=[\x21-\x7e]))"
)
#: A localized password word, then its language's copula or particle (group ``copula``).
_COPULA = re.compile(
    r"(?:密码|密碼|口令)(?P<c1>[ \t]{0,2}(?:是|为|為)[ \t]{0,2})(?=[\x21-\x7e])"
    r"|パスワード(?P<c2>[ \t]{0,2}は[ \t]{0,2})(?=[\x21-\x7e])"
    r"|(?:비밀번호|암호)(?P<c3>[ \t]{0,2}(?:는|은)[ \t]{1,2})(?=[\x21-\x7e])"
    r"|(?<![\w-])(?i:passwort|kennwort)(?P<c4>[ \t]{1,2}(?i:ist|lautet|war)[ \t]{1,2})"
    r"|(?<![\w-])(?i:mot de passe)(?P<c5>[ \t]{1,2}(?i:est)[ \t]{1,2})"
    r"|(?<![\w-])(?i:contraseña|contrasena)(?P<c6>[ \t]{1,2}(?i:es)[ \t]{1,2})"
    r"|(?<![\w-])(?i:senha)(?P<c7>[ \t]{1,2}(?i:é|e)[ \t]{1,2})"
)
_COPULA_HEADS: tuple[str, ...] = ("密码", "密碼", "口令", "パスワード", "비밀번호", "암호")
_COPULA_HEADS += ("wort", "passe", "contrase", "senha")
#: ``with password X``: the words before the value (the value itself is looked at by the rule).
_WITH_PASSWORD = re.compile(
    r"(?<![\w-])(?i:with|using)[ \t]{1,2}(?:(?i:the|a|its|their|his|her)[ \t]{1,2})?"
    r"(?i:password|passphrase|pw)[ \t]{1,2}(?=[^\s:=])"
)
#: An HTML ``<input>`` tag (bounded), and its ``value=`` attribute.
_INPUT_TAG = re.compile(r"<input\b[^<>]{0,512}>", re.IGNORECASE)
_PASSWORD_TYPE = re.compile(r"\btype[ \t]{0,2}=[ \t]{0,2}[\"']?password\b", re.IGNORECASE)
_VALUE_ATTR = re.compile(r"(?<![\w-])value(?=[ \t]{0,2}=)", re.IGNORECASE)


#: Where one of the ASCII kinds may be, in the lowercased ASCII view (a non-ASCII letter is
#: ``?``), its value holding a digit or symbol (a password's mark; :mod:`.pairs` then judges
#: it): RE2, one linear pass over a page instead of four regex scans (the bench's prose has
#: ``with password access`` in one page of twenty).
_VALUE_MARK = r"[ \t]{0,4}[\"']?[^\s\"']{0,64}[0-9!#$%^&*+=~?@]"
GATE_PATTERN = (
    r"(?:pass|pwd|pw|secret|token|key)[a-z]{0,6}[ \t]{1,2}(?:for|of|to|on|at|in)"
    r"(?:[ \t]{1,2}[a-z0-9_.@/'-]{1,32}){1,5}[ \t]{0,2}[:=]"
    + _VALUE_MARK
    + r"|(?:pass|pwd|pw|secret|token|key)[a-z]{0,6}[ \t]{1,2}\([^()\n]{1,32}\)[ \t]{0,2}[:=]"
    + _VALUE_MARK
    + r"|(?:with|using)[ \t]{1,2}(?:[a-z]{1,5}[ \t]{1,2})?(?:password|passphrase|pw)[ \t]{1,2}"
    + r"[^\s:=]{0,64}[0-9!#$%^&*+=~?@]"
    + r"|(?:passwort|kennwort|mot de passe|contrase\??n?a|senha)[ \t]{1,2}[a-z?]{1,6}[ \t]{1,2}"
    + r"|<input[^<>]{0,512}password"
)


@functools.cache
def _gate() -> Any:
    """:data:`GATE_PATTERN` compiled by RE2 (bytes)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    return re2.compile(GATE_PATTERN.encode("ascii"), options)


def _copula_edits(text: str, starts: list[int], edits: list[Edit]) -> None:
    """A localized label and its copula (:data:`_COPULA`) at each of ``starts``."""
    for at in starts:
        m = _COPULA.match(text, at)
        if m is not None:
            group = next(g for g in ("c1", "c2", "c3", "c4", "c5", "c6", "c7") if m.group(g))
            edits.append((m.start(), m.end(group), "password is "))


def _edits(text: str) -> list[Edit]:
    """The rewrites of the module docstring's four kinds (the Latin ones: the gate found one)."""
    edits: list[Edit] = []
    for m in _WORDS_BEFORE_COLON.finditer(text):
        edits.append((m.start("words"), m.end("words"), ""))
    _copula_edits(text, [m.start() for m in _COPULA.finditer(text)], edits)
    for m in _FOREIGN_WORDS_BEFORE.finditer(text):
        if m.group("copula"):
            edits.append((m.start(), m.end("copula"), "password is "))
        else:
            edits.append((m.start("words"), m.end("words"), ""))
    for m in _WITH_PASSWORD.finditer(text):
        edits.append((m.start(), m.end(), "password is "))
    for tag in _INPUT_TAG.finditer(text):
        if _PASSWORD_TYPE.search(tag.group()):
            for m in _VALUE_ATTR.finditer(text, tag.start(), tag.end()):
                edits.append((m.start(), m.end(), "password"))
    return edits


def spoken_view(text: str) -> View | None:
    """``text`` with each label of the module docstring's kinds rewritten to a form the
    rules read, mapped back to ``text``; ``None`` when it holds none.

    Args:
        text: any text.
    """
    if _gate().search(text.encode("ascii", "replace").lower()) is not None:
        return edited_view(text, _edits(text))
    if text.isascii():
        return None
    starts: list[int] = []
    for word in _COPULA_HEADS[:6]:  # the CJK words, which the ASCII view cannot show
        at = text.find(word)
        while at >= 0:
            starts.append(at)
            at = text.find(word, at + 1)
    edits: list[Edit] = []
    _copula_edits(text, starts, edits)
    return edited_view(text, edits)
