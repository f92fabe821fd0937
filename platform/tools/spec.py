"""What one tool is: a ToolSpec, declared in the tool's own module under ``tools.catalogue``.

The generic code reads only specs: the tool APIs (``tools.apis``), the catalogue the web app
reads (``GET /api/tools/``), drive folders, sync and delivery (``drives``), and the worker's
engine and provider selection. Adding a tool is one module in ``tools/catalogue/`` (plus its
engine and its page); nothing else lists tools by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from rest_framework import serializers
from rest_framework.serializers import Serializer

from workers.queues import QUEUES


class Shape(StrEnum):
    JOB = "job"  # answers 202 with the job
    DIRECT = "direct"  # waits for the job and answers in the spec's shape
    BATCH = "batch"  # answers 202 with {batch_id, count, jobs}
    SYNC = "sync"  # takes in new files of the input drive folder as a batch


class Access(StrEnum):
    OPEN = "open"
    LOCKED = "locked"  # shown with a lock; enabled per organisation by staff
    PRIVATE = "private"  # commercial solutions; enabled per organisation by staff
    STAFF = "staff"  # ops only


# (job, request) → the body a direct tool answers with, in the spec's shape.
Respond = Callable[[Any, Any], dict[str, Any]]
# (spec, organisation, cards, skipped) → the payloads of the jobs a batch of cards becomes.
CardExpander = Callable[[Any, Any, list[dict[str, Any]], list[dict[str, str]]],
                        list[dict[str, Any]]]
# (organisation, validated input) → the job's payload, completed from the organisation's data.
DirectExpander = Callable[[Any, dict[str, Any]], dict[str, Any]]
# (new files, every file, options, organisation, skipped) → the groups a drive sync queues.
Grouper = Callable[[list[Any], list[Any], dict[str, Any], Any, list[dict[str, str]]],
                   list[Any]]


@dataclass(frozen=True)
class LibraryUse:
    """A tool that dresses the organisation's library models."""

    # How staff see the tool when they add a model ("Remodel and Model Swap").
    label: str
    # Parts the photo must show beyond the engine's own input checks (Earfit: "ear").
    needs: tuple[str, ...] = ()
    # The tool's finer rules: (what the photo shows, the fit so far) → the fit, with the way
    # the model is dressed differently ("carry", "note"...).
    fit: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    # Where the tool is listed when staff add a model.
    order: int = 0


@dataclass(frozen=True)
class ToolSpec:
    slug: str
    name: str
    category: str  # editorial, ecommerce, design, commercial, playground, operations
    route: str | None
    badge: str
    # The place in the catalogue (the spec's order of the landing page and the navbar).
    order: int = 1000
    queue: str = "interactive"
    # None: listed in the catalogue, not runnable yet.
    engine: str | None = None
    # Where the engine is: "module:function" (pure, no Django); loaded when a job needs it.
    # By default the engine's own module: workers.engines.<engine>:run.
    engine_path: str | None = None
    # The engine's inputs go through workers.engines.imaging.inputs.guard_engine_inputs first.
    guarded: bool = False
    input_serializer: type[Serializer] | None = None
    # A request body the input serializer accepts: the API docs' example, checked by tests.
    example: Any = None
    shape: Shape = Shape.JOB
    eta_text: str = ""
    # Seed for the ETA until the tool has run-time history of its own.
    expected_seconds: float = 60.0
    access: Access = Access.OPEN
    # Input fields holding image URLs → the engine parameter that gets the fetched bytes
    # (the worker fetches them safely, or reads them from our drives).
    url_inputs: dict[str, str] = field(default_factory=dict)
    # The spec's call, e.g. "recoloring/recolor" for POST /api/recoloring/recolor.
    endpoint: str | None = None
    # The same call at the spec's workflow-webhook path (/webhook/<path>), wrapper accepted.
    webhook_path: str | None = None
    # Inline base64 image fields → the engine parameter that gets the bytes.
    base64_inputs: dict[str, str] = field(default_factory=dict)
    # A part of another catalogue entry (its access rules; not listed on its own).
    part_of: str | None = None
    # Soft/hard time limits; the queue's when not given.
    soft_limit: int | None = None
    hard_limit: int | None = None
    # The navbar: its group title ("" for the trailing untitled group; None: not listed) and
    # label (the name when empty).
    nav_group: str | None = None
    nav_label: str = ""
    # A direct tool's answer, in the spec's shape.
    respond: Respond | None = None
    # A card tool whose cards are completed with the organisation's data (its model library).
    expand_cards: CardExpander | None = None
    # A direct tool whose input is completed with the organisation's data.
    expand_direct: DirectExpander | None = None
    # Drive folders: None for none; ("",) for one input folder; else one per category.
    drive_categories: tuple[str, ...] | None = None
    # The spec's Get URLs call of a card tool's input folder, e.g. "recoloring/urls", and how
    # many files it lists at most (None: all).
    urls_path: str | None = None
    urls_limit: int | None = None
    # A drive-fed tool's Clean Input call (DELETE {codes}), e.g. "catalog-video/inputs".
    inputs_path: str | None = None
    # The input field that names a job's group (a product, an outfit): its outputs' names.
    group_key: str = ""
    # A drive-fed tool: how the new files of its input folders become jobs.
    grouper: Grouper | None = None
    # What a sync that queued work says (else "N job(s) queued; M file(s) skipped.").
    sync_done: str = ""
    # The tool dresses library models: what their photo must show.
    library: LibraryUse | None = None
    # The local engine of a generative tool is a preview; a provider makes studio results.
    generative: bool = False
    # Provider kinds that can run the tool (workers.providers), besides the local engine.
    providers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.queue not in QUEUES:
            raise ValueError(f"{self.slug}: unknown queue {self.queue}")
        if self.engine and not self.engine_path:
            object.__setattr__(self, "engine_path", f"workers.engines.{self.engine}:run")
        if self.shape == Shape.DIRECT and self.engine and self.respond is None:
            raise ValueError(f"{self.slug}: a direct tool needs respond")
        if self.shape == Shape.SYNC and self.engine and self.grouper is None:
            raise ValueError(f"{self.slug}: a drive-fed tool needs a grouper")

    @property
    def available(self) -> bool:
        """Declared with an engine this installation has (or all its parts have)."""
        from tools.registry import tool_available

        return tool_available(self.slug)

    @property
    def staff_only(self) -> bool:
        return self.access == Access.STAFF

    @property
    def limits(self) -> tuple[int, int]:
        q = QUEUES[self.queue]
        return (self.soft_limit or q.soft_limit, self.hard_limit or q.hard_limit)

    @cached_property
    def choices(self) -> dict[str, list[str]]:
        """The choice lists the page shows: every choice field of the input, by field name,
        in the serializer's order (nested cards and lists included)."""
        if self.input_serializer is None:
            return {}
        found: dict[str, list[str]] = {}
        _collect_choices(self.input_serializer(), found)
        return found


