"""Putting new_str where old_str was found, changing nothing the edit did not change.

A tolerant match means the file's text differs from old_str somewhere (trailing spaces, indentation,
quotes, blank lines). Lines that old_str and new_str have in common are lines the edit keeps: they keep the
file's own bytes, so a Markdown hard line break (two trailing spaces) or a curly quote on an untouched line
survives the edit. Only lines new_str adds or changes are written as the model wrote them (re-indented like
the file where the match was indentation-blind). difflib pairs old_str's lines with new_str's.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from sneakycode.tools.edit.matching import Candidate


@dataclass(frozen=True)
class Replaced:
    text: str
    spans: list[tuple[int, int]]


def replace_candidates(text: str, chosen: Sequence[Candidate], old: str, new: str, *, verbatim: bool) -> Replaced:
    """Put new_str at each chosen place (non-overlapping, in order), keeping the file's line endings, and,
    unless the match was `verbatim`, the file's own lines wherever the edit keeps a line of old_str."""
    new_lf = new.replace("\r\n", "\n")
    mixed = "\r\n" in text
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = size = 0
    for cand in chosen:
        region = text[cand.start : cand.end]
        if verbatim:
            piece = _shifted(new_lf, cand) if cand.reindent else new_lf
        else:
            piece = kept_lines(cand.old if cand.old is not None else old, new_lf, region, cand)
        if mixed:
            piece = _with_region_breaks(piece, region, text[cand.end :])
        out.append(text[pos : cand.start])
        size += cand.start - pos
        spans.append((size, size + len(piece)))
        out.append(piece)
        size += len(piece)
        pos = cand.end
    out.append(text[pos:])
    return Replaced("".join(out), spans)


def kept_lines(old: str, new_lf: str, region: str, cand: Candidate) -> str:
    """new_str for the matched `region`, with every line it shares with old_str taken from the region.

    File lines between two kept lines that old_str did not mention (a blank line the model left out) are
    kept too, unless the edit replaced or deleted something between them."""
    old_segs = old.replace("\r\n", "\n").split("\n")
    new_segs = new_lf.split("\n")
    file_segs = [seg.removesuffix("\r") for seg in region.split("\n")]
    partners = cand.partners
    if partners is None:
        if len(file_segs) != len(old_segs):
            return _shifted(new_lf, cand) if cand.reindent else new_lf
        partners = tuple(range(len(old_segs)))
    out: list[str] = []
    last: int | None = None
    touched = False
    matcher = difflib.SequenceMatcher(None, old_segs, new_segs, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for index in range(i1, i2):
                partner = partners[index]
                if partner is None:
                    continue
                if last is not None and not touched:
                    out.extend(file_segs[last + 1 : partner])
                out.append(file_segs[partner])
                last, touched = partner, False
            continue
        touched = touched or tag != "insert"
        out.extend(_shift_seg(new_segs[j], j, cand) for j in range(j1, j2))
    return "\n".join(out)


def _shift_seg(seg: str, index: int, cand: Candidate) -> str:
    if cand.reindent is None or (index == 0 and cand.keep_first_line):
        return seg
    return cand.reindent.shift_line(seg)


def _shifted(new_lf: str, cand: Candidate) -> str:
    return "\n".join(_shift_seg(seg, index, cand) for index, seg in enumerate(new_lf.split("\n")))


def _with_region_breaks(piece: str, region: str, after: str) -> str:
    """In a file with mixed line endings the k-th line break of new_str takes the ending of the k-th break
    of the text it replaces (the last one, or the next one in the file, for any beyond)."""
    breaks = ["\r\n" if region[i - 1 : i] == "\r" else "\n" for i, char in enumerate(region) if char == "\n"]
    following = after.find("\n")
    fallback = breaks[-1] if breaks else ("\r\n" if following > 0 and after[following - 1] == "\r" else "\n")
    segs = piece.split("\n")
    out = [segs[0]]
    for index, seg in enumerate(segs[1:]):
        out.append(breaks[index] if index < len(breaks) else fallback)
        out.append(seg)
    return "".join(out)


def non_overlapping(found: Sequence[Candidate]) -> list[Candidate]:
    chosen: list[Candidate] = []
    for cand in found:
        if not chosen or cand.start >= chosen[-1].end:
            chosen.append(cand)
    return chosen
