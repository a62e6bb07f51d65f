"""The answer's language with the real embedded model: a Korean question over an English
source ends up with a Korean draft, and the translation repair turns an English draft
into Korean with its layout and numbers kept. Short texts and small reply budgets."""

from __future__ import annotations

import pytest

from navicite.config import load_settings
from navicite.generate.answer import Source
from navicite.generate.draft import Drafter
from navicite.generate.language import LanguageRepair, check_language
from navicite.generate.sources import ContextEntry

pytestmark = pytest.mark.llm

KING = "William King was the first Governor of Maine, serving from 1820 to 1821. He was born in Scarborough and lived in Bath, Maine."
ENTRIES = [ContextEntry(1, Source("king", "William King", KING), KING, False)]


def test_korean_question_over_an_english_source_gets_a_korean_draft(real_llm, tmp_path) -> None:
    settings = load_settings(tmp_path, ["generate.short_answer=true", "generate.draft_max_tokens=90"])
    draft = Drafter(real_llm, settings).run("메인 주의 첫 번째 주지사는 누구였나요?", ENTRIES, "ko")
    assert not draft.refused, draft.text
    check = check_language(draft.text, "ko")
    assert check.judged >= 1 and check.off_share <= settings.generate.language_repair_share, (draft.text, draft.repair)


def test_repair_translates_an_english_draft_into_korean(real_llm, tmp_path) -> None:
    settings = load_settings(tmp_path, ["generate.draft_max_tokens=80"])
    english = "# William King\n\nWilliam King was the first governor of Maine. He served from 1820 to 1821."
    check = check_language(english, "ko")
    assert check.off_share == 1.0
    repair = LanguageRepair(real_llm, settings).run(english, "ko", check)
    assert repair.accepted, (repair.reason, repair.text)
    assert repair.text.startswith("# ") and "1820" in repair.text and "1821" in repair.text
    assert check_language(repair.text, "ko").off_share == 0.0, repair.text
