"""The scrubber's gates and look-back edges, exactly (issue 14's second mutation-testing run
of sanitize/): the name gates of the name-keyed rules, the look-backs of ``after_token``,
``_yaml_key`` and ``_path_span`` at the very start of a text (every field is scrubbed on its
own, so a text start is common), values longer than the pattern's cap, file names with a
secret in each of two glued parts, and findings of the rendered view beside raw ones.

Every secret here is generated (never a real key): ``R`` is random-looking, ``G`` / ``L1`` /
``L2`` have the GitHub / GitLab token shapes, ``B`` is base64 of ``secretpassword``.
"""

from __future__ import annotations

import base64
import hashlib
import logging

import pytest

from vault_sync.linear_regex import compile_linear
from vault_sync.sanitize import Finding, Scrubber, scrub
from vault_sync.sanitize.overlaps import Candidate, resolve
from vault_sync.sanitize.rendered import rendered_view

R = "q8Zx3Lm9Tv2Kp7Wr"
G = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
A = "AKIA" + "QWERTYUIOPASDFGH"
L1 = "glpat-" + "aB3dE5fG7hJ9kL1mN3pQ"
L2 = "glpat-" + "zY8xW6vU4tS2rQ0pO9nM"
B = "c2VjcmV0cGFzc3dvcmQ="
GK = "AIza" + "Sy3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA"
T = "[REDACTED:github_token]"
K8S = "[REDACTED:kubernetes_secret]"


def generated(n: int) -> str:
    """``n`` random-looking letters and digits (sha256 chained from a fixed seed)."""
    out, seed = "", b"vault-sync"
    while len(out) < n:
        seed = hashlib.sha256(seed).digest()
        out += base64.b64encode(seed).decode().translate({ord(c): None for c in "+/="})
    return out[:n]


