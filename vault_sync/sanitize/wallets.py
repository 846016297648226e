"""Raw cryptocurrency private keys (label ``private_key``; fresh-user report 5, finding 3).

- **Bitcoin WIF** (Wallet Import Format, en.bitcoin.it/wiki/Wallet_import_format): Base58Check
  of ``0x80`` (main net) or ``0xef`` (test net), the 32-byte key, an optional ``0x01``
  (compressed) and a 4-byte checksum — 51 or 52 characters, starting ``5``, ``K``, ``L``
  (main net) or ``9``, ``c`` (test net). The checksum (the first 4 bytes of SHA-256 twice)
  is verified, so a random run of Base58 letters is not one (1 in 2^32 passes); no keyword
  is needed;
- **a raw 256-bit key in hex** (Ethereum and other secp256k1 wallets: 64 hex digits, ``0x``
  optional) with a key word on its line just before it (``key``, ``private``, ``priv``,
  ``wallet``, ``secret``, ``pk``, ``signer``, ``seed``) and no public-value word (``public``,
  ``address``, ``hash``, ``tx``, ``sha``, ``digest``, ``checksum``, ``fingerprint``,
  ``commit``, ``block``): a transaction hash or a SHA-256 digest stays.

Both are found from runs of letters and digits (the text's lowercased ASCII view from
:mod:`.search`, translated in C: two passes per page), then checked in Python per run of the
right length. Part of :mod:`vault_sync.sanitize`.
"""

from __future__ import annotations

import hashlib
import re

from vault_sync.sanitize.overlaps import Candidate
from vault_sync.sanitize.rule import label_rank

LABEL = "private_key"
_ALNUM_MAP = bytes(ord("a") if chr(i).isascii() and chr(i).isalnum() else 32 for i in range(256))
_WIF_RUN = b"a" * 51
_BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BASE58_INDEX = {c: i for i, c in enumerate(_BASE58)}
#: WIF's first character by length: 51 (uncompressed), 52 (compressed).
_WIF_FIRST = {51: "59", 52: "KLc"}
#: The words before a hex key on its line that make it one, and those that make it public.
_KEY_WORD = re.compile(r"(?i:key|private|priv|wallet|secret|pk|signer|seed)")
_PUBLIC_WORD = re.compile(
    r"(?i:public|pub\b|address|hash|\btx|txid|sha|digest|checksum|fingerprint|commit|block)"
)
_HEX = frozenset("0123456789abcdefABCDEF")
#: How far before a hex key its key word may stand (on its line).
_KEY_WORD_GAP = 48


def base58check(run: str) -> bytes | None:
    """The payload of a Base58Check string (Bitcoin's encoding: the data, then the first 4
    bytes of SHA-256(SHA-256(data))), or ``None`` when ``run`` is not Base58 or its
    checksum fails."""
    number = 0
    for c in run:
        digit = _BASE58_INDEX.get(c)
        if digit is None:
            return None
        number = number * 58 + digit
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    raw = b"\0" * (len(run) - len(run.lstrip("1"))) + raw
    data, check = raw[:-4], raw[-4:]
    if len(raw) < 5 or hashlib.sha256(hashlib.sha256(data).digest()).digest()[:4] != check:
        return None
    return data


def _wif(run: str) -> bool:
    """``run`` is a WIF private key (the module docstring)."""
    if run[0] not in _WIF_FIRST.get(len(run), ""):
        return False
    data = base58check(run)
    if data is None or data[0] not in (0x80, 0xEF):
        return False
    return len(data) == 33 or (len(data) == 34 and data[33] == 1)


def _hex_key(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of a 64-hex key in the run ``[start, end)`` with a key word before it."""
    at = start + 2 if text.startswith(("0x", "0X"), start) else start
    if end - at != 64 or not _HEX.issuperset(text[at:end]):
        return None
    line = text.rfind("\n", 0, start) + 1
    before = text[max(line, start - _KEY_WORD_GAP) : start]
    if not _KEY_WORD.search(before) or _PUBLIC_WORD.search(before):
        return None
    return at, end  # the digits, not ``0x``: the key repeats without it (:mod:`.repeats`)


def wallet_candidates(text: str, view: bytes, out: list[Candidate]) -> None:
    """Add a ``private_key`` candidate for each WIF key and each 64-hex key after a key word
    in ``text`` (``view``: its lowercased ASCII view, one byte per character)."""
    flat = view.translate(_ALNUM_MAP)
    pos = flat.find(_WIF_RUN)
    rank = 0
    while pos >= 0:
        end = flat.find(b" ", pos)
        end = len(flat) if end < 0 else end
        span = _hex_key(text, pos, end) if end - pos in (64, 66) else None
        if span is None and end - pos in (51, 52) and _wif(text[pos:end]):
            span = (pos, end)
        if span is not None:
            rank = rank or label_rank()[LABEL]
            out.append(Candidate(rank, *span, LABEL, span))
        pos = flat.find(_WIF_RUN, end)
