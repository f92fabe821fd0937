"""The try-on adapter's old import path: provider "tryon" is FASHN's protocol, run by
workers.providers.fashn (which sends FASHN's current ``{model_name, inputs}`` request; the old
flat body made FASHN answer with its older v1.5 model)."""

from __future__ import annotations

from workers.providers.fashn import TRYON_TOOLS, fashn_run, tryon_category

tryon_run = fashn_run

__all__ = ["TRYON_TOOLS", "tryon_category", "tryon_run"]
