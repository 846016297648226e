"""The scrubber's mechanism, exactly (issue 14's mutation testing of sanitize/): precedence
and leftovers in :func:`~vault_sync.sanitize.overlaps.resolve` on hand-made candidates, allow
spans, line numbers, and whole-text answers at the edges of the structural rules' gates
(header schemes, bearer length, a YAML ``data:`` key's place, a key file's path)."""

from __future__ import annotations

import pytest

from vault_sync.sanitize import Scrubber, line_of, scrub
from vault_sync.sanitize.overlaps import Candidate, Finding, resolve

#: Generated, never real (secret_samples.toml formats); R is random-looking, 16 characters.
G = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
A = "AKIA" + "QWERTYUIOPASDFGH"
R = "q8Zx3Lm9Tv2Kp7Wr"


def cand(rank: int, start: int, end: int, label: str) -> Candidate:
    return Candidate(rank, start, end, label, (start, end))


# -- precedence: candidates -> findings -----------------------------------------------------


def test_candidates_apart_are_all_found_whatever_their_rank_order() -> None:
    text = "a" * 40
    found = resolve(text, [cand(5, 0, 10, "low"), cand(1, 20, 30, "high")])
    assert found == (Finding("low", 0, 10), Finding("high", 20, 30))


def test_the_earlier_label_wins_and_the_loser_keeps_its_trimmed_pieces_outside() -> None:
    text = "ab.-cdefghij-.kl__mn"  # offsets 0..19
    found = resolve(text, [cand(9, 0, 20, "loser"), cand(1, 4, 12, "winner")])
    assert found == (Finding("loser", 0, 2), Finding("winner", 4, 12), Finding("loser", 14, 20))


def test_a_loser_with_several_gaps_keeps_each_piece_and_punctuation_only_pieces_go() -> None:
    text = "abc" + "WIN1" + "--" + "WIN2" + "xyz"  # 0-3 | 3-7 | 7-9 | 9-13 | 13-16
    found = resolve(text, [cand(1, 3, 7, "w"), cand(1, 9, 13, "w"), cand(5, 0, 16, "l")])
    assert found == (
        Finding("l", 0, 3),
        Finding("w", 3, 7),
        Finding("w", 9, 13),
        Finding("l", 13, 16),
    )


def test_at_equal_rank_the_longer_match_wins_then_the_earlier() -> None:
    text = "x" * 30
    assert resolve(text, [cand(2, 0, 10, "short"), cand(2, 5, 25, "long")]) == (
        Finding("short", 0, 5),
        Finding("long", 5, 25),
    )
    assert resolve(text, [cand(2, 10, 20, "later"), cand(2, 5, 15, "earlier")]) == (
        Finding("earlier", 5, 15),
        Finding("later", 15, 20),
    )


def test_a_match_reading_our_own_token_is_dropped_and_tokens_are_never_redacted() -> None:
    text = "x [REDACTED:aws_key] yy"
    reads_token = Candidate(1, 0, 1, "a", (0, 5))
    inside = cand(1, 3, 10, "b")
    after = cand(1, 21, 23, "c")
    assert resolve(text, [reads_token, inside, after]) == (Finding("c", 21, 23),)


def test_an_allowed_span_protects_only_candidates_wholly_inside_it() -> None:
    text = "0123456789abcdef"
    found = resolve(
        text, [cand(1, 2, 6, "in"), cand(1, 8, 14, "across")], allow=lambda _t: [(0, 10)]
    )
    assert found == (Finding("across", 8, 14),)  # partly allowed: redacted whole


# -- allow entries, line numbers ------------------------------------------------------------


def test_an_allow_literal_protects_every_occurrence_and_only_whole_ones() -> None:
    assert scrub(f"{A} and {A}", allow=[A]) == (f"{A} and {A}", ())
    assert scrub(f"{A}{A}"[4:], allow=[A[4:] + "AKIA"]) == scrub(f"{A}{A}"[4:])
    assert scrub(f"{A} and {A}", allow=[A[:-1]])[0] == "[REDACTED:aws_key] and [REDACTED:aws_key]"
    # a regex that can match empty text protects nothing by its empty matches
    assert scrub(A, allow=["x*"])[0] == "[REDACTED:aws_key]"
    # each occurrence as a literal (overlapping ones too), then as a regex; "" is no entry
    assert Scrubber(allow=["aa", ""])._allow_spans("aaaa") == [
        (0, 2),
        (1, 3),
        (2, 4),
        (0, 2),
        (2, 4),
    ]
    assert Scrubber(allow=["x*"])._allow_spans("xAxx") == [(0, 1), (2, 4)]


@pytest.mark.parametrize(
    ("text", "offset", "line"),
    [("\nX", 1, 2), ("abc", 0, 1), ("a\nb\nc", 4, 3), ("a\n", -3, 1), ("\n\n", 0, 1)],
)
def test_line_of(text: str, offset: int, line: int) -> None:
    assert line_of(text, offset) == line


# -- the structural rules at their edges ------------------------------------------------------