EXACT = [
    # after_token: a key-file name glued to one of our tokens stays (idempotence), wherever
    # the token sits (at the text start; with another token after it, or two tokens before)
    ("[REDACTED:aws_key].pgpass", "[REDACTED:aws_key].pgpass"),
    ("[REDACTED:openai_key].pgpass and [REDACTED:aws_key]", None),
    ("[REDACTED:aws_key][REDACTED:aws_key].pgpass", None),
    # ... but a `]` that ends no token is only punctuation
    ("[REDACTED:aws_key] a].pgpass", "[REDACTED:aws_key] a][REDACTED:credential_path]"),
    # _path_span: a path from the text's first character, and every character but a
    # separator belongs to the path
    ("/id_rsa", "[REDACTED:credential_path]"),
    ("~/Xdir/a.pem", "[REDACTED:credential_path]"),
    # _yaml_key: `data:` begins its line after blanks or a list dash, at the text start too,
    # in a text that does not end with a newline, and nothing else counts as indentation
    (f"  data:\n    db-conn: {B}\nkind: Secret\n", f"  data:\n{K8S}\nkind: Secret\n"),
    (f"data:\n  db-conn: {B}\nkind: Secret", f"data:\n{K8S}\nkind: Secret"),
    (f"data:\n  db-conn: {B}\nkind: Secret # a-", f"data:\n{K8S}\nkind: Secret # a-"),
    (f"- data:\n  db-conn: {B}\nkind: Secret  ", f"- data:\n{K8S}\nkind: Secret  "),
    (f"kind: Secret\n- data:\n  db-conn: {B}\n", f"kind: Secret\n- data:\n{K8S}\n"),
    (f"kind: Secret\n - data:\n  db-conn: {B}\n", f"kind: Secret\n - data:\n{K8S}\n"),
    (f"kind: Secret\nX data:\n  db-conn: {B}\n", None),
    (f"kind: Secret\nX- data:\n  db-conn: {B}\n", None),
    # ... after at most 32 blanks (the look-back's bound)
    (f"kind: Secret\n{' ' * 32}data:\n  db-conn: {B}\n", f"kind: Secret\n{' ' * 32}data:\n{K8S}\n"),
    (f"kind: Secret\n{' ' * 33}data:\n  db-conn: {B}\n", None),
    # _assignment_name: public names stay, camelCase names are names, API names are api_key
    (f"public_key: {R}", None),
    (f"AWSKey: {R}", "AWSKey: [REDACTED:env_secret]"),
    ("dbPwd = k9#mQ2zX", "dbPwd = [REDACTED:env_secret]"),
    ("dbPWD = k9#mQ2zX", "dbPWD = [REDACTED:env_secret]"),
    (f"API_TOKEN={R}", "API_TOKEN=[REDACTED:api_key]"),
    (f"APIX_TOKEN={R}", "APIX_TOKEN=[REDACTED:env_secret]"),
    # _assignment_span: a quoted password is one whatever its letters; a value before `(`
    # or `[` is code unless quoted; `--token value` is a command line; PWD is a folder only
    # when its value says so
    ('password: "correcthorse"', 'password: "[REDACTED:env_secret]"'),
    ("password: 'correcthorse'", "password: '[REDACTED:env_secret]'"),
    (f'TOKEN="{R}".', 'TOKEN="[REDACTED:env_secret]".'),
    ("SECRET_TOKEN=load_token()", None),
    (f"run --token {R}", "run --token [REDACTED:env_secret]"),
    ("PWD=~build", None),
    ("PWD=Xk9#mQ2z", "PWD=[REDACTED:env_secret]"),
    ("PWD=k9X#mQ2z", "PWD=[REDACTED:env_secret]"),
    # _api_key_span: glued to a word only in camelCase, or before `api` (a glued name:
    # `myapikey`); a quoted value before `.` is a value, a bare one before `(` is code
    (f"xapi_key = {R}", "xapi_key = [REDACTED:api_key]"),
    (f"-xapi_key = {R}", "-xapi_key = [REDACTED:api_key]"),
    # not an access key's name; but a generated value after "key is" is a secret in prose
    (f"xaccess key is {R}", "xaccess key is [REDACTED:env_secret]"),
    (f"[REDACTED:custom]api_key is {R}", None),
    (f"a api_key = {R}", "a api_key = [REDACTED:api_key]"),
    (f'myApiKey = "{R}"', 'myApiKey = "[REDACTED:api_key]"'),
    (f'the apiKey = "{R}".', 'the apiKey = "[REDACTED:api_key]".'),
    ("api_key = loadKeyV2(cfg)", None),
    # a bounded vendor match is refused before one of our tokens only (not its look-alike)
    (f"{GK}[REDACTED:", "[REDACTED:google_api_key][REDACTED:"),
    (f"{GK}[REDACTED:aws_key]", None),
    # bearer tokens: random-looking, or 20+ characters that are not all letters
    ("Bearer 83920174659203847561", "Bearer [REDACTED:bearer_token]"),
    ("Bearer 8392017465920384756", None),
    ("the Bearer some-word here", None),
    ("Bearer thisisjustaverylongword", None),
    # curl -u: a password of 4 characters is one; a $VARIABLE is not
    ("curl -u admin:k9#m https://h", "curl -u [REDACTED:cli_credentials] https://h"),
    ("curl -u admin:k9# https://h", None),
    ("curl -u admin:$k9mQ2zX https://h", None),
    # a manifest's block in the second document of three: the document's own kind counts
    (
        f"a: 1\n---\nkind: Secret\ndata:\n  db: {B}\n---\nother\n",
        f"a: 1\n---\nkind: Secret\ndata:\n{K8S}\n---\nother\n",
    ),
    (f"kind: Secret\n---\ndata:\n  db: {B}\n---\nother\n", None),
]


@pytest.mark.parametrize(("text", "expected"), EXACT)
def test_gates_and_look_backs_exactly(text: str, expected: str | None) -> None:
    out = text if expected is None else expected
    assert scrub(text)[0] == out
    assert scrub(out)[0] == out  # idempotent


@pytest.mark.parametrize("quote", ["", '"', "'"])
@pytest.mark.parametrize("tail", ["", ".tail", "Xtail", "(x)", "[0]"])
def test_a_value_longer_than_the_patterns_cap_is_redacted_whole(quote: str, tail: str) -> None:
    """The name-keyed value pattern reads 4096 characters; a longer secret was cut there (the
    rest left in clear) or, with `.`, `(` or `[` at the cut, or quoted, left whole."""
    value = generated(5000)
    closing = quote + tail if quote else tail
    if tail[:1] in ".X" and tail and not quote:  # a bare value takes `.tail` as its own
        for name, label in (("MY_TOKEN=", "env_secret"), ("apiKey: ", "api_key")):
            assert scrub(f"{name}{value}{tail}")[0] == f"{name}[REDACTED:{label}]"
        return
    for name, label in (("MY_TOKEN=", "env_secret"), ("apiKey: ", "api_key")):
        text = f"{name}{quote}{value}{closing}"
        assert scrub(text)[0] == f"{name}{quote}[REDACTED:{label}]{closing}"


