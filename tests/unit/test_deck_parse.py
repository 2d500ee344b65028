import pytest

from meta_mage.decks.parse import parse_deck_text
from meta_mage.errors import InvalidArgument


def test_mtgo_txt_blank_line_starts_sideboard() -> None:
    deck = parse_deck_text("4 Lightning Bolt\n20 Mountain\n\n2 Pyroblast\n")
    assert deck.mainboard == {"Lightning Bolt": 4, "Mountain": 20}
    assert deck.sideboard == {"Pyroblast": 2}


def test_arena_export_with_headers_and_set_codes() -> None:
    text = "Deck\n4 Lightning Bolt (M10) 146\n4 Monastery Swiftspear (KTK) 118\n\nSideboard\n3 Abrade (TDM) 1\n"
    deck = parse_deck_text(text)
    assert deck.mainboard == {"Lightning Bolt": 4, "Monastery Swiftspear": 4}
    assert deck.sideboard == {"Abrade": 3}


@pytest.mark.parametrize("marker", ["Sideboard", "// Sideboard", "Sideboard:"])
def test_sideboard_markers(marker: str) -> None:
    deck = parse_deck_text(f"4 Ragavan, Nimble Pilferer\n{marker}\n1 Wear // Tear")
    assert deck.sideboard == {"Wear // Tear": 1}


def test_sb_prefix_and_repeated_lines_sum() -> None:
    deck = parse_deck_text("2 Island\n2 Island\nSB: 2 Flusterstorm\nnot a card line")
    assert deck.mainboard == {"Island": 4}
    assert deck.sideboard == {"Flusterstorm": 2}
    assert deck.skipped_lines == ["not a card line"]


@pytest.mark.parametrize("text", ["", "   \n  ", "just some words"])
def test_empty_or_cardless_deck_is_rejected(text: str) -> None:
    with pytest.raises(InvalidArgument) as error:
        parse_deck_text(text)
    assert error.value.field == "deck"


def test_huge_deck_is_rejected() -> None:
    with pytest.raises(InvalidArgument, match="500 lines"):
        parse_deck_text("\n".join("1 Island" for _ in range(500)))


def test_control_characters_and_tabs_are_spaces() -> None:
    # Given a list pasted with a tab, a NUL and a stray escape inside card lines
    deck = parse_deck_text("4\tLightning\x00Bolt\n2 Light\x1bning Bolt\n20  Mountain\x7f")
    # Then the names are clean, so the lines land on the same card
    assert deck.mainboard == {"Lightning Bolt": 4, "Light ning Bolt": 2, "Mountain": 20}


def test_repeated_lines_past_the_copy_limit_are_rejected() -> None:
    with pytest.raises(InvalidArgument, match="deck: Island has 120 copies in total; at most 100"):
        parse_deck_text("60 Island\n60 Island")
