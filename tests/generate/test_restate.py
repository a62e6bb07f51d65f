"""Sentences that only restate the question."""

from __future__ import annotations

from navicite.generate.restate import can_restate, restates

QUESTION = ("The sandwich vignette illustrates clustered covariances with the Aghion et al. (2013) data on innovation "
            "and institutional ownership. How many firms does that panel cover, and over which years?")


def test_a_restated_question_adds_no_word() -> None:
    assert restates("The sandwich vignette illustrates clustered covariances with the Aghion et al. (2013) data "
                    "on innovation and institutional ownership.", QUESTION)
    assert restates("That panel covers firms over years.", QUESTION)


def test_an_answer_adds_a_word_or_a_number() -> None:
    assert not restates("The panel covers 803 firms.", QUESTION)
    assert not restates("It covers the years 1991 to 1999.", QUESTION)
    assert not restates("The sources do not give the number of firms.", "How many firms does the panel cover?")


def test_yes_no_and_either_or_questions_are_answered_in_their_own_words() -> None:
    assert not can_restate("Is Seoul the capital of South Korea?")
    assert not can_restate("The study ran in 2010. Was it repeated?")
    assert not can_restate("Which came first, the Bash manual or the SQLite page?")
    assert can_restate("Which kernel functions can be used for the weights of vcovPL()?")
    assert not restates("Seoul is the capital.", "Is Seoul the capital?")


def test_an_answer_naming_a_word_of_the_question_again_is_no_restatement() -> None:
    # The answer is a word the question already holds ("honey" of "honey bees"): it stands twice.
    assert not restates("Honey bees make honey from nectar.", "What do honey bees make from nectar?")
    assert restates("Honey bees make it from nectar.", "What do honey bees make from nectar?")


def test_a_sentence_addresses_a_question_when_it_holds_most_of_its_words_and_adds_one() -> None:
    from navicite.generate.restate import addresses

    question = "When was the Eiffel Tower completed?"
    assert addresses("The Eiffel Tower was completed in 1889.", question)
    assert not addresses("The Eiffel Tower was completed.", question)  # nothing added: a restatement
    assert not addresses("It is 330 metres tall.", question)
    assert not addresses("The seat of the government of France is Paris.", "What is the capital of France?")