def test_a_value_of_exactly_the_cap_and_a_cut_code_call() -> None:
    value = generated(4096)
    assert scrub(f"MY_TOKEN={value}(x)")[0] == "MY_TOKEN=[REDACTED:env_secret](x)"
    assert scrub(f"MY_TOKEN={generated(4095)}(x)")[0] == f"MY_TOKEN={generated(4095)}(x)"
    # an unclosed quote past the cap: the value runs to the end of its line
    assert scrub(f'MY_TOKEN="{value}abc\nnext')[0] == 'MY_TOKEN="[REDACTED:env_secret]\nnext'


#: Rules that read a capped number of a value's characters, each with a long value: (text
#: before, text after, expected output). A value past the cap was cut there (its rest in
#: clear), or, for the XML rule, not matched at all (issue 14).
LONG = generated(6000)
CAPPED = [
    ("x Bearer ", " y", "x Bearer [REDACTED:bearer_token] y"),
    ("Authorization: ", " y", "Authorization: [REDACTED:auth_header] y"),
    ("Authorization: Bearer ", " y", "Authorization: Bearer [REDACTED:auth_header] y"),
    (
        'Authorization: Digest username="u", response="',
        '"\nnext',
        "Authorization: Digest [REDACTED:auth_header]\nnext",
    ),
    (
        '<add key="ClearTextPassword" value="',
        '" />',
        '<add key="ClearTextPassword" value="[REDACTED:env_secret]" />',
    ),
    (
        '<add key="ClearTextPassword" value="',
        "\nnext",
        '<add key="ClearTextPassword" value="[REDACTED:env_secret]\nnext',
    ),
    (
        "machine h login me password ",
        " y",
        "machine h login me password [REDACTED:cli_credentials] y",
    ),
    ("https://me:", "@example.com/x", "https://[REDACTED:url_credentials]@example.com/x"),
    ("https://me:", " example.com/x", None),  # no `@` after it: a port or a path, not userinfo
    ("curl -u me:", " https://x", "curl -u [REDACTED:cli_credentials] https://x"),
    ("mysql -p", " db", "mysql -p[REDACTED:cli_credentials] db"),
    ("kind: Secret\ndata:\n  a: ", "\n  b: c\nnext", "kind: Secret\ndata:\n" + K8S + "\nnext"),
    (
        "kind: Secret\ndata:\n" + "".join(f"  k{i}: v\n" for i in range(1100)) + "  z: ",
        "\nnext",
        "kind: Secret\ndata:\n" + K8S + "\nnext",
    ),
]


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    CAPPED,
    ids=[
        *("bearer", "auth", "auth-bearer", "digest", "xml", "xml-unclosed", "netrc", "url"),
        *("url-no-at", "curl-u", "mysql-p", "k8s-long-line", "k8s-1101-lines"),
    ],
)
def test_a_credential_longer_than_its_rules_cap_is_redacted_to_its_end(
    before: str, after: str, expected: str | None
) -> None:
    """Bearer (4,096), Authorization (1,024), XML settings (4,096), .netrc (1,024), URL and
    command-line passwords (256), Kubernetes data lines (8,192) and blocks (1,024 lines)."""
    text = f"{before}{LONG}{after}"
    out = scrub(text)[0]
    assert out == (text if expected is None else expected)
    assert scrub(out)[0] == out  # idempotent


@pytest.mark.parametrize(("cap", "before"), [(4096, "x Bearer "), (1024, "machine h password ")])
def test_a_credential_at_its_cap_and_one_past_it(cap: int, before: str) -> None:
    for n in (cap - 1, cap, cap + 1):
        value = generated(n)
        assert (
            scrub(f"{before}{value} y")[0]
            == f"{before}[REDACTED:{'bearer_token' if cap == 4096 else 'cli_credentials'}] y"
        )


# -- file names --------------------------------------------------------------------------------


