from __future__ import annotations

import re
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import api_token_create, partner_create

# Deliberately loose: partner domains may be internal ones (a@b.c is a valid account name).
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


class Command(BaseCommand):
    help = "Create a partner (and its organisation) if missing; print a new API token last."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument("--org", required=True, help="organisation name")
        parser.add_argument("--password", help="also allow sign-in through the sign-in form")
        parser.add_argument("--staff", action="store_true", help="Atelier staff (ops) account")

    def handle(self, *args: Any, **opts: Any) -> None:
        if not EMAIL.fullmatch(opts["email"]):
            raise CommandError(f"Not an e-mail address: {opts['email']}")
        user, created = partner_create(
            email=opts["email"], org_name=opts["org"], password=opts["password"],
            staff=opts["staff"],
        )
        _, raw = api_token_create(user=user, name="createpartner")
        what = "Created" if created else "Found"
        self.stdout.write(f"{what} {'staff' if user.is_staff else 'partner'} {user.email} "
                          f"in organisation {user.organization}.")
        self.stdout.write("New API token (shown once; send it as 'Authorization: Bearer <token>'):")
        self.stdout.write(raw)
