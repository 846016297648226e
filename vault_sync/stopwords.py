"""Question words that say nothing about the page that answers: dropped from queries.

Lucene's 33 English stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``) plus pronouns,
auxiliaries and wh-words, which natural-language questions are full of (docs/eval.md lists
them). Used by the query (``query_text.read_clauses``, only for unquoted words, and only when a
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

#: Chinese question and function words that a question written without spaces is full of
#: (什么, 怎么, 可以, 多少 ...): every bigram holding one of their characters where they occur
#: (``有什``, ``么法`` around 什么 too) matches almost any page, so the CJK bigram stage
#: (``query_fields.cjk_words``) leaves those bigrams out; a quoted phrase keeps them. From a
#: list of common Mandarin function words, measured on the dnd-srd-zh dev split (docs/eval.md).
CJK_STOP_WORDS = frozenset(
    [
        "什么",
        "怎么",
        "怎样",
        "如何",
        "为何",
        "多少",
        "多久",
        "哪些",
        "哪个",
        "哪里",
        "是否",
        "能否",
        "可否",
        "可以",
        "能够",
        "需要",
        "应该",
        "一个",
        "一下",
        "一些",
        "这个",
        "那个",
        "这些",
        "那些",
        "这样",
        "那样",
        "他们",
        "我们",
        "你们",
        "它们",
        "自己",
        "的话",
        "时候",
        "之后",
        "以后",
        "之前",
        "或者",
        "还是",
        "已经",
        "没有",
        "不能",
        "不会",
        "不是",
        "就是",
        "然后",
        "因为",
        "所以",
        "如果",
        "但是",
    ]
)
