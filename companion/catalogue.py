"""Rescue Animals card catalogues: TOML files the owner edits by hand or from the phone.

A catalogue file looks like::

    game = "rescue-animals"
    title = "My deck"
    sample = false          # true for the sample deck: the companion shows it is not the real deck

    [[card]]
    id = "red-wolf"         # lowercase letters, digits and dashes; copies share the id
    name = "Red Wolf"
    latin = "Canis rufus"
    area = "North America"
    copies = 1              # 1-9, the dots in the card's bottom-left corner
    protection = 6          # 0-9, the white number at the top right
    bonus = 0               # 0-9, the black number below it (per pair of identical animals)
    requirement = "REDWOLF" # dice requirement text, see companion.dice_requirements

Every wrong entry raises CatalogueError naming the file, the card and the field. The real deck's
cards are not public (see shared/rules/FACTS.md); the five special requirements are known by
their requirement (PANDA, FINWHALE, BAWEAN, TAMARIN, REDWOLF), not by their points.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import tomli_w

from companion.dice_requirements import parse_requirement
from companion.errors import CatalogueError, RequirementError
from companion.games.rescue_animals import Card

__all__ = [
    "Catalogue", "load_catalogue", "save_catalogue", "parse_catalogue", "validate_card",
    "add_card", "update_card", "remove_card", "sample_path", "load_sample", "CARD_FIELDS",
]

CARD_FIELDS = ("id", "name", "latin", "area", "copies", "protection", "bonus", "requirement")
TOP_FIELDS = ("game", "title", "sample", "card")
GAME = "rescue-animals"
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_NUMBERS = {"copies": (1, 9), "protection": (0, 9), "bonus": (0, 9)}
_TEXTS = ("name", "latin", "area")
_MAX_TEXT = 80


@dataclass(frozen=True)
class Catalogue:
    """A validated catalogue: its cards, whether it is a sample, and the file it came from."""

    cards: tuple[Card, ...]
    title: str = ""
    sample: bool = False
    source: str = "catalogue"  # the file name, for messages

    @property
    def total(self) -> int:
        """Cards in the deck, counting copies (54 for the real game)."""
        return sum(c.copies for c in self.cards)

    def card(self, card_id: str) -> Card:
        """The card with this id (CatalogueError naming it if there is none)."""
        for card in self.cards:
            if card.id == card_id:
                return card
        raise CatalogueError(f"{self.source}: there is no card {card_id!r}")

    def to_dict(self) -> dict:
        """JSON-able form (also the TOML layout)."""
        return {
            "game": GAME,
            "title": self.title,
            "sample": self.sample,
            "total": self.total,
            "card": [c.to_dict() for c in self.cards],
        }


def _where(source: str, card_id: Any, index: int) -> str:
    """How a message names a card: by id when it has a usable one, else by position."""
    if isinstance(card_id, str) and card_id:
        return f"{source}: card {card_id!r}"
    return f"{source}: card #{index + 1}"


def validate_card(data: Any, source: str = "catalogue", index: int = 0) -> Card:
    """A Card from a TOML/JSON table, or CatalogueError naming the file, the card and the field."""
    if not isinstance(data, dict):
        raise CatalogueError(f"{source}: card #{index + 1} must be a table of fields ({', '.join(CARD_FIELDS)}), not {data!r}")
    where = _where(source, data.get("id"), index)
    unknown = sorted(set(data) - set(CARD_FIELDS))
    if unknown:
        raise CatalogueError(f"{where}: unknown field {unknown[0]!r}; a card has {', '.join(CARD_FIELDS)}")
    missing = [f for f in CARD_FIELDS if f not in data]
    if missing:
        raise CatalogueError(f"{where}: field {missing[0]!r} is missing; a card has {', '.join(CARD_FIELDS)}")
    card_id = data["id"]
    if not isinstance(card_id, str) or not _ID.match(card_id):
        raise CatalogueError(f"{where}: field 'id' must be lowercase letters, digits and dashes (like 'red-wolf'), not {card_id!r}")
    for name in _TEXTS:
        value = data[name]
        if not isinstance(value, str) or not value.strip() or len(value) > _MAX_TEXT:
            raise CatalogueError(f"{where}: field {name!r} must be text of 1-{_MAX_TEXT} characters, not {value!r}")
    for name, (low, high) in _NUMBERS.items():
        value = data[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise CatalogueError(f"{where}: field {name!r} must be a whole number {low}-{high}, not {value!r}")
    requirement = data["requirement"]
    try:
        canonical = parse_requirement(requirement).text
    except RequirementError as error:
        raise CatalogueError(f"{where}: field 'requirement' is wrong: {error}") from None
    return Card(
        card_id, data["name"].strip(), data["latin"].strip(), data["area"].strip(),
        data["copies"], data["protection"], data["bonus"], canonical,
    )


def parse_catalogue(data: Any, source: str = "catalogue") -> Catalogue:
    """A Catalogue from the parsed TOML (or JSON) document, validated."""
    if not isinstance(data, dict):
        raise CatalogueError(f"{source}: a catalogue is a table with [[card]] entries, not {data!r}")
    unknown = sorted(set(data) - set(TOP_FIELDS) - {"total"})
    if unknown:
        raise CatalogueError(f"{source}: unknown top-level field {unknown[0]!r}; known ones are {', '.join(TOP_FIELDS)}")
    game = data.get("game", GAME)
    if game != GAME:
        raise CatalogueError(f"{source}: field 'game' must be {GAME!r}, not {game!r}")
    sample = data.get("sample", False)
    if not isinstance(sample, bool):
        raise CatalogueError(f"{source}: field 'sample' must be true or false, not {sample!r}")
    title = data.get("title", "")
    if not isinstance(title, str):
        raise CatalogueError(f"{source}: field 'title' must be text, not {title!r}")
    entries = data.get("card", [])
    if not isinstance(entries, list) or not entries:
        raise CatalogueError(f"{source}: there are no cards; add [[card]] tables with {', '.join(CARD_FIELDS)}")
    cards = tuple(validate_card(entry, source, i) for i, entry in enumerate(entries))
    _check_unique(cards, source)
    return Catalogue(cards, title, sample, source)


def _check_unique(cards: tuple[Card, ...], source: str) -> None:
    """Each id once (copies are a number, not repeated entries)."""
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise CatalogueError(f"{source}: card {card.id!r}: field 'id' is used twice; give the copies as 'copies' on one entry")
        seen.add(card.id)


def load_catalogue(path: str | os.PathLike[str]) -> Catalogue:
    """Read and validate a catalogue file; CatalogueError names the file, card and field if wrong."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise CatalogueError(f"{path}: no such catalogue file; check the path or start from the sample deck") from None
    except tomllib.TOMLDecodeError as error:
        raise CatalogueError(f"{path.name}: not valid TOML ({error}); fix that line") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogueError(f"{path}: cannot be read ({error})") from None
    return parse_catalogue(data, path.name)


