"""Password hashes (label ``password_hash``): a stored hash is a password to whoever cracks it
offline, and a weak password falls in minutes. Known by their format alone, wherever they
stand (an ``/etc/shadow`` line, a ``users`` table dump, a ``.htpasswd`` line, a seed file):

- bcrypt (OpenBSD ``bcrypt(3)``; ``$2a$``, ``$2b$``, ``$2x$``, ``$2y$``): a two-digit cost,
  then 22 characters of salt and 31 of hash in bcrypt's base64 (``./A-Za-z0-9``); the salt
  alone (``BCRYPT_SALT=$2b$12$…``, 29 characters) too. A value starting with ``$`` after a
  name was read as a shell variable (``$HOME``) and kept (a fresh user's bcrypt salt);
- SHA-crypt (``$5$``, ``$6$``, optional ``rounds=N$``; Drepper's specification), MD5-crypt
  (``$1$``, Apache's ``$apr1$``) and yescrypt (``$y$``), as ``crypt(5)`` lists them;
- Argon2 (RFC 9106's PHC string: ``$argon2id$v=19$m=…,t=…,p=…$salt$hash``) and Django's
  PBKDF2 (``pbkdf2_sha256$iterations$salt$hash``).

Each pattern starts with its literal prefix (the trigger), every repeat bounded (linear time),
and ends where its alphabet does. Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

from vault_sync.sanitize.rule import ALNUM, LazyPattern, Rule, whole

LABEL = "password_hash"
#: crypt(3)'s base64 alphabet, and the end of a hash: no more of it but ``/`` (a folder or a
#: URL path may follow, as after every token).
_C = r"[./A-Za-z0-9]"
_END = r"(?![.A-Za-z0-9+=$])"
_B64 = r"[A-Za-z0-9+/]"


def hash_rules() -> list[Rule]:
    """The rules of this module, in order."""
    c = LazyPattern
    return [
        Rule(
            LABEL,
            c(rf"\$2[abxy]\$[0-9]{{2}}\${_C}{{22}}(?:{_C}{{31}})?{_END}"),
            ("$2",),
            whole,
            before=ALNUM,
        ),
        Rule(
            LABEL,
            c(
                rf"\$(?:[56]\$(?:rounds=[0-9]{{1,9}}\$)?{_C}{{1,16}}\${_C}{{43,86}}"
                rf"|(?:1|apr1)\${_C}{{1,8}}\${_C}{{22}}"
                rf"|y\${_C}{{1,16}}\${_C}{{1,86}}\${_C}{{43}}){_END}"
            ),
            ("$5$", "$6$", "$1$", "$apr1$", "$y$"),  # each searched only where `$` occurs
            whole,
            before=ALNUM,
        ),
        Rule(
            LABEL,
            c(
                r"\$argon2(?:id|i|d)\$v=[0-9]{1,3}\$m=[0-9]{1,10},t=[0-9]{1,10},p=[0-9]{1,3}"
                rf"\${_B64}{{8,64}}\${_B64}{{16,128}}(?![A-Za-z0-9+/=])"
            ),
            ("$argon2",),
            whole,
            before=ALNUM,
        ),
        Rule(
            LABEL,
            c(
                r"pbkdf2_sha(?:1|256|512)\$[0-9]{1,7}\$[\w./+-]{1,64}\$"
                r"[A-Za-z0-9+/]{20,128}={0,2}(?![A-Za-z0-9+/=])"
            ),
            ("pbkdf2_sha",),
            whole,
            before=ALNUM,
        ),
    ]