def _collect_choices(node: Any, found: dict[str, list[str]], name: str = "") -> None:
    if isinstance(node, serializers.ListSerializer):
        _collect_choices(node.child, found, name)
    elif isinstance(node, serializers.Serializer):
        for key, child in node.fields.items():
            _collect_choices(child, found, key)
    elif isinstance(node, serializers.ListField):
        _collect_choices(node.child, found, name)
    elif isinstance(node, serializers.ChoiceField) and len(node.choices) > 1:
        found[name] = [str(value) for value in node.choices]


def card_tool(slug: str, name: str, category: str, route: str, *, order: int, endpoint: str,
              urls_path: str, input_serializer: type[Serializer], example: list[Any],
              eta_text: str, expected_seconds: float, **more: Any) -> ToolSpec:
    """A card tool: an array of cards → one job per card in one batch on the batch queue;
    the cards point at images of its drive input folder (its Get URLs call) or anywhere; its
    engine, workers.engines.<slug>:run, runs behind the input checks."""
    more.setdefault("url_inputs", {"image_url": "image"})
    return ToolSpec(slug, name, category, route, "V1.0", order=order,
                    nav_group=category.upper(), queue="batch", eta_text=eta_text,
                    expected_seconds=expected_seconds, engine=slug, guarded=True,
                    input_serializer=input_serializer, example=example, shape=Shape.BATCH,
                    endpoint=endpoint, drive_categories=("",), urls_path=urls_path, **more)


def drive_tool(slug: str, name: str, route: str, *, order: int, endpoint: str,
               grouper: Grouper, input_serializer: type[Serializer], example: Any,
               eta_text: str, expected_seconds: float, **more: Any) -> ToolSpec:
    """A drive-fed Ecommerce Studio tool: a sync takes the new files of its input folders
    (grouped into jobs by its grouper) and its outputs land in its output folder."""
    more.setdefault("queue", "batch")
    more.setdefault("drive_categories", ("",))
    return ToolSpec(slug, name, "ecommerce", route, "V1.0", order=order,
                    nav_group="ECOMMERCE", eta_text=eta_text,
                    expected_seconds=expected_seconds, engine=slug,
                    input_serializer=input_serializer, example=example, shape=Shape.SYNC,
                    endpoint=endpoint, grouper=grouper, **more)


def locked(slug: str, name: str, category: str, *, order: int, nav_group: str | None,
           badge: str = "Locked", access: Access = Access.LOCKED) -> ToolSpec:
    """A catalogue entry with no workspace yet: shown with a lock."""
    return ToolSpec(slug=slug, name=name, category=category, route=None, badge=badge,
                    access=access, order=order, nav_group=nav_group)