def test_a_file_name_keeps_every_secret_redacted_whichever_part_finds_it() -> None:
    names = [f"a_{L1} b_{L2}.md", f"n/a_{L1} {L2}.md", f"{G}.md", "b.md", f"x_{L1}"]
    L = "[REDACTED:gitlab_token]"
    assert Scrubber().scrub_names(names) == {
        # the token's charset takes `.md`, but the name keeps it: a path is shown as it is
        f"a_{L1} b_{L2}.md": f"a_{L} b_{L}.md",
        f"n/a_{L1} {L2}.md": f"n/a_{L} {L}.md",
        f"{G}.md": f"{T}.md",
        f"x_{L1}": f"x_{L}",
    }
    # the first name's secret at offset 0, then clean names after it
    assert Scrubber().scrub_names([f"{G}.md", "b.md", "c-d.md"]) == {f"{G}.md": f"{T}.md"}
    assert Scrubber().scrub_names(["a.md", "b-c.md", f"{G}.md"]) == {f"{G}.md": f"{T}.md"}


def test_a_folder_is_split_at_its_glue_as_the_file_name_is() -> None:
    """Every folder's glued parts are scrubbed on their own too: a folder named
    ``keys-sk_live_…`` kept its key in every path below it (found by a fresh user)."""
    L = "[REDACTED:gitlab_token]"
    assert Scrubber().scrub_names([f"x_{L1}/b.md"]) == {f"x_{L1}/b.md": f"x_{L}/b.md"}
    assert Scrubber().scrub_names([f"a/x-{L1}/b.md", "a/x-y/b.md"]) == {
        f"a/x-{L1}/b.md": f"a/x-{L}/b.md"
    }
    assert Scrubber().scrub_names([f"x-y/z_{L1}"]) == {f"x-y/z_{L1}": f"x-y/z_{L}"}


# -- the rendered view beside raw findings -----------------------------------------------------


def test_rendered_findings_keep_their_place_among_raw_ones() -> None:
    escaped = G.replace("_", "\\_")  # ghp\_…: rendered as ghp_…
    assert scrub(f"{escaped} then {A}")[0] == f"{T} then [REDACTED:aws_key]"
    assert scrub(f"{A} then {escaped}")[0] == f"[REDACTED:aws_key] then {T}"
    assert scrub(f"{A} {A} then {escaped}")[0] == f"[REDACTED:aws_key] [REDACTED:aws_key] then {T}"
    # a raw finding and the view's finding of the same value: one token
    value = R[:4] + "\\_" + R[4:]
    assert scrub(f"{A} MY_TOKEN={value}")[0] == "[REDACTED:aws_key] MY_TOKEN=[REDACTED:env_secret]"
    assert scrub(f"{A} {A} MY_TOKEN={value}")[0] == (
        "[REDACTED:aws_key] [REDACTED:aws_key] MY_TOKEN=[REDACTED:env_secret]"
    )


def test_the_view_is_made_only_where_a_form_sits_inside_a_would_be_token() -> None:
    assert rendered_view("see \\_x and &amp;y, a\\_b") is not None
    assert rendered_view("see \\_x and &amp;y, a \\_b") is None
    assert rendered_view("a \\_\\_init\\_\\_ and R&amp; so") is None
    assert rendered_view("&#103;hp") is not None  # renders a letter: a token may begin here
    assert rendered_view("x&#95;") is None  # renders `_`, nothing after it
    assert rendered_view("ab&#53;") is not None  # renders a digit: a token may end here


