"""The answer phrase: what a reply may keep, and a bad reply handled."""

from __future__ import annotations

import pytest

from navicite.generate.phrase import PhraseFinder, valid_phrase

SENTENCE = "Jaclyn Stapp is married to the former frontman of the band Creed, which disbanded in 2004."


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        ("2004", "2004"),
        ('"Creed".', "Creed"),
        ("the band  Creed", "the band Creed"),
        ("yes", None),  # the sentence says no yes, and no yes/no question was asked
        ("1999", None),  # not in the sentence: the phrase may not say more than it
        ("Scott Stapp", None),  # a name the sentence does not give
        ("", None),
        (SENTENCE, None),  # the whole sentence is no phrase
        ("Jaclyn Stapp is married to the former frontman of the band Creed", None),  # past ten words
    ],
)
def test_a_phrase_is_kept_only_as_a_short_part_of_the_sentence(reply: str, kept: str | None) -> None:
    assert valid_phrase(reply, SENTENCE) == kept


def test_a_phrase_must_answer_the_question_asked() -> None:
    # The model's replies on real HotpotQA questions (first run of the prompt without examples).
    viva = "VIVA Media AG changed it's name in 2004. What does their new acronym stand for?"
    assert valid_phrase("name", "VIVA Media AG changed its name in 2004.", viva) is None
    made = "Which other show did the creator of Wallace and Gromit make?"
    assert valid_phrase("Yes", "The creator of Wallace and Gromit also created Creature Comforts.", made) is None
    assert valid_phrase("yes", "The Alps and the Andes are both mountain ranges.", "Are the Alps and the Andes both ranges?") == "Yes"
    assert valid_phrase("No", "No, they are not both American.", "Which of the two is American?") == "No"
    # A name the question offers is the answer to a comparison.
    bands = "Jonny Craig and Pete Doherty, who has been a member of more bands?"
    assert valid_phrase("Jonny Craig", "Jonny Craig has been a member of more bands than Pete Doherty.", bands) == "Jonny Craig"


def test_a_korean_name_is_found_inside_the_word_it_ends() -> None:
    assert valid_phrase("임수경", "방북한 대학생은 임수경입니다.") == "임수경"


def test_bad_json_and_a_refusal_give_no_phrase(scripted_llm) -> None:
    finder = PhraseFinder(scripted_llm("not json at all", "still not json", "nope"))
    phrase, problem = finder.run("When did Creed disband?", SENTENCE)
    assert phrase is None and "unusable" in problem
    phrase, problem = PhraseFinder(scripted_llm({"answer": ""})).run("When did Creed disband?", SENTENCE)
    assert phrase is None and problem == "the model found no phrase"
