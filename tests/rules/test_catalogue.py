"""The card catalogue: the sample deck, errors that name file, card and field, editing and saving."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.catalogue import (
    add_card,
    load_catalogue,
    load_sample,
    remove_card,
    sample_path,
    save_catalogue,
    update_card,
)
from companion.dice_requirements import parse_requirement
from companion.errors import CatalogueError

GOOD = """
game = "rescue-animals"
title = "Test deck"

[[card]]
id = "red-wolf"
name = "Red Wolf"
latin = "Canis rufus"
area = "North America"
copies = 2
protection = 6
bonus = 1
requirement = "REDWOLF"

[[card]]
id = "kakapo"
name = "Kakapo"
latin = "Strigops habroptilus"
area = "Oceania"
copies = 3
protection = 3
bonus = 1
requirement = "b4 w2 w5"
"""


def write(tmp_path: Path, text: str, name: str = "rescue-animals.toml") -> Path:
    """A catalogue file with this text."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_sample_deck_says_it_is_a_sample() -> None:
    """54 cards counting copies, the five specials by requirement, and plainly a sample."""
    catalogue = load_sample()
    assert catalogue.total == 54 and catalogue.sample is True
    assert "SAMPLE DECK, NOT THE REAL" in sample_path().read_text(encoding="utf-8").splitlines()[1]
    specials = {c.requirement: c.name for c in catalogue.cards if parse_requirement(c.requirement).special}
    assert specials == {
        "PANDA": "Giant Panda",
        "FINWHALE": "Fin Whale",
        "BAWEAN": "Bawean Deer",
        "TAMARIN": "Golden Lion Tamarin",
        "REDWOLF": "Red Wolf",
    }


def test_loads_a_good_file(tmp_path: Path) -> None:
    """Fields come through; the requirement is stored in canonical form."""
    catalogue = load_catalogue(write(tmp_path, GOOD))
    assert [c.id for c in catalogue.cards] == ["red-wolf", "kakapo"]
    assert catalogue.card("kakapo").requirement == "B4 W2 W5"
    assert catalogue.total == 5 and catalogue.sample is False and catalogue.title == "Test deck"


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("protection = 6", 'protection = "x"', "rescue-animals.toml: card 'red-wolf': field 'protection' must be a whole number 0-9, not 'x'"),
        ("protection = 6", "protection = 10", "card 'red-wolf': field 'protection' must be a whole number 0-9, not 10"),
        ("bonus = 1\nrequirement = \"REDWOLF\"", "bonus = -1\nrequirement = \"REDWOLF\"", "card 'red-wolf': field 'bonus' must be a whole number 0-9, not -1"),
        ("copies = 2", "copies = 0", "card 'red-wolf': field 'copies' must be a whole number 1-9, not 0"),
        ("copies = 2", "copies = true", "card 'red-wolf': field 'copies' must be a whole number 1-9, not True"),
        ('requirement = "REDWOLF"', 'requirement = "B7 W1"', "card 'red-wolf': field 'requirement' is wrong: 'B7' is not a die symbol"),
        ('requirement = "REDWOLF"', 'requirement = ["B2"]', "card 'red-wolf': field 'requirement' is wrong: a dice requirement is text"),
        ('name = "Red Wolf"', 'name = ""', "card 'red-wolf': field 'name' must be text"),
        ('latin = "Canis rufus"', "latin = 3", "card 'red-wolf': field 'latin' must be text"),
        ('area = "North America"\ncopies = 2', "copies = 2", "card 'red-wolf': field 'area' is missing"),
        ('id = "red-wolf"', 'id = "Red Wolf!"', "card 'Red Wolf!': field 'id' must be lowercase letters, digits and dashes"),
        ('id = "red-wolf"', 'id = "red-wolf"\ncolour = "red"', "card 'red-wolf': unknown field 'colour'"),
        ('id = "kakapo"', 'id = "red-wolf"', "card 'red-wolf': field 'id' is used twice"),
        ('title = "Test deck"', 'title = "Test deck"\nowner = "me"', "rescue-animals.toml: unknown top-level field 'owner'"),
        ('game = "rescue-animals"', 'game = "animalia"', "field 'game' must be 'rescue-animals', not 'animalia'"),
    ],
)
def test_wrong_entries_name_file_card_and_field(tmp_path: Path, old: str, new: str, message: str) -> None:
    """Every wrong entry raises CatalogueError with the file, the card and the field."""
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(CatalogueError) as caught:
        load_catalogue(path)
    assert message in str(caught.value)
    assert str(caught.value).startswith("rescue-animals.toml")


def test_a_card_without_id_is_named_by_position(tmp_path: Path) -> None:
    """No id: the message says which card by its place in the file."""
    with pytest.raises(CatalogueError, match=r"rescue-animals.toml: card #2: field 'id' is missing"):
        load_catalogue(write(tmp_path, GOOD.replace('id = "kakapo"\n', "")))


def test_broken_toml_and_missing_file(tmp_path: Path) -> None:
    """Syntax errors and missing files say what to do."""
    with pytest.raises(CatalogueError, match="rescue-animals.toml: not valid TOML"):
        load_catalogue(write(tmp_path, "[[card]\nid = 3"))
    with pytest.raises(CatalogueError, match="no such catalogue file"):
        load_catalogue(tmp_path / "nothing.toml")
    with pytest.raises(CatalogueError, match="there are no cards"):
        load_catalogue(write(tmp_path, 'game = "rescue-animals"\n'))


def test_edit_save_and_load_back(tmp_path: Path) -> None:
    """Add, update and remove cards as the phone does; the saved file loads back the same."""
    catalogue = load_catalogue(write(tmp_path, GOOD))
    catalogue = add_card(catalogue, {
        "id": "vaquita", "name": "Vaquita", "latin": "Phocoena sinus", "area": "Gulf of California",
        "copies": 1, "protection": 7, "bonus": 0, "requirement": "B6 W1 W1 W3",
    })
    catalogue = update_card(catalogue, "kakapo", {"protection": 4})
    catalogue = remove_card(catalogue, "red-wolf")
    out = tmp_path / "saved.toml"
    save_catalogue(catalogue, out)
    again = load_catalogue(out)
    assert again.cards == catalogue.cards
    assert again.card("kakapo").protection == 4


def test_edits_are_validated(tmp_path: Path) -> None:
    """Edits from the phone get the same errors, and the catalogue they were made on is unchanged."""
    catalogue = load_catalogue(write(tmp_path, GOOD))
    with pytest.raises(CatalogueError, match="card 'kakapo': field 'bonus' must be a whole number 0-9, not 'lots'"):
        update_card(catalogue, "kakapo", {"bonus": "lots"})
    with pytest.raises(CatalogueError, match="card 'kakapo': field 'id' is already used"):
        add_card(catalogue, {**catalogue.card("kakapo").to_dict()})
    with pytest.raises(CatalogueError, match="there is no card 'dodo'"):
        remove_card(catalogue, "dodo")
    with pytest.raises(CatalogueError, match="'red-wolf' is already used by another card"):
        update_card(catalogue, "kakapo", {"id": "red-wolf"})
    assert catalogue.card("kakapo").bonus == 1


def test_sample_saves_with_its_sample_header(tmp_path: Path) -> None:
    """Saving the sample keeps the sample flag and the header that says so."""
    out = tmp_path / "copy.toml"
    save_catalogue(load_sample(), out)
    text = out.read_text(encoding="utf-8")
    assert "SAMPLE DECK, NOT THE REAL RESCUE ANIMALS DECK" in text and "sample = true" in text
    assert load_catalogue(out).cards == load_sample().cards
