"""Question words that say nothing about the page that answers: dropped from queries.

Lucene's 33 English stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``) plus pronouns,
auxiliaries and wh-words, which natural-language questions are full of (docs/eval.md lists
them). Used by the query (``retrieve.build_query``, only for unquoted words, and only when a
word outside the list remains) and by eval's plain-BM25 baseline.
"""

from __future__ import annotations

_LUCENE = (
    "a an and are as at be but by for if in into is it no not of on or such that the their"
    " then there these they this to was will with"
)
_QUESTION_WORDS = (
    "i me my mine myself we us our ours ourselves you your yours yourself yourselves he him"
    " his himself she her hers herself its itself them theirs themselves"
    " am were been being do does did doing done have has had having can could would should"
    " shall may might must"
    " what when where which who whom whose why how"
)
#: Lucene's 33 English stop words.
LUCENE_STOP_WORDS = frozenset(_LUCENE.split())
#: Lucene's list plus pronouns, auxiliaries and wh-words.
STOP_WORDS = LUCENE_STOP_WORDS | frozenset(_QUESTION_WORDS.split())
