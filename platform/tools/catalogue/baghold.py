"""Baghold (spec part 2 §3): a bag held or carried at true scale by a library model."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from config.serializers import StrictSerializer
from tools.expanders import library_fits, worn_by
from tools.serializers import CardImageUrlField, CardList, OptionalCentimetres
from tools.spec import LibraryUse, ToolSpec, card_tool

BAG_CM = "centimetres, > 0; a number, or a number written as text (\"38\")"
BAG_CM_OPTIONAL = ("centimetres (optional); a number, or a number written as text, "
                   "\"\" for none")
BAG_FIELDS = ("Width", "Height", "Depth", "Handle", "Strap", "Gender")


class BagCard(StrictSerializer):
    """Dimensions in centimetres (the spec does not say; the API docs state it)."""

    class Meta:
        list_serializer_class = CardList

    Bag_Url = CardImageUrlField(error_messages={"extension": "Invalid image URL"})
    Width = serializers.FloatField(min_value=0.1, max_value=300, help_text=BAG_CM)
    Height = serializers.FloatField(min_value=0.1, max_value=300, help_text=BAG_CM)
    Depth = serializers.FloatField(min_value=0.1, max_value=200, help_text=BAG_CM)
    Handle = OptionalCentimetres(help_text=f"handle drop, {BAG_CM_OPTIONAL}")
    Strap = OptionalCentimetres(help_text=f"strap drop, {BAG_CM_OPTIONAL}")
    Gender = serializers.ChoiceField(choices=("Male", "Female"))

    # The spec's Bag Holder page posts its dimension inputs' text as typed ("38", "" when an
    # optional drop is left empty): those fields take a number written as text too.
    numeric_text = ("Width", "Height", "Depth", "Handle", "Strap")

    INCOMPLETE = "Please add at least one bag with its URL, dimensions and gender."


def on_one_model(tool: ToolSpec, org: Any, cards: list[dict[str, Any]],
                 skipped: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Each bag on one library model of the bag's gender."""
    library = library_fits(tool, org, skipped)
    payloads = []
    for card in cards:
        gender = str(card.get("Gender", "")).lower()
        # Without a strap a shoulder carry needs a long handle: a model with a hand in frame
        # first (the page says so on the card when there is none).
        hand_first = sorted((m for m in library.fit if m.gender == gender),
                            key=lambda m: not card.get("Strap")
                            and library.fits[m.pk].get("carry") == "shoulder")
        if not hand_first:
            refused = [m for m in library.unfit if m.gender == gender]
            raise ValidationError({"non_field_errors": [
                f"Your model library has no {gender} model"
                + (f" that {tool.name} can use: {refused[0].name}: "
                   f"{library.fits[refused[0].pk]['reason']}" if refused else ".")]})
        # The engine takes the spec's capitalised fields under their plain names.
        plain = {k.lower(): v for k, v in card.items() if k in BAG_FIELDS}
        payloads.append(worn_by(card, hand_first[0], **plain))
    return payloads


def carry(shows: dict[str, Any], fit: dict[str, Any]) -> dict[str, Any]:
    """No hand in frame leaves only a shoulder carry, which needs a strap drop or a long
    handle (the engine's no_carry)."""
    from workers.vocabularies import MIN_SHOULDER_DROP_CM

    fit["carry"] = "hand" if shows.get("hands") else "shoulder"
    if fit["carry"] == "shoulder":
        half = "Half-length photo" if not shows.get("full_body") else ""
        fit["note"] = ((half or "No hand in frame")
                       + ": bags are carried on the shoulder, so give the Strap drop "
                         f"(or a handle drop of {MIN_SHOULDER_DROP_CM:g} cm or more).")
    return fit


SPECS = [
    card_tool("baghold", "Baghold", "ecommerce", "/bag-holder", order=90,
              endpoint="bag-holder/process", urls_path="bag-holder/urls",
              input_serializer=BagCard, eta_text="about 90 seconds per bag",
              expected_seconds=90, url_inputs={"Bag_Url": "bag_image"},
              expand_cards=on_one_model, library=LibraryUse("Baghold", order=2, fit=carry),
              example=[{"Bag_Url": "https://cdn.example.com/bags/tote.png", "Width": 38,
                        "Height": 30, "Depth": 12, "Handle": 22, "Strap": "",
                        "Gender": "Female"}]),
]
