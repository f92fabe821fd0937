"""Earfit (spec part 1 §7): an earring worn at true scale by every model of the library."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.expanders import library_fits, worn_by
from tools.serializers import CardImageUrlField, CardList
from tools.spec import LibraryUse, ToolSpec, card_tool

MIN_RING_IN, MAX_RING_IN = 0.5, 10.0


class EarringCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    ring_image = CardImageUrlField()
    ring_height_in = serializers.FloatField(
        min_value=MIN_RING_IN, max_value=MAX_RING_IN,
        error_messages={"min_value": "Must be between 0.5 and 10 inches",
                        "max_value": "Must be between 0.5 and 10 inches"})

    INCOMPLETE = ("Please fill in at least one complete card with ring image URL and height "
                  "between 0.5 and 10 inches")


def on_every_model(tool: ToolSpec, org: Any, cards: list[dict[str, Any]],
                   skipped: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Every card on every library model Earfit can dress (one job each)."""
    fit = library_fits(tool, org, skipped).fit
    return [worn_by(card, model) for card in cards for model in fit]


SPECS = [
    card_tool("earfit", "Earfit", "ecommerce", "/earring-catalog", order=80,
              endpoint="earring-catalog/process", urls_path="earring-catalog/urls",
              urls_limit=20,  # the spec's Get URLs lists at most 20
              input_serializer=EarringCard, eta_text="about 17 seconds per earring",
              expected_seconds=17, url_inputs={"ring_image": "ring_image"},
              expand_cards=on_every_model,
              # the engine refuses a model without a visible lobe (no_ear)
              library=LibraryUse("Earfit", order=1, needs=("ear",)),
              example=[{"ring_image": "https://cdn.example.com/jewels/drop.png",
                        "ring_height_in": 1.5}]),
]
