"""Secrets known by the name before them (issue 17 kind 3): ``NAME_TOKEN=…``, ``"password":
"…"``, ``--token …``, ``x-api-key: …``, ``curl -u user:pass``, ``mysql -p…``, XML settings.

A name alone is not enough: the value must pass a gate (:mod:`vault_sync.placeholders`) —
random-looking, or any non-placeholder after an UPPER_CASE env name — so prose ("the token is
refreshed hourly") and public identifiers (``public_key``, ``primaryKey``) are left.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from vault_sync.placeholders import password_placeholder
from vault_sync.placeholders import placeholder as _placeholder
from vault_sync.placeholders import random_looking as _random_looking
from vault_sync.sanitize.phrases import line_value_end, prose_after
from vault_sync.sanitize.rule import (
    ALNUM,
    LazyPattern,
    Rule,
    Span,
    SpanFn,
    after_token,
    capped_end,
)

#: A credential value: "double-quoted", 'single-quoted' or bare (a bare value may hold quotes
#: after its first character: YAML `token: ab"cd`). The pattern reads at most
#: :data:`_VALUE_CAP` characters of it (bounded repeats keep each attempt linear); a value
#: that reaches the cap is redacted on to its real end (:func:`_value_end`).
_VALUE = (
    r"(?:\"([^\"\r\n]{1,4096}+)(?:\"|(?=[^\"\r\n]))|'([^'\r\n]{1,4096}+)(?:'|(?=[^'\r\n]))"
    r"|([^\s\"'`,;<>\[\]{}()][^\s`,;<>\[\]{}()]{0,4095}+))"
)
_VALUE_CAP = 4096
#: The rest of a value cut at the cap: of a bare one, of a "double-" or 'single-quoted' one.
_REST = {
    "": re.compile(r"[^\s`,;<>\[\]{}()]*+"),
    '"': re.compile(r'[^"\r\n]*+'),
    "'": re.compile(r"[^'\r\n]*+"),
}


def _value_end(text: str, m: re.Match[str], index: int, quote: str) -> int:
    """Where the value in group ``index`` ends (``quote``: ``'"'``, ``"'"`` or ``""`` for a
    bare value): the group's end, or for a value of :data:`_VALUE_CAP` characters the end of
    the rest of it, so a longer secret is redacted whole, never cut (issue 14)."""
    return capped_end(_REST[quote], text, m.start(index), m.end(index), _VALUE_CAP)


def _bare_end(text: str, name_start: int, start: int, end: int) -> int:
    """Where a bare value from ``start`` to ``end`` ends when a quote opens before its name
    (``curl -d "password=X" …``, ``echo 'token=X' > cfg``): at that quote, which closes the
    string the pair is in (a bare value may hold quotes: YAML ``token: ab"cd``; but redacting
    the closing one ate it: fresh-user report 3). ``end`` otherwise."""
    if name_start <= 0 or text[name_start - 1] not in "\"'":
        return end
    cut = text.find(text[name_start - 1], start, end)
    return cut if cut > start else end


def _code_after(text: str, m: re.Match[str], index: int) -> bool:
    """A bare value that ended by itself before ``(`` or ``[``: code (``get_token()``,
    ``os.environ["X"]``), not a value. A value cut at the cap did not end there."""
    end = m.end()
    if end >= len(text) or end - m.start(index) >= _VALUE_CAP:
        return False
    return text[end] in "(["


#: name ends with KEY/TOKEN/SECRET/PASSWORD/SALT/PEPPER/SIG/...; then an assignment operator
#: (`=`, `:`, `:=`, `=>`, `?=`, `||=`, `.=`, `<-`), or spaces after a `--flag`.
_ASSIGN = (
    r"(?i:(key|token|secret|pass(?:w(?:or)?d|phrase)?|ps?wd|pw|psk|salt|pepper|sig(?:nature)?))"
    r"[\"'\]]{0,2}"
    r"(?:[ \t]{0,8}(?::=|=>|\?=|\|\|=|\.=|<-|=|:)[ \t]{0,8}|([ \t]{1,8}))" + _VALUE
)
#: Keywords that must follow another name part (`API_KEY`, `dbPwd`); bare `key:` is too common.
_NEEDS_PREFIX = frozenset({"key", "pwd"})

_PASSWORDS = frozenset({"password", "passwd", "passphrase", "pwd", "pswd", "pw", "pass", "psk"})

_NAME_REVERSED = re.compile(r"[\w.-]*", re.ASCII)


def _name_before(text: str, start: int) -> str:
    """The identifier-ish name part just before ``start`` (at most 64 chars). Our own
    ``[REDACTED:…]`` token right before it reads as a glued lower-case name part (``x``):
    the text it replaced was one, and a bare name there made a second scrub judge the value
    anew (``…[REDACTED:google_oauth]TOKEN=client``: an env name then, not before)."""
    window = text[max(0, start - 64) : start][::-1]
    name = window[: _NAME_REVERSED.match(window).end()][::-1]  # type: ignore[union-attr]
    if not name and after_token(text, start):
        return "x"
    return name


#: Name parts before KEY/TOKEN that make the name a public identifier (issue 17 kind 5).
_PUBLIC_NAME = re.compile(
    r"(?i:public|pub|primary|foreign|sort|partition|cache|csrf|xsrf|idempotency|range|hash"
    r"|index|unique|composite|row)[_.-]?\Z"
)


#: The first three letters of the password-like keywords (``pass``, ``passwd``, ``pwd``…).
_PASSWORD_HEADS = frozenset({"pas", "pwd"})
#: Words that end in ``pass`` / ``pwd`` glued without a separator and are not a password's
#: name: English (``bypass``, ``compass``, ``surpass``…), filters and encoder passes
#: (``lowpass``, ``twopass``), password managers (``keepass``, ``lastpass``, ``gopass``),
#: sudoers' and doas's ``NOPASSWD:`` / ``nopass`` tags, the shell's ``OLDPWD``. Any other
#: word glued before ``PASS``, ``PASSWD``, ``PASSWORD`` or ``PWD`` names a password
#: (``SMTPPASS``, ``DBPASS``, ``MYSQLPWD``, ``dbpasswd``: fresh-user report). Matched on the
#: run of letters that ends the name before the keyword, then the keyword.
_GLUED_WORD = re.compile(
    r"(?:by|com|encom|sur|tres|over|under|multi|low|high|band|all|one|two|single|first"
    r"|second|kee|last|go|no|old)(?:pass|passwd|pwd)(?![a-z])",
    re.IGNORECASE,
)
_LETTERS_END = re.compile(r"[A-Za-z]*\Z")


def _assignment_name(text: str, at: int) -> bool:
    """The keyword at ``at`` ends a name: ``DB_PASSWORD``, ``apiToken``, ``client-secret``;
    not ``monkey``/``hotkey``, and not a bare ``key`` (``API``-key names go to ``api_key``)."""
    prefix = _name_before(text, at)
    head = text[at : at + 3].lower()
    if text.endswith(("://", "${"), 0, at - len(prefix)):
        return False  # https://oauth2:T@host (url_credentials); ${X:-v}: sanitize/apart.py
    if not prefix:  # a bare PWD is the shell's working folder unless its value says otherwise
        return head not in _NEEDS_PREFIX or head == "pwd"
    if _PUBLIC_NAME.search(prefix):
        return False  # public_key, primaryKey, foreignKey, csrf-token, sortKey: not secrets
    last = prefix[-1]
    camel = text[at].isupper() and (
        last.islower() or last.isdigit() or text[at + 1 : at + 2].islower()  # AWSToken
    )
    if last.isalnum() and not camel:
        if head == "key":
            return False  # monkey=, hotkey:, TURKEY= — no name part
        glued = _LETTERS_END.search(prefix).group()  # type: ignore[union-attr]
        if head in _PASSWORD_HEADS and _GLUED_WORD.match(glued + text[at : at + 7]):
            return False  # bypass:, COMPASS=, NOPASSWD:, OLDPWD= — a word, not a name
    return not (head in ("key", "tok") and prefix.lower().rstrip("_.-").endswith("api"))


#: A passphrase's other words, to the end of its line (or a non-ASCII letter: ``…staple
#: です``): 2 to 12 words of ASCII letters after the first (diceware's form). A passphrase of
#: words has no digit to mark it as generated, but nothing after ``passphrase:`` is prose.
_PASSPHRASE_WORDS = re.compile(
    r"(?:[ \t][A-Za-z]{2,24}+){2,12}+(?=[ \t]{0,8}(?:\r?\n|\Z)|[^\x00-\x7f])"
)


def _assignment_span(text: str, m: re.Match[str]) -> Span | None:
    """``NAME_TOKEN=value`` and friends: redact the value when it looks like one."""
    keyword = m.group(1)
    lower = keyword.lower()
    prefix = _name_before(text, m.start())
    index = m.lastindex or 0
    value = m.group(index)
    quoted = index in (3, 4)
    if m.group(2) is not None and not prefix.startswith("-"):
        return None  # `token value` is prose; `--token value` is a command line
    if not quoted and _code_after(text, m, index):
        return None  # os.environ["X"], get_token(): code, not a value
    if lower == "pwd" and (
        (not prefix and (value[:1] in "$%~" or any(c in value for c in "/\\")))
        or (prefix[-1:].isalnum() and (value[:1] in "$%~/." or value[1:3] in (":\\", ":/")))
    ):
        return None  # PWD=/home/me/src, OLDPWD=$HOME, XPWD=C:\x: a working folder
    env_style = keyword.isupper() and (not prefix or prefix.upper() == prefix)
    if lower == "passphrase" and index == 5 and value.isalpha():
        words = _PASSPHRASE_WORDS.match(text, m.end())
        if words:  # `passphrase: correct horse battery staple`: the words to the line's end
            return m.start(index), words.end()
    if lower in _PASSWORDS:
        if index == 5 and m.group(2) is None and not password_placeholder(value):
            name_start = m.start() - len(prefix)
            env_line = (
                env_style
                and text[m.end(1) : m.start(index)].strip(" \t\"']") == "="
                and not prose_after(text, m.end(index), value)
            )
            end = line_value_end(text, name_start, m.end(index), env_line)
            if end is not None:  # `password: correct horse battery staple` on a config line
                return m.start(index), end
        ok = (
            len(value) >= 4
            and not _placeholder(value)
            and (quoted or env_style or any(not c.isalpha() for c in value))
        )
    elif env_style:
        ok = len(value) >= 4 and not _placeholder(value)
    else:
        ok = _random_looking(value)
    if not ok:
        return None
    quote = {3: '"', 4: "'"}.get(index, "")
    end = _value_end(text, m, index, quote)
    if not quote:
        end = _bare_end(text, m.start() - len(prefix), m.start(index), end)
    return m.start(index), end


#: A name whose secret word is abbreviated (``awssec``, ``db_cred``, ``auth``) or followed by
#: more of the name (``secret_value``, ``token2``, ``keyId``, ``SECRETS``): the looser names
#: gitleaks' ``generic-api-key`` rule accepts (a keyword anywhere in the name), found by a
#: fresh user's ``awssec=…`` going through. Such names also name public things (``key_id``,
#: ``secret_name``, ``auth_mode``), so the value must hold a generated run
#: (:func:`_generated_run`), a stricter gate than :func:`random_looking`.
_LOOSE_ASSIGN = (
    r"(?i:(secrets?|tokens?|keys?|sec|creds?|credentials?|auth))"
    r"((?:[_.-]|[A-Z0-9])[\w.-]{0,19}+)?[\"'\]]{0,2}"
    r"[ \t]{0,8}(?::=|=>|\?=|\|\|=|\.=|<-|=|:)[ \t]{0,8}" + _VALUE
)
#: Keywords the strict rules already take when nothing follows them.
_STRICT_WORDS = frozenset({"key", "token", "secret"})
#: A run a generator made: 16+ characters of the base64 / hex alphabet, no separators.
_RUN = re.compile(r"[A-Za-z0-9+/=]{16,}")
#: The share of its alphabet's most entropy (log2 of 16 for hex, 64 for base64, or of the
#: run's length if shorter) a run must reach: random runs reach it (of 20,000 random 16-hex
#: runs, 0.3 % fall below; of 24+ characters, none); repeats (``aaaaaaaaaaaaaaaa1``) do not.
#: gitleaks' ``generic-api-key`` uses a flat 3.5 bits, which 1 in 7 random 16-hex runs miss.
_ENTROPY_SHARE = 0.65
_HEX = frozenset("0123456789abcdefABCDEF")


def _entropy(run: str) -> float:
    """Shannon entropy of ``run``, bits per character."""
    size = len(run)
    return -sum(n / size * math.log2(n / size) for n in Counter(run).values())


def _generated_run(value: str) -> bool:
    """``value`` holds 16+ characters of the base64 alphabet without a separator, mixing
    letters with digits or upper with lower case, at :data:`_ENTROPY_SHARE` of the most
    entropy its alphabet allows, and is no placeholder. ``payments-service-account-2``,
    ``2024-05-01T10:00:00Z`` and ``my-app-secret-v2`` fail (no such run)."""
    if _placeholder(value):
        return False
    for run in _RUN.findall(value[:512]):
        letters = any(c.isalpha() for c in run)
        digits = any(c.isdigit() for c in run)
        mixed = any(c.isupper() for c in run) and any(c.islower() for c in run)
        if not (letters and (digits or mixed)):
            continue
        alphabet = 16 if _HEX.issuperset(run) else 64
        if _entropy(run) >= _ENTROPY_SHARE * math.log2(min(len(run), alphabet)):
            return True
    return False


def _loose_assignment_span(text: str, m: re.Match[str]) -> Span | None:
    """``awssec=…``, ``secret_value: …``, ``keyId = "…"``: a value holding a generated run."""
    if m.group(2) is None and m.group(1).lower() in _STRICT_WORDS:
        return None  # API_KEY=, token: — the env_secret rules above decide those
    index = m.lastindex or 0
    quoted = index in (3, 4)
    if not quoted and _code_after(text, m, index):
        return None
    if not _generated_run(m.group(index)):
        return None
    quote = {3: '"', 4: "'"}.get(index, "")
    end = _value_end(text, m, index, quote)
    if not quote:
        end = _bare_end(text, m.start() - len(_name_before(text, m.start())), m.start(index), end)
    return m.start(index), end


_API_KEY = (
    r"(?i:(api[ _.-]?(?:key|token)|apikey|access[ _-]?key))"
    r"[\"'\]]{0,2}(?:[ \t]{1,8}(?:is|was)[ \t]{1,8}|[ \t]{0,8}(?::=|=>|=|:)[ \t]{0,8}|[ \t]{1,8})"
    + _VALUE
)


def _api_key_span(text: str, m: re.Match[str]) -> Span | None:
    """``x-api-key: value``, ``apiKey = "v"``: a random-looking value; not a URL's user."""
    start = m.start()
    if text.endswith("://", 0, start - len(_name_before(text, start))):
        return None
    # an ASCII letter or digit glues (`monkey_access_key`); a non-ASCII one ends a name
    # (`トークンはapi_key=…`, found by a fresh user). A name glued before `api` is a name
    # still (`myapikey`, `githubapi_key`: the fresh user's `SMTPPASS` kind), not after our
    # token, which stands for text a rule refused.
    glued = start and (text[start - 1] in ALNUM or after_token(text, start))
    named = text[start - 1 : start] in ALNUM and m.group(1)[:3].lower() == "api"
    if glued and not named and not m.group(1)[0].isupper():
        return None
    index = m.lastindex or 0
    value = m.group(index)
    if (index == 4 and _code_after(text, m, index)) or not _random_looking(value):
        return None
    quote = {2: '"', 3: "'"}.get(index, "")
    end = _value_end(text, m, index, quote)
    return m.start(index), end if quote else _bare_end(text, start, m.start(index), end)


#: The rest of a command-line password past the pattern's cap of 256 characters.
_ARG_REST = re.compile(r"[^\s\"']*+")


def _user_password_span(text: str, m: re.Match[str]) -> Span | None:
    """``curl -u user:password``: the credentials, unless the password is a placeholder."""
    password = m.group(2)
    if len(password) < 4 or _placeholder(password) or password.startswith("$"):
        return None
    return m.start(1), capped_end(_ARG_REST, text, m.start(2), m.end(2), 256)


def _flag_value_span(text: str, m: re.Match[str]) -> Span | None:
    """``mysql -pSECRET``: a glued value, when it reads as generated (16 letters of mixed
    case without a digit too: the leak audit's seeds found ``-pXYEqaPDVxVqXTzHQ`` kept)."""
    if not (_random_looking(m.group(1)) or _generated_run(m.group(1))):
        return None
    return m.start(1), capped_end(_ARG_REST, text, m.start(1), m.end(1), 256)


def _settled_value(rest: re.Pattern[str], cap: int) -> SpanFn:
    """Redact group 1 (read up to ``cap`` characters) on to its end (a run of ``rest``) when
    it is a value of 4+ characters and no placeholder: the .netrc and XML settings rules."""

    def span(text: str, m: re.Match[str]) -> Span | None:
        value = m.group(1)
        if len(value) < 4 or _placeholder(value):
            return None
        return m.start(1), capped_end(rest, text, m.start(1), m.end(1), cap)

    return span


def name_rules() -> list[Rule]:
    """The name-keyed rules (``env_secret``, ``api_key``, ``cli_credentials``), in order."""
    c = LazyPattern
    return [
        # NAME_KEY=…, _TOKEN=…, _SECRET=…, PASSWORD=… (.env, shell `export`, YAML `name: value`,
        # JSON, code). Starts at the keyword (cheap literal-first scan); the name before it is
        # checked in Python. UPPER_CASE env names take any non-placeholder value; other names
        # need a random-looking value, so `sortKey: "priority"` and prose stay.
        Rule(
            "env_secret",
            c(_ASSIGN),
            ("key", "token", "secret", "salt", "pepper", "sig"),
            _assignment_span,
            pre=_assignment_name,
        ),
        # The same after a password-like name: a value mixing kinds is a (weak) password,
        # spared only when it is a true placeholder (`xxxx`, `123456`, `${DB_PASSWORD}`).
        Rule(
            "env_secret",
            c(_ASSIGN),
            ("pass", "pw", "psk", "pswd"),
            _assignment_span,
            pre=_assignment_name,
            spare=password_placeholder,
        ),
        # The same after a looser name (`awssec=`, `secret_value:`, `db_cred=`), when the
        # value holds a generated run.
        Rule(
            "env_secret",
            c(_LOOSE_ASSIGN),
            ("sec", "key", "token", "cred", "auth"),
            _loose_assignment_span,
            pre=_assignment_name,
        ),
        # A key-like token after an API-key-like name in any syntax: API_KEY=…, x-api-key: …,
        # --api-key …, "my API key is …".
        Rule(
            "api_key",
            c(_API_KEY),
            ("api", "access"),
            _api_key_span,
        ),
        # Credentials on a command line: `curl -u user:password` (curl(1) --user), `mysql
        # -pPASSWORD` (mysql(1) --password).
        Rule(
            "cli_credentials",
            c(r"(?:-u|--user)(?:[ \t]{1,8}|=)[\"']?([^\s\"':]{1,128}+):([^\s\"']{1,256}+)"),
            ("-u ", "-u=", "--user"),
            _user_password_span,
        ),
        Rule("cli_credentials", c(r" -p([^\s\"']{8,256}+)"), (" -p",), _flag_value_span),
        # A .netrc entry (curl(1), ftp(1), git's netrc helper): `machine HOST login USER
        # password SECRET`, on one line or several.
        Rule(
            "cli_credentials",
            c(
                r"\bmachine\s{1,64}\S{1,256}(?:\s{1,64}(?:login|account)\s{1,64}\S{1,256}){0,2}"
                r"\s{1,64}password\s{1,64}(\S{1,1024}+)"
            ),
            ("machine",),
            _settled_value(re.compile(r"\S*+"), 1024),
        ),
        # .NET / NuGet XML settings: <add key="ClearTextPassword" value="…" />.
        Rule(
            "env_secret",
            c(
                r"key=\"[\w.:-]{0,64}(?i:password|secret|token|apikey|pwd)[\w.:-]{0,64}\""
                r"[ \t]{1,8}value=\"([^\"\r\n]{1,4096}+)(?:\"|(?=[^\"\r\n]))"
            ),
            ('key="',),
            _settled_value(_REST['"'], _VALUE_CAP),
        ),
    ]
