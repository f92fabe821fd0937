"""Which Flats files make one look (one outfit, one job). Pure: names in, looks out.

The four input folders hold products by category (SHOES, BOTTOM, TOP, OVERLAYER). Each file is
one view of one product (SKU): ``<SKU>_FRONT``, ``<SKU>_BACK`` or ``<SKU>_SIDE`` (or ``-``).
A look takes at most one product of each category, so a top and a pair of shoes are worn
together, never delivered as two outfits:

- A look code names the look explicitly, in either of two ways: ``<LOOK>__<SKU>_<VIEW>`` (two
  underscores), or the same ``<SKU>`` in two or more folders (``LOOK01_FRONT`` in TOP, BOTTOM
  and SHOES). Every file of that code, in every folder, is in the look: a look is made again
  when any of its files is new or replaced.
- Products without a look code that arrive in the same sync are one look: the new top, the new
  bottom, the new shoes and the new overlayer are worn together.
- Where a category brings several products to one look (two tops and one pair of shoes), one
  look is made per combination (each top with the shoes), up to ``MAX_LOOKS`` per sync group;
  past that the files are skipped, asking for look codes, rather than queueing dozens of jobs.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

CATEGORIES = ("shoes", "bottom", "top", "overlayer")  # the spec's folder order
VIEW_SUFFIX = re.compile(r"^(?P<sku>.+?)[_-](?P<view>FRONT|BACK|SIDE)$", re.IGNORECASE)
LOOK_SEPARATOR = "__"
MAX_LOOKS = 12
NO_VIEW = "Flats files end in _FRONT, _BACK or _SIDE."


@dataclass(frozen=True)
class FlatFile:
    """One file of a Flats input folder: its category, its name without extension and whether
    this sync sees it for the first time (or as a new revision). ``key`` is the caller's."""

    category: str
    stem: str
    new: bool
    key: Hashable


@dataclass
class Look:
    name: str
    # category -> view ("FRONT", "BACK", "SIDE") -> the file
    items: dict[str, dict[str, FlatFile]] = field(default_factory=dict)

    @property
    def files(self) -> list[FlatFile]:
        return [f for views in self.items.values() for f in views.values()]


def parse(stem: str) -> tuple[str | None, str, str] | None:
    """(look code or None, SKU, VIEW) of a file name without extension; None without a view."""
    match = VIEW_SUFFIX.match(stem)
    if not match:
        return None
    sku, view = match.group("sku"), match.group("view").upper()
    look, sep, rest = sku.partition(LOOK_SEPARATOR)
    if sep and look and rest:
        return look, rest, view
    return None, sku, view


def group_looks(files: Iterable[FlatFile]) -> tuple[list[Look], list[tuple[FlatFile, str]]]:
    """The looks to make from the folders' files (only looks with a new file) and the new
    files skipped, each with its reason."""
    files = list(files)
    skipped: list[tuple[FlatFile, str]] = []
    parsed: list[tuple[FlatFile, str | None, str, str]] = []
    for f in files:
        p = parse(f.stem)
        if p is None:
            if f.new:
                skipped.append((f, NO_VIEW))
            continue
        parsed.append((f, *p))

    # A SKU stem found in two or more folders is a look code of its own.
    folders_of: dict[str, set[str]] = defaultdict(set)
    for f, look, sku, _ in parsed:
        if look is None:
            folders_of[sku].add(f.category)
    shared = {sku for sku, cats in folders_of.items() if len(cats) > 1}

    # group -> category -> sku -> view -> file; the loose group is keyed None.
    groups: dict[str | None, dict[str, dict[str, dict[str, FlatFile]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(dict)))
    for f, look, sku, view in sorted(parsed, key=lambda t: (t[0].category, t[0].stem)):
        code = look if look is not None else (sku if sku in shared else None)
        groups[code][f.category][sku][view] = f

    looks: list[Look] = []
    for code in sorted(groups, key=lambda c: (c is None, c or "")):
        by_cat = groups[code]
        if code is None:
            # Loose products: only those with a new file take part in this sync's look.
            by_cat = {cat: {sku: views for sku, views in skus.items()
                            if any(v.new for v in views.values())}
                      for cat, skus in by_cat.items()}
        elif not any(v.new for skus in by_cat.values() for views in skus.values()
                     for v in views.values()):
            continue  # nothing of this look is new
        cats = [c for c in CATEGORIES if by_cat.get(c)]
        if not cats:
            continue
        choices = [sorted(by_cat[c]) for c in cats]
        count = 1
        for c in choices:
            count *= len(c)
        if count > MAX_LOOKS:
            reason = (f"{count} combinations of products would be {count} looks (at most "
                      f"{MAX_LOOKS}): name the files <LOOK>__<SKU>_<VIEW> to say which are "
                      "worn together.")
            skipped += [(v, reason) for c in cats for views in by_cat[c].values()
                        for v in views.values() if v.new]
            continue
        for combo in itertools.product(*choices):
            if code is not None and count == 1:
                name = code
            else:
                name = "+".join(combo)
                if code is not None:
                    name = f"{code}{LOOK_SEPARATOR}{name}"
            looks.append(Look(name=name, items={c: dict(by_cat[c][sku])
                                                for c, sku in zip(cats, combo, strict=True)}))
    return looks, skipped
