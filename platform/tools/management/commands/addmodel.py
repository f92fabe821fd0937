from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Organization
from tools.library import (
    LIBRARY_TOOLS,
    SAMPLES,
    LibraryError,
    library_model_add,
    library_model_fits,
    library_samples_add,
)


def _tools(value: str) -> list[str]:
    tools = [t.strip().lower() for t in value.split(",") if t.strip()]
    unknown = [t for t in tools if t not in LIBRARY_TOOLS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown tool {unknown[0]!r} (one of: {', '.join(LIBRARY_TOOLS)})")
    return tools


class Command(BaseCommand):
    help = ("Add a model to an organisation's library (the people Earfit, Baghold, Flats, "
            "Remodel and Model Swap dress), from a photo or, with --samples, the two "
            "public-domain sample portraits.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("photo", nargs="?", help="the model's photo (JPEG, PNG or WebP)")
        parser.add_argument("--org", required=True, help="organisation name")
        parser.add_argument("--name", help="the model's name, as the pages show it")
        parser.add_argument("--gender", choices=["female", "male"])
        parser.add_argument("--height", type=int, help="height in cm (scales bags and earrings)")
        parser.add_argument("--code", help="the id the pages send (default: from the name)")
        parser.add_argument("--for", dest="tools", type=_tools, default=[],
                            help="comma-separated tools the model is for ("
                                 + ", ".join(LIBRARY_TOOLS) + "): the photo is refused unless "
                                 "it shows what they need (a visible ear for earfit, the "
                                 "shoulders for baghold and flats, a face for remodel)")
        parser.add_argument("--samples", action="store_true",
                            help="add the sample portraits instead of a photo: "
                                 + "; ".join(s.credit for s in SAMPLES))

    def handle(self, *args: Any, **opts: Any) -> None:
        org = Organization.objects.filter(name=opts["org"]).first()
        if org is None:
            raise CommandError(f"No organisation named {opts['org']!r}: createpartner makes it.")
        if opts["samples"]:
            if opts["photo"]:
                raise CommandError("Give a photo or --samples, not both.")
            for model, created in library_samples_add(organization=org):
                self._said(model, created)
            return
        missing = [f"--{k}" for k in ("name", "gender", "height") if opts[k] is None]
        if not opts["photo"] or missing:
            raise CommandError("Give a photo with --name, --gender and --height "
                               f"(missing: {', '.join(missing or ['the photo'])}), or --samples.")
        path = Path(opts["photo"])
        if not path.is_file():
            raise CommandError(f"No file at {path}.")
        try:
            model, created = library_model_add(
                organization=org, name=opts["name"], gender=opts["gender"],
                height_cm=opts["height"], photo=path.read_bytes(), filename=path.name,
                code=opts["code"], tools=opts["tools"])
        except LibraryError as exc:
            raise CommandError(str(exc)) from exc
        self._said(model, created)

    def _said(self, model: Any, created: bool) -> None:
        self.stdout.write(f"{'Added' if created else 'Replaced'} {model.name} ({model.code}, "
                          f"{model.gender}, {model.height_cm} cm) in {model.organization}.")
        # What the pages will say before a run: which tools skip this model or dress it
        # differently.
        for tool, fit in library_model_fits(model.shows or {}).items():
            said = (fit.get("note") or "yes") if fit["ok"] else f"skipped: {fit['reason']}"
            self.stdout.write(f"  {LIBRARY_TOOLS[tool]}: {said}")
