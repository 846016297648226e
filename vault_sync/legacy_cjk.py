"""Which legacy CJK encoding a page that is not UTF-8 was saved in (:func:`legacy_cjk`), so
its text is read as written and a localized label before a password (``パスワード:``,
``密码：``, ``비밀번호:``) is seen by the sanitizer: read as UTF-8 with U+FFFD for the bad
bytes, the label was lost and the password kept (fresh-user report 4, F8).

The encodings Windows and Unix editors in Japan, China and Korea still save text in, each with
the characters its text is made of and the ones only it gives (:data:`LEGACY_CJK`):
Shift-JIS (Windows code page 932) and EUC-JP (kana), GB 2312 as its superset GBK, Big5, and
EUC-KR (Hangul; Python's ``euc_kr``, KS X 1001). A page's bytes often decode without an
error in several: EUC-KR and EUC-JP bytes are valid GBK, read as the wrong ideographs (EUC-KR
was read as GBK), so the scores count what only the right reading gives — kana for the
Japanese encodings (GBK's rows of kana are EUC-JP's: kana count for the Japanese ones only),
Hangul for EUC-KR — and a reading as Korean must be Korean text: 70 % of its non-ASCII
characters Hangul syllables (GB 2312 Chinese read as EUC-KR gives Hangul for about a third
of its ideographs, hanja for the rest). Part of the page layer's reading (:mod:`.pagefile`).
"""

from __future__ import annotations

import re

_CJK = r"\u3000-\u303f\u4e00-\u9fff\uff01-\uff5e"
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: ``(codec, name, characters only it gives (counted twice), characters of its text)``, in
#: the order a tie is settled (Python codec names).
LEGACY_CJK: tuple[tuple[str, str, re.Pattern[str] | None, re.Pattern[str]], ...] = (
    ("cp932", "SHIFT_JIS", _KANA, re.compile(rf"[{_CJK}\u3040-\u30ff]")),
    ("gbk", "GBK", None, re.compile(rf"[{_CJK}]")),
    ("big5", "BIG5", None, re.compile(rf"[{_CJK}]")),
    ("euc_jp", "EUC-JP", _KANA, re.compile(rf"[{_CJK}\u3040-\u30ff]")),
    ("euc_kr", "EUC-KR", _HANGUL, re.compile(rf"[{_CJK}\uac00-\ud7a3\u3130-\u318f]")),
)
#: The share of a Korean reading's non-ASCII characters that must be Hangul syllables.
HANGUL_SHARE = 0.7
#: A run of 2+ non-ASCII characters: CJK text is made of them, while accented letters of a
#: Latin-1 page read as CJK come one at a time between ASCII letters.
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]{2,}")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def legacy_cjk(data: bytes) -> tuple[str, str] | None:
    """The legacy CJK encoding ``data`` reads best in, and its text.

    Args:
        data: a page's bytes (not valid UTF-8).

    Returns:
        ``(name, text)`` (``name``: ``SHIFT_JIS``, ``GBK``, ``BIG5``, ``EUC-JP`` or
        ``EUC-KR``), or ``None``: of the encodings ``data`` decodes in without an error,
        those whose non-ASCII characters are nearly all (95 %) that language's, half of them
        in runs of two or more (and for EUC-KR 70 % Hangul), the one with the most such
        characters plus those only it gives (:data:`LEGACY_CJK`); on a tie the first.
    """
    best: tuple[int, str, str] | None = None
    for codec, name, own, typical in LEGACY_CJK:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        foreign = len(_NON_ASCII.findall(text))
        fitting = len(typical.findall(text))
        in_runs = sum(len(run) for run in _NON_ASCII_RUN.findall(text))
        if not foreign or fitting < 0.95 * foreign or in_runs * 2 < foreign:
            continue
        only = len(own.findall(text)) if own is not None else 0
        if own is _HANGUL and only < HANGUL_SHARE * foreign:
            continue
        score = fitting + only
        if best is None or score > best[0]:
            best = (score, name, text)
    return None if best is None else (best[1], best[2])
