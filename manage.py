#!/usr/bin/env python
"""Django's command-line utility. `platform/` is a source folder on sys.path, not a package."""

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    repo = Path(__file__).resolve().parent
    sys.path[:0] = [str(repo / "platform"), str(repo)]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