def _entities(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


@pytest.mark.parametrize(
    "written",
    [
        "&#103;" + G[1:],  # &#103; is g: the token begins with a reference
        G[:-1] + "&#" + str(ord(G[-1])) + ";",  # ... or ends with one
        _entities(G),  # written wholly in references
        "ghp" + "&lowbar;" + G[4:],  # one named reference inside
        "ghp\\" + "_" + G[4:],  # one escape inside
        "&#x67;hp\\_" + G[4:],  # a reference, then an escape
    ],
)
def test_a_token_written_with_references_at_its_ends_is_redacted(written: str) -> None:
    """A reference at a token's start or end, or a run of them, was never rendered (only a
    single form between two letters or digits was): ``&#103;hp_…`` shows as ``ghp_…``."""
    assert scrub(f"see {written} now")[0] == f"see {T} now"
    assert scrub(written)[0] == T


def test_an_allowed_token_stays_when_written_escaped() -> None:
    escaped = G.replace("_", "\\_")
    assert scrub(escaped, allow=[G]) == (escaped, ())
    assert scrub(escaped)[0] == T


# -- precedence: a candidate apart from every winner is kept whole ------------------------------


def cand(rank: int, start: int, end: int, label: str) -> Candidate:
    return Candidate(rank, start, end, label, (start, end))


def test_a_candidate_apart_from_the_winners_keeps_its_punctuation() -> None:
    text = "abcd" + "xxxxxx" + "--ab--" + "yyyy" + "zzzzzzzzzz"  # 0-4 | 4-10 | 10-16 | 16-20
    assert resolve(text, [cand(1, 0, 4, "w"), cand(5, 10, 16, "l")]) == (
        Finding("w", 0, 4),
        Finding("l", 10, 16),
    )
    assert resolve(text, [cand(1, 20, 30, "w"), cand(5, 10, 16, "l")]) == (
        Finding("l", 10, 16),
        Finding("w", 20, 30),
    )


def test_a_losers_pieces_end_where_it_ends_and_trim_odd_punctuation() -> None:
    text = "abcdefghijklmnopqrstuvwxyz"
    assert resolve(text, [cand(1, 0, 4, "w"), cand(1, 20, 24, "v"), cand(5, 0, 10, "l")]) == (
        Finding("w", 0, 4),
        Finding("l", 4, 10),
        Finding("v", 20, 24),
    )
    assert resolve("wwww.xy", [cand(1, 0, 4, "w"), cand(5, 0, 7, "l")]) == (
        Finding("w", 0, 4),
        Finding("l", 5, 7),
    )
    # a piece of punctuation only, at the very end of the text: nothing
    assert resolve("ab--", [cand(1, 0, 2, "w"), cand(5, 0, 4, "l")]) == (Finding("w", 0, 2),)


# -- custom patterns ---------------------------------------------------------------------------


def test_a_custom_pattern_redacts_its_matches_and_never_an_empty_one() -> None:
    assert scrub("abc", extra_patterns=["x*"]) == ("abc", ())
    assert scrub("k=abc1", extra_patterns=["abc[0-9]"]) == (
        "k=[REDACTED:custom]",
        (Finding("custom", 2, 6),),
    )


def test_an_invalid_custom_pattern_is_skipped_with_a_warning_naming_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with pytest.raises(ValueError) as refused:
        compile_linear("(")
    with caplog.at_level(logging.WARNING, logger="vault_sync.sanitize"):
        assert Scrubber(extra_patterns=["("]).scrub(A)[0] == "[REDACTED:aws_key]"
    assert [r.getMessage() for r in caplog.records] == [
        f"sanitize: skipping invalid pattern '(': {refused.value}"
    ]


# -- a token followed by a slash ----------------------------------------------------------------


def test_every_token_followed_by_a_slash_is_redacted_as_before_a_space() -> None:
    """A token's closing look-ahead named ``/`` as a token character for 60 vendor formats
    whose values hold no slash, so a key before a ``/`` (a folder ``keys-sk_live_…/``, a URL
    path) stayed in clear (found by a fresh user). Only a value that is base64 to its end
    (Azure's ``…@<44 base64>``) may run on into a slash."""
    import random

    from tests.secret_samples import samples

    scrubber, rng, kept = Scrubber(), random.Random(7), []
    for sample in samples():
        text, secret = sample.plant(rng)
        if len(secret) < 12 or secret in scrubber.scrub(f"{text} x")[0]:
            continue
        if secret in scrubber.scrub(f"{text}/x")[0]:
            kept.append(sample.label)
    assert kept == ["azure_secret"]


# -- gates of the capped rules, exactly (issue 14's third mutation-testing run) ----------------


@pytest.mark.parametrize(
    ("credential", "redacted"),
    [
        ("abcd-efg", True),  # 8 characters, not all letters: a credential after a scheme
        ("abcdefgh", False),  # all letters: a word
        ("abc1", False),  # short and not random-looking
        ("ab1", False),
        ("abc", False),
        ("1a2b3c4d", True),  # random-looking
        ("<token>", False),  # a placeholder
    ],
)
def test_the_credential_gate_after_an_authorization_scheme(credential: str, redacted: bool) -> None:
    text = f"Authorization: Token {credential} x"
    assert scrub(text)[0] == ("Authorization: Token [REDACTED:auth_header] x" if redacted else text)


@pytest.mark.parametrize(
    ("before", "after", "label"),
    [
        ("machine h password ", " x", "cli_credentials"),
        ('<add key="ApiPassword" value="', '" />', "env_secret"),
    ],
)
def test_a_netrc_or_xml_value_needs_four_characters(before: str, after: str, label: str) -> None:
    assert scrub(f"{before}ab1{after}")[0] == f"{before}ab1{after}"
    assert scrub(f"{before}ab1c{after}")[0] == f"{before}[REDACTED:{label}]{after}"


def test_escapes_count_in_a_text_that_is_not_ascii() -> None:
    """Full-width forms are looked for only in non-ASCII text: the escapes and references
    found before must stay in the list."""
    escaped = G.replace("_", "\\_")
    assert scrub(f"café {escaped}")[0] == f"café {T}"


def test_a_form_at_a_texts_start_or_second_character() -> None:
    assert rendered_view("\\_init x1") is None  # nothing before the form (not the text's end)
    assert rendered_view("a\\_b") is not None  # a letter before it, at offset 0


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("pw=Xk29vLq8Zr", "pw=[REDACTED:env_secret]"),
        ("PW: hunter2Xk9!", "PW: [REDACTED:env_secret]"),
        ("db_pw = Xk29vLq8Zr", "db_pw = [REDACTED:env_secret]"),
        ("--pw s3cretValue1", "--pw [REDACTED:env_secret]"),
        ("pw: xxxx", "pw: xxxx"),  # a placeholder
        ("the pw is fine", "the pw is fine"),  # prose, no assignment
        ("PWD=/home/me", "PWD=/home/me"),  # the shell's working folder
    ],
)
def test_pw_is_a_password_name(text: str, redacted: str) -> None:
    """Fresh-user report: a value after ``pw=`` (the common short form) was kept in clear."""
    assert scrub(text)[0] == redacted


