"""Terminal rendering of a cited answer with rich.

Headings are bold, markers are coloured, and an unsupported sentence is shown
in red with a warning sign so a reader sees at once which claims no source
backs; a cited sentence another source contradicts is followed by what that source says (in
yellow); the citation block follows, then (optionally) the time per stage.
"""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from navicite.generate.answer import Answer
from navicite.generate.cite import with_marker
from navicite.generate.draft import short_answer_of

UNSUPPORTED_SIGN = "⚠"
#: Shown after a cited sentence that another source contradicts.
DISPUTED_SIGN = "≠"


def answer_text(answer: Answer) -> Text:
    """The answer text with its layout kept, styled by sentence kind, markers highlighted."""
    plain = answer.answer
    out = Text()
    cursor = 0
    for record in answer.sentences:
        shown = record.text if record.kind == "heading" else with_marker(record.text, record.markers)
        at = plain.find(shown, cursor)
        if at < 0:  # not found verbatim (should not happen): keep the order, skip the styling
            continue
        out.append(plain[cursor:at], style="dim")
        if record.kind == "heading":
            out.append(shown, style="bold underline")
        elif record.kind == "unsupported":
            out.append(f"{UNSUPPORTED_SIGN} {shown}", style="red")
        else:
            out.append(_with_marker_style(shown, record.markers, dim=record.kind == "general"))
        for other in record.disputed_by:
            out.append(f" ({DISPUTED_SIGN} sources disagree: {other['title'] or other['doc_id']} says \"{other['sentence']}\")",
                       style="yellow")
        cursor = at + len(shown)
    out.append(plain[cursor:])
    return out


def _with_marker_style(sentence: str, markers: list[int], dim: bool) -> Text:
    text = Text(sentence, style="dim" if dim else "")
    for marker in markers:
        tag = f"[{marker}]"
        at = sentence.find(tag)
        if at >= 0:
            text.stylize("bold cyan", at, at + len(tag))
    return text


def citation_table(answer: Answer) -> Table:
    """The citation block as a table: marker, title, page and section, link."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    table.add_column(style="green")
    table.add_column(style="blue")
    for c in answer.citations:
        table.add_row(f"[{c.marker}]", c.title or c.doc_id, c.place, c.link)
    return table


def timing_table(answer: Answer) -> Table:
    """Seconds per stage, LLM calls and their prompt (reused from llama.cpp's prompt cache) and written tokens."""
    table = Table(title="time per stage", box=None)
    table.add_column("stage")
    table.add_column("seconds", justify="right")
    table.add_column("LLM calls", justify="right")
    table.add_column("prompt tokens", justify="right")
    table.add_column("of them cached", justify="right")
    table.add_column("written", justify="right")
    per_stage = _by_trace_stage(answer.llm.get("stages", {}))
    for stage in answer.trace:
        totals = per_stage.get(stage.name, {})
        calls = int(totals.get("calls", 0))
        prompt, cached = int(totals.get("prompt_tokens", 0)), int(totals.get("cached_tokens", 0))
        share = f"{cached:,} ({cached / prompt:.0%})" if prompt else ""
        table.add_row(stage.name, f"{stage.seconds:.2f}", str(calls) if calls else "",
                      f"{prompt:,}" if calls else "", share if calls else "",
                      f"{int(totals.get('completion_tokens', 0)):,}" if calls else "")
    return table


#: Where the calls of a usage stage show up in the trace's stages (the rest keep their own name).
_TRACE_STAGE = {"analyze": "retrieve", "translate": "retrieve", "rerank": "retrieve", "language-repair": "draft",
                "judge": "verify"}


def _by_trace_stage(usage: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """LLM usage summed per trace stage: the keyword analysis is part of retrieval, the judge of verification."""
    out: dict[str, dict[str, float]] = {}
    for name, totals in usage.items():
        into = out.setdefault("navigate" if name.startswith("navigate") else _TRACE_STAGE.get(name, name), {})
        for key, value in totals.items():
            into[key] = into.get(key, 0) + value
    return out


def phrase_line(answer: Answer) -> Text | None:
    """``Answer: 2004 [1]`` above an answer-form answer: its phrase, cited (or flagged) as the first sentence it comes from.

    ``None`` without a phrase, or when the text already opens with its ``Answer:`` line (short-answer mode).
    """
    if not answer.short_answer or short_answer_of(answer.answer) is not None:
        return None
    first = next((s for s in answer.sentences if s.kind != "heading"), None)
    label = "답" if answer.language == "ko" else "Answer"
    if first is not None and first.kind == "unsupported":
        return Text(f"{UNSUPPORTED_SIGN} {label}: {answer.short_answer}", style="bold red")
    line = Text(f"{label}: ", style="bold")
    line.append(answer.short_answer, style="bold")
    if first is not None and first.markers:
        line.append(" ")
        line.append("".join(f"[{m}]" for m in first.markers), style="bold cyan")
    return line


def render_answer(answer: Answer, console: Console, show_timing: bool = False) -> None:
    """Print ``answer`` for a person: its phrase, body, a note on unsupported claims, the citation block."""
    phrase = phrase_line(answer)
    parts: list[RenderableType] = [*([phrase, Text("")] if phrase else []), answer_text(answer)]
    unsupported = len(answer.unsupported)
    if unsupported:
        parts.append(
            Text(
                f"\n{UNSUPPORTED_SIGN} {unsupported} sentence(s) state facts no source was found to support; treat them with care.",
                style="red",
            )
        )
    if answer.withheld:
        parts.append(Text(f"\n{len(answer.withheld)} sentence(s) of the draft that no source supports were left out "
                          "(--json lists them as 'withheld'; -s generate.unsupported=flag shows them marked, "
                          "-s generate.unsupported_answer=flag the answer the model wrote).", style="dim"))
    parts.append(Rule("sources" if answer.citations else "no sources cited", style="dim"))
    if answer.citations:
        parts.append(citation_table(answer))
    if show_timing:
        parts.append(timing_table(answer))
    console.print(Group(*parts))
