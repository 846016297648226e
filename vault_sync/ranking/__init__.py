"""The retrieval pipeline (DESIGN §5; issue 10): lexical stream, graph stream, linear fusion,
authority, confidence, and the rules a careful colleague ranks by — then filters, snippets and
``--explain``.

Layer 5 (STYLE.md): above the lexical stream (:mod:`vault_sync.retrieve`, which reads only the
index) and the sidecar (:mod:`vault_sync.store`, through :mod:`vault_sync.page_facts`). It
runs a :class:`~vault_sync.rank_plan.RankPlan`, built apart from running it
(:mod:`vault_sync.rank_plan`), and every constant is a
:class:`~vault_sync.ranking_settings.RankingSettings` field, settable under ``[ranking]``.

A package of three modules: :mod:`~vault_sync.ranking.candidates` (the candidates, gathered
by the lexical and graph streams, and the facts they read), :mod:`~vault_sync.ranking.order`
(filters, scores and rules) and :mod:`~vault_sync.ranking.pipeline` (running a plan, the hits).

The stages, in order (each a function of those modules, naming its source):

1. lexical: BM25F over the index's fields (``retrieve``), the best ``lexical_depth`` pages,
   scores normalised by the best one;
2. graph: neighbours of the best ``graph_seeds`` through resolved links
   (:mod:`vault_sync.graph_stream`);
3. fusion: ``lexical + graph_weight * graph`` (weighted linear fusion of normalised scores:
   equal-weight RRF with k = 60 over a weaker second stream lowered MRR below BM25 alone,
   DESIGN §5.3);
4. authority (:mod:`vault_sync.authority`), confidence (weight 0 unless ``eval`` shows it
   helps), the date stage and the not-yet stage (:mod:`vault_sync.not_yet`), as multipliers;
5. rules, after the scores: a page that supersedes another is placed directly above it, and
   the challenger of an unresolved contradiction directly above its target (issue 10,
   item 6), and (``follow_depth``) the page that follows a best hit through a ``next`` /
   ``prev`` link directly below it, and (``follow_hops``) when that page asks a question,
   the page after it directly below that, each shown in ``--explain``.
"""

from vault_sync.ranking.candidates import Candidate
from vault_sync.ranking.pipeline import run_plan, search

__all__ = ["Candidate", "run_plan", "search"]