_R = "Gx7kq2LmZp9RtYv4Wb8Nc3Hd6Jf1Ks5Qa0Ue2Io7"


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        (f"awssec={_R}", "awssec=[REDACTED:env_secret]"),
        (f"aws_sec: {_R}", "aws_sec: [REDACTED:env_secret]"),
        (f'db_cred="{_R}"', 'db_cred="[REDACTED:env_secret]"'),
        (f"credentials: {_R}", "credentials: [REDACTED:env_secret]"),
        (f"oauth = {_R}", "oauth = [REDACTED:env_secret]"),
        (f"secret_value: {_R}", "secret_value: [REDACTED:env_secret]"),
        (f"token2={_R}", "token2=[REDACTED:env_secret]"),
        (f'signingKeyId = "{_R}"', 'signingKeyId = "[REDACTED:env_secret]"'),
        (f"SECRETS={_R}", "SECRETS=[REDACTED:env_secret]"),
        ("sec=3f9a6c1e8b7d4a2f9c0e51ab", "sec=[REDACTED:env_secret]"),
        # a glued mysql password of 16 letters, no digit (the leak audit's seeds found it)
        ("mysql -u root -pXYEqaPDVxVqXTzHQ app", "mysql -u root -p[REDACTED:cli_credentials] app"),
        (
            f"signingKeyId: '{'e287f6796eeb0f8988e42f447e60430eb23fb79f'}'",
            "signingKeyId: '[REDACTED:env_secret]'",
        ),
        # public names and values no generator made stay
        ("key_id=user_id_2", "key_id=user_id_2"),
        ("secret_name: my-app-secret-v2", "secret_name: my-app-secret-v2"),
        ("auth_mode: payments-service-account-2", "auth_mode: payments-service-account-2"),
        ("timeout_sec=30", "timeout_sec=30"),
        ("token_expiry: 2024-05-01T10:00:00Z", "token_expiry: 2024-05-01T10:00:00Z"),
        ("secret_ref: projects/my-proj/secrets/db", "secret_ref: projects/my-proj/secrets/db"),
        ("author=JohnSmith2020abcdefgh", "author=JohnSmith2020abcdefgh"),
        (f"monkey_id={_R}", f"monkey_id={_R}"),
        (f"public_key_id: {_R}", f"public_key_id: {_R}"),
        (f"sort_key_v2={_R}", f"sort_key_v2={_R}"),
        ("sec_key_example=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", None),
    ],
)
def test_looser_secret_names(text: str, redacted: str | None) -> None:
    """Fresh-user report: ``awssec=…`` went through. A secret word abbreviated (``sec``,
    ``cred``, ``auth``) or followed by more of the name (``secret_value``, ``token2``) names a
    secret when its value holds a generated run; public names and plain values stay."""
    assert scrub(text)[0] == (text if redacted is None else redacted)
