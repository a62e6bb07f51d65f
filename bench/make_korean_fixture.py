"""Machine-translate the first HotpotQA distractor questions into Korean, in the fixture's format.

Each question is translated once by the configured LLM (prompts/translate_question.md) and
checked (Hangul present, no English clause left; see navicite.eval.translation). Replies
are cached under ``--home``, so a re-run is free and reproduces the file.

tests/fixtures/hotpotqa_ko_20.jsonl was first made this way; the 1.5B model changed the
meaning of several questions ("first housewife" for "first governor"), so the committed
fixture is now translated by hand (3 Dec 2026), names of people and works kept in Latin
script where a Korean writer would, well-known ones (Shakespeare, Koeman) in Hangul. This
script stays for translating further questions with a stronger model.

    .venv/bin/python bench/make_korean_fixture.py --home /tmp/citeg-ko --out /tmp/ko.jsonl --set llm.threads=1

Exits 1, writing nothing, when a question still fails the check after all attempts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from navicite.config import load_settings
from navicite.eval.datasets import load_dataset
from navicite.eval.translation import (
    QuestionTranslator,
    TranslatedQuestion,
    write_translated,
)
from navicite.llm import create

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = "hotpotqa:" + str(
    ROOT.parent / "shared/data/hotpotqa/distractor-dev-100.json"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=20, help="first N questions")
    parser.add_argument("--home", default="/tmp/citeg-ko")
    parser.add_argument("--out", type=Path, required=True, help="JSONL to write (the committed fixture is hand-translated)")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    args = parser.parse_args()

    llm = create(load_settings(Path(args.home), args.overrides))
    translator = QuestionTranslator(llm)
    rows, failed = [], 0
    for question in load_dataset(args.data).questions[: args.limit]:
        result = translator.run(question.text)
        status = (
            f"FAILED: {result.problem}"
            if result.problem
            else f"kept, but {result.warning}"
            if result.warning
            else "ok"
        )
        print(
            f"{question.id} [{result.attempts} attempt(s), {status}]\n  en: {question.text}\n  ko: {result.text}",
            flush=True,
        )
        failed += result.problem is not None
        rows.append(
            TranslatedQuestion(
                question.id, question.text, result.text, question.answers[0]
            )
        )
    if failed:
        print(
            f"{failed} question(s) failed the check; fixture not written",
            file=sys.stderr,
        )
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_translated(args.out, rows)
    print(
        f"wrote {len(rows)} questions to {args.out}; LLM calls: {len(llm.usage.calls)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
