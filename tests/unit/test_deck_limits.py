"""The bounds on one pasted list: lines, distinct cards, name length, each refused naming the limit."""

import pytest

from meta_mage.decks.parse import MAX_CARDS, MAX_LINES, MAX_NAME_CHARS, parse_deck_text
from meta_mage.errors import InvalidArgument

LONGEST_REAL_NAME = (  # 141 characters, an Un-card
    "Our Market Research Shows That Players Like Really Long Card Names So We Made this Card to Have "
    "the Absolute Longest Card Name Ever Elemental"
)


def distinct(count: int) -> list[str]:
    return [f"Card Number {i}" for i in range(count)]


def test_the_limits_fit_real_lists() -> None:
    # a 100-card singleton deck with a 15-card sideboard, headers and blank lines
    assert MAX_CARDS >= 100 + 15 and MAX_LINES >= 100 + 15 + 10
    assert len(LONGEST_REAL_NAME) == 141 <= MAX_NAME_CHARS


def test_a_singleton_deck_with_a_sideboard_is_accepted() -> None:
    text = "Commander\n" + "\n".join(f"1 {n}" for n in distinct(135)) + "\n\nSideboard\n"
    text += "\n".join(f"1 Side Card {i}" for i in range(15))
    deck = parse_deck_text(text)
    assert len(deck.mainboard) == 135 and len(deck.sideboard) == 15


def test_too_many_lines_are_refused_naming_the_count_and_the_limit() -> None:
    with pytest.raises(InvalidArgument, match=f"deck has {MAX_LINES + 1} lines; at most {MAX_LINES} are accepted"):
        parse_deck_text("\n".join("1 Island" for _ in range(MAX_LINES + 1)))


def test_one_card_too_many_is_refused_at_its_line() -> None:
    names = distinct(MAX_CARDS + 1)
    with pytest.raises(InvalidArgument) as error:
        parse_deck_text("\n".join(f"1 {n}" for n in names))
    assert error.value.field == "deck"
    assert error.value.message == (
        f"line {MAX_CARDS + 1} ('1 {names[-1]}'): the deck names more than {MAX_CARDS} different cards "
        f"(mainboard and sideboard counted apart); at most {MAX_CARDS} are accepted"
    )


def test_exactly_the_card_limit_is_accepted_and_repeated_lines_count_once() -> None:
    names = distinct(MAX_CARDS)
    deck = parse_deck_text("\n".join(f"1 {n}" for n in [*names, *names]))
    assert len(deck.mainboard) == MAX_CARDS and all(count == 2 for count in deck.mainboard.values())


def test_a_card_in_both_sections_counts_twice() -> None:
    half = distinct(MAX_CARDS // 2)
    text = "\n".join(f"1 {n}" for n in half) + "\n\n" + "\n".join(f"1 {n}" for n in half)
    assert len(parse_deck_text(text).sideboard) == MAX_CARDS // 2
    with pytest.raises(InvalidArgument, match=f"more than {MAX_CARDS} different cards"):
        parse_deck_text(text + "\nSB: 1 One More")


def test_the_longest_real_name_is_accepted() -> None:
    assert parse_deck_text(f"1 {LONGEST_REAL_NAME}").mainboard == {LONGEST_REAL_NAME: 1}


def test_a_name_past_the_limit_is_refused_naming_line_length_and_limit() -> None:
    long_name = "A" * (MAX_NAME_CHARS + 1)
    with pytest.raises(InvalidArgument) as error:
        parse_deck_text(f"4 Lightning Bolt\n1 {long_name}")
    assert error.value.field == "deck"
    assert error.value.message == (
        f"line 2: a card name of {MAX_NAME_CHARS + 1} characters ('{'A' * 40}'...); "
        f"at most {MAX_NAME_CHARS} are accepted"
    )


def test_an_arena_set_code_does_not_count_towards_the_name() -> None:
    name = "B" * MAX_NAME_CHARS
    assert parse_deck_text(f"1 {name} (M10) 146").mainboard == {name: 1}
