"""A scoring plan: the pieces of a document the enabled kinds need scored, and their scores put
back in the document's coordinates.

The reference model's forward pass is the cost of a scan, and most of a file is no candidate of
any kind. So each detector names the spans it judges (``Detector.regions``: credential values that
survive the model-free judgement, Python lines with dead-code evidence) or asks for the whole
document (None); raw ``surprise`` always needs whole documents. The union of the targets becomes
pieces (:func:`smscan.plan.regions.pieces_for_targets`: the detector's ``context_chars`` of left
context, the rest of the line, merged when they meet), restricted to the changed lines of a diff scan.

Each piece is scored as an independent text, so a score stays a pure function of (model,
settings, text) and a score cache keyed on the piece's text is reused across rescans even when
other parts of the file change. :func:`document_scores` concatenates the pieces' scores in
document offsets: tokens outside every piece are simply absent, and a piece's first token has no
score (NaN), as a text's first token never has. Detectors read those sparse scores exactly as
they read a whole document's; a gap between consecutive tokens marks where a piece begins
(``smscan.detectors.dead_code`` leaves the first tokens of each piece unjudged, as it does a file's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from smscan.records import Detector
from smscan.records import Document, TokenScores
from smscan.plan.regions import Piece, merge_spans, pieces_to_score, target_spans

if TYPE_CHECKING:
    from smscan.model.scorer import Scorer


def plan_pieces(
    document: Document, detectors: Sequence[Detector], *, whole: bool = False, by_path: bool = True
) -> list[Piece]:
    """The pieces of ``document`` to score for ``detectors``.

    Args:
        document: the document (its ``changed_lines`` restrict the pieces of a diff scan).
        detectors: the enabled detectors; those that do not apply to the path need nothing.
        whole: a kind outside the detectors (raw ``surprise``) needs whole documents.
        by_path: skip detectors whose ``applies_to`` refuses the path, as a scan does
            (calibration judges labelled texts whatever their names, and plans them likewise).

    Returns:
        Disjoint pieces in text order: the whole document (or its changed runs with context)
        when ``whole`` or any detector asks for it, else its targets in context; empty when no
        detector needs anything of this document.
    """
    if whole:
        return pieces_to_score(document)
    spans: list[tuple[int, int]] = []
    for detector in detectors:
        if by_path and not detector.applies_to(document.path):
            continue
        wanted = detector.regions(document.text, document.path)
        if wanted is None:
            return pieces_to_score(document)
        spans.extend(target_spans(document, wanted, context_chars=detector.context_chars))
    return merge_spans(document.text, spans)


def document_scores(pieces: Sequence[Piece], scores: Sequence[TokenScores]) -> TokenScores:
    """The scores of a document's pieces, in the document's offsets (tokens outside them absent).

    One piece at offset 0 is returned as it is, so a whole-document plan reads exactly the scores
    of the whole text.
    """
    if len(pieces) == 1 and pieces[0].offset == 0:
        return scores[0]
    if not pieces:
        empty = np.zeros(0, dtype=np.int64)
        return TokenScores(token_ids=empty, char_starts=empty, char_ends=empty.copy(), nll=np.zeros(0))
    return TokenScores(
        token_ids=np.concatenate([s.token_ids for s in scores]).astype(np.int64),
        char_starts=np.concatenate([s.char_starts + p.offset for p, s in zip(pieces, scores)]).astype(np.int64),
        char_ends=np.concatenate([s.char_ends + p.offset for p, s in zip(pieces, scores)]).astype(np.int64),
        nll=np.concatenate([s.nll for s in scores]).astype(np.float64),
    )


def assemble_scores(plans: Sequence[Sequence[Piece]], flat: Sequence[TokenScores]) -> list[TokenScores]:
    """Sparse document scores from the scores of every plan's pieces, flattened in plan order."""
    out = []
    index = 0
    for pieces in plans:
        out.append(document_scores(pieces, flat[index : index + len(pieces)]))
        index += len(pieces)
    return out


def score_planned(
    scorer: Scorer, documents: Sequence[Document], detectors: Sequence[Detector], *, by_path: bool = True
) -> list[TokenScores]:
    """Score the planned pieces of each document and return its sparse document scores.

    Args:
        scorer: the reference model (anything with ``score_texts``).
        documents: the documents.
        detectors: the detectors whose plan decides the pieces.
        by_path: as in :func:`plan_pieces`.

    Returns:
        Scores aligned with ``documents``.
    """
    plans = [plan_pieces(document, detectors, by_path=by_path) for document in documents]
    return assemble_scores(plans, scorer.score_texts([piece.text for pieces in plans for piece in pieces]))
