"""A token given to a command line as a bare argument (label ``cli_credentials``): the CLIs
that log in with a token as a positional argument, which no name before it marks (a fresh
user's ``vault login TOKEN`` went through), and a token echoed into one that reads it from
standard input.

- ``vault login [-flags] TOKEN`` (HashiCorp Vault ``vault login``: the token is the first
  argument that is no flag and no ``key=value`` pair);
- ``cargo login [--registry R] TOKEN`` (cargo-login(1));
- ``ngrok authtoken TOKEN``, ``ngrok config add-authtoken TOKEN`` (ngrok agent CLI);
- ``snyk auth TOKEN`` (Snyk CLI ``auth``);
- ``cloudflared service install TOKEN`` (Cloudflare Tunnel, a remotely managed tunnel);
- ``poetry config pypi-token.NAME TOKEN`` and ``poetry config http-basic.NAME USER PASS``
  (Poetry's repository credentials);
- ``doctl auth init -t TOKEN`` (DigitalOcean);
- ``echo TOKEN | gh auth login --with-token`` (GitHub CLI), ``| glab auth login --stdin``
  (GitLab CLI), ``| vault login -`` (Vault reads ``-`` as standard input).

The token must read as generated (:func:`~vault_sync.placeholders.random_looking`, or a run
a generator made: :func:`~.names._generated_run`) and be no variable or template
(``$VAULT_TOKEN``, ``<token>``, ``${{ secrets.X }}``); a password after ``http-basic`` as a
password (:func:`~.syntax.value_ok`). Each pattern starts at its command word (the
trigger), reads a bounded number of bounded arguments (linear time). Part of
:mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import re

from vault_sync.placeholders import random_looking
from vault_sync.sanitize.names import _generated_run
from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, Span
from vault_sync.sanitize.syntax import value_ok

#: A token argument: "double-quoted", 'single-quoted' or bare (ASCII, no shell operator:
#: groups, the last one taken).
_TOKEN = (
    r"(?:\"([^\"\r\n]{8,1024}+)\"|'([^'\r\n]{8,1024}+)'"
    r"|([!#-%(-+.-:?-{}~][!#-%(-+\--:=?-{}~]{7,1023}+))"
)
#: Options before the token (``-method=token``, ``-no-print``), then perhaps an option's
#: value when another argument follows it (``--registry crates-io TOKEN``).
_OPTIONS = (
    r"(?:[ \t]{1,8}-[\w-]{1,32}+(?:=[^\s]{1,256}+)?){0,6}+"
    r"(?:[ \t]{1,8}[\w.-]{1,64}+(?=[ \t]{1,8}[^\s-]))?"
)
_B = r"[ \t]{1,8}"


def _token_span(text: str, m: re.Match[str]) -> Span | None:
    """The token (the last group that matched), when it reads as generated and the command
    word begins a word (checked after a match: ``vault`` is common, a match rare)."""
    if not _word_start(text, m.start()):
        return None
    index = m.lastindex or 0
    value = m.group(index) if index else ""
    if not value or value[0] in "$%{<" or "{{" in value or "=" in value.rstrip("="):
        return None  # a variable, a template, a `key=value` pair (`username=bob`)
    if not (random_looking(value) or _generated_run(value)):
        return None
    return m.span(index)


def _password_span(text: str, m: re.Match[str]) -> Span | None:
    """``http-basic.NAME USER PASS``: the password, when it reads as one."""
    if not _word_start(text, m.start()):
        return None
    index = m.lastindex or 0
    value = m.group(index) if index else ""
    return m.span(index) if value and value_ok(value, True, False) else None


def _word_start(text: str, at: int) -> bool:
    """The command word at ``at`` begins a word (``vault``, not ``myvault``)."""
    return at == 0 or (text[at - 1] not in ALNUM and text[at - 1] not in "_-")


_PIPED = (
    r"echo(?:[ \t]{1,8}-[neE]{1,3})?[ \t]{1,8}" + _TOKEN + r"[ \t]{0,8}\|[ \t]{0,8}"
    r"(?:[^|\r\n]{0,256}?(?:auth[ \t]{1,8}login[^|\r\n]{0,64}?--(?:with-token|stdin)"
    r"|vault[ \t]{1,8}login(?:[ \t]{1,8}-[\w=-]{1,32}){0,4}?[ \t]{1,8}-(?=[ \t]|\r?\n|\Z)))"
)


def token_cli_rules() -> list[Rule]:
    """The rules of this module, in order."""
    c = LazyPattern
    command = (
        r"(?:vault"
        + _B
        + r"login|cargo"
        + _B
        + r"login|ngrok"
        + _B
        + r"(?:config"
        + _B
        + r")?(?:add-)?authtoken|snyk"
        + _B
        + r"auth|cloudflared(?:"
        + _B
        + r"tunnel)?"
        + _B
        + r"service"
        + _B
        + r"install|poetry"
        + _B
        + r"config"
        + _B
        + r"pypi-token\.[\w-]{1,64}+"
        + r"|doctl"
        + _B
        + r"auth"
        + _B
        + r"init"
        + _B
        + r"(?:-t|--access-token))"
    )
    return [
        Rule(
            "cli_credentials",
            c(command + _OPTIONS + _B + _TOKEN + r"(?=[\s\"'|;&)]|\Z|[^\x00-\x7f])"),
            ("vault", "cargo", "ngrok", "snyk", "cloudflared", "poetry", "doctl"),
            _token_span,
        ),
        Rule(
            "cli_credentials",
            c(
                r"poetry"
                + _B
                + r"config"
                + _B
                + r"http-basic\.[\w-]{1,64}+"
                + _B
                + r"[^\s\"']{1,128}+"
                + _B
                + r"(?:\"([^\"\r\n]{1,256}+)\"|'([^'\r\n]{1,256}+)'|([^\s\"']{1,256}+))"
            ),
            ("poetry",),
            _password_span,
        ),
        Rule("cli_credentials", c(_PIPED), ("echo",), _token_span),
    ]