_HEADER = "# Rescue Animals card catalogue for the table companion; edit by hand or from the phone.\n"
_SAMPLE_HEADER = (
    "# THIS IS A SAMPLE DECK, NOT THE REAL RESCUE ANIMALS DECK. The real deck's 54 cards are not\n"
    "# public; these are real endangered species with made-up points and dice requirements, so the\n"
    "# companion can be tried out. Only the five special requirements are the rulebook's.\n"
)


def save_catalogue(catalogue: Catalogue, path: str | os.PathLike[str]) -> None:
    """Write a catalogue as TOML, atomically (a crash leaves the old file or the new one, never half)."""
    path = Path(path)
    parse_catalogue(catalogue.to_dict(), path.name)  # never write what we could not read back
    document = {k: v for k, v in catalogue.to_dict().items() if k != "total"}
    text = _HEADER + (_SAMPLE_HEADER if catalogue.sample else "") + "\n" + tomli_w.dumps(document)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def add_card(catalogue: Catalogue, data: Any) -> Catalogue:
    """The catalogue with one more card (validated; its id must be new)."""
    card = validate_card(data, catalogue.source, len(catalogue.cards))
    if any(c.id == card.id for c in catalogue.cards):
        raise CatalogueError(f"{catalogue.source}: card {card.id!r}: field 'id' is already used; edit that card instead")
    return replace(catalogue, cards=catalogue.cards + (card,))


def update_card(catalogue: Catalogue, card_id: str, changes: Any) -> Catalogue:
    """The catalogue with some fields of one card changed (validated; the id may change if unused)."""
    old = catalogue.card(card_id)
    if not isinstance(changes, dict):
        raise CatalogueError(f"{catalogue.source}: card {card_id!r}: changes must be a table of fields, not {changes!r}")
    data = {**old.to_dict(), **changes}
    index = catalogue.cards.index(old)
    card = validate_card(data, catalogue.source, index)
    if card.id != card_id and any(c.id == card.id for c in catalogue.cards):
        raise CatalogueError(f"{catalogue.source}: card {card_id!r}: field 'id' {card.id!r} is already used by another card")
    cards = catalogue.cards[:index] + (card,) + catalogue.cards[index + 1:]
    return replace(catalogue, cards=cards)


def remove_card(catalogue: Catalogue, card_id: str) -> Catalogue:
    """The catalogue without one card (a catalogue keeps at least one card)."""
    card = catalogue.card(card_id)
    if len(catalogue.cards) == 1:
        raise CatalogueError(f"{catalogue.source}: card {card_id!r} is the last card; a catalogue needs at least one")
    return replace(catalogue, cards=tuple(c for c in catalogue.cards if c is not card))


def sample_path() -> Path:
    """Where the sample deck ships inside the package."""
    return Path(__file__).with_name("catalogues") / "rescue-animals-sample.toml"


def load_sample() -> Catalogue:
    """The sample deck (54 cards counting copies; says it is a sample)."""
    return load_catalogue(sample_path())