EXACT = [
    # Authorization: a scheme word, then anything token-like of 8+ non-letters-only characters
    (f"Authorization: Basic {R}", "Authorization: Basic [REDACTED:auth_header]"),
    ("Authorization: Basic abcdefg1", "Authorization: Basic abcdefg1"),
    (f"Authorization: {R}", "Authorization: [REDACTED:auth_header]"),
    ("Authorization: Bearer your-token-here1", "Authorization: Bearer your-token-here1"),
    # Digest: the whole parameter list, quoted parameters included (RFC 7616 §3.4)
    (
        'Authorization: Digest username="Mufasa", response="6629fae49393a05397450978507c4ef1"',
        "Authorization: Digest [REDACTED:auth_header]",
    ),
    (f"Authorization: DIGEST {R}, nonce=abc", "Authorization: DIGEST [REDACTED:auth_header]"),
    (
        f"curl -H 'Authorization: Digest username={R}, nonce=x' https://h",
        "curl -H 'Authorization: Digest [REDACTED:auth_header]' https://h",
    ),
    # Kubernetes Secret: `data:` begins its line (after indentation or a list dash)
    (
        "kind: Secret\ndata:\n  password: c2VjcmV0cGFzc3dvcmQ=\n",
        "kind: Secret\ndata:\n  [REDACTED:kubernetes_secret]: [REDACTED:env_secret]\n",
    ),
    (
        "kind: Secret\n  data:\n    password: c2VjcmV0cGFzc3dvcmQ=\n",
        "kind: Secret\n  data:\n    [REDACTED:kubernetes_secret]: [REDACTED:env_secret]\n",
    ),
    (
        "kind: Secret\n  -  data:\n    password: c2VjcmV0cGFzc3dvcmQ=\n",
        "kind: Secret\n  -  data:\n    [REDACTED:kubernetes_secret]: [REDACTED:env_secret]\n",
    ),
    (
        "kind: Secret\nx data:\n  password: c2VjcmV0cGFzc3dvcmQ=\n",
        "kind: Secret\nx data:\n  password: [REDACTED:env_secret]\n",
    ),
    (
        "data:\n  password: c2VjcmV0cGFzc3dvcmQ=\nkind: Secret\n",
        "data:\n  [REDACTED:kubernetes_secret]: [REDACTED:env_secret]\nkind: Secret\n",
    ),
    # key files: the path back to a separator, never a name in prose
    ("see ~/.ssh/id_rsa now", "see [REDACTED:credential_path] now"),
    ("cat /home/u/.ssh/id_ed25519", "cat [REDACTED:credential_path]"),
    ("it writes id_ed25519 here", "it writes id_ed25519 here"),
    ("my_id_rsa_notes", "my_id_rsa_notes"),
    ("the .pem extension", "the .pem extension"),
    ("server.pem is here", "[REDACTED:credential_path] is here"),
    ("(~/keys/a.pem)", "([REDACTED:credential_path])"),
    ("=~/keys/a.pem", "=[REDACTED:credential_path]"),
    # a lone `*` is no emphasis: the plain-text views keep it, so the path reads as written
    # there too (`a*b/…`; before, they dropped it and redacted `a` as well)
    ("a*b/keys/a.pem", "a*[REDACTED:credential_path]"),
    ("a*b/keys/a.pem *x*", "[REDACTED:credential_path]*[REDACTED:credential_path] *x*"),
    ("a */keys/a.pem", "a *[REDACTED:credential_path]"),
    ("x" * 300 + "/certs/server.pem", "x" * 57 + "[REDACTED:credential_path]"),  # 256 back
    # two secrets side by side each keep their own label
    (f"{G} then {A}", "[REDACTED:github_token] then [REDACTED:aws_key]"),
    (f"{A} then {G}", "[REDACTED:aws_key] then [REDACTED:github_token]"),
    (f"[REDACTED:aws_key]{G}", "[REDACTED:aws_key][REDACTED:github_token]"),
    (f"[REDACTED:aws_key]-{A}", "[REDACTED:aws_key]-[REDACTED:aws_key]"),
]


@pytest.mark.parametrize(("text", "expected"), EXACT)
def test_structural_rules_at_their_edges(text: str, expected: str) -> None:
    assert scrub(text)[0] == expected


def test_a_loser_wholly_inside_a_winner_leaves_nothing_and_pieces_stop_at_its_end() -> None:
    text = "abcdefghijklmnopqrst"
    assert resolve(text, [cand(1, 0, 10, "w"), cand(5, 2, 8, "l"), cand(1, 14, 18, "z")]) == (
        Finding("w", 0, 10),
        Finding("z", 14, 18),
    )
    assert resolve(text, [cand(1, 0, 6, "w"), cand(1, 10, 12, "v"), cand(5, 4, 14, "l")]) == (
        Finding("w", 0, 6),
        Finding("l", 6, 10),
        Finding("v", 10, 12),
        Finding("l", 12, 14),
    )


def test_file_names_are_scrubbed_by_their_glued_parts_and_folders() -> None:
    names = [
        f"dir/notes-{G}.md",
        "a/b-c/d.md",
        f"x_{G}",
        "plain.md",
        f"notes{G}.md",
        f"a-{G}/b.md",
        f"q/r_s {G}",
    ]
    T = "[REDACTED:github_token]"
    assert Scrubber().scrub_names(names) == {
        f"dir/notes-{G}.md": f"dir/notes-{T}.md",
        f"x_{G}": f"x_{T}",
        f"notes{G}.md": f"notes{T}.md",
        f"a-{G}/b.md": f"a-{T}/b.md",
        f"q/r_s {G}": f"q/r_s {T}",
    }
    assert Scrubber().scrub_names(["a.md", "b/c.md"]) == {}
