"""The tool registry: one place that declares every tool. Later tools only add entries."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from django.conf import settings
from rest_framework.serializers import Serializer

from tools.serializers import (
    AnalyzeInput,
    BagCard,
    DiagnosticsSleepInput,
    EarringCard,
    EcommerceAssetInput,
    EditorialGenerateInput,
    EditorialProductInput,
    GarmentIntegrationInput,
    ModelSwapInput,
    OpenLabInput,
    RebodyInput,
    RecolorCard,
    RefabricCard,
    RemodelInput,
    ReshapeCard,
    RestyleInput,
    SyncInput,
    TechPackDescriptionInput,
    TechPackProcessInput,
    TonelabGenerateInput,
    TryOnInput,
)
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


@dataclass(frozen=True)
class Tool:
    slug: str
    name: str
    category: str  # editorial, ecommerce, design, commercial, playground, operations
    route: str | None
    badge: str
    queue: str = "interactive"
    # None: listed in the catalogue, not runnable yet.
    engine: str | None = None
    input_serializer: type[Serializer] | None = None
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

    def __post_init__(self) -> None:
        if self.queue not in QUEUES:
            raise ValueError(f"{self.slug}: unknown queue {self.queue}")

    @property
    def available(self) -> bool:
        """Declared with an engine that this installation has (or all its parts have)."""
        from workers.engines.registry import ENGINES

        parts = [t for t in TOOLS.values() if t.part_of == self.slug]
        if parts:
            return all(p.available for p in parts)
        return self.engine is not None and self.engine in ENGINES

    @property
    def staff_only(self) -> bool:
        return self.access == Access.STAFF

    @property
    def limits(self) -> tuple[int, int]:
        q = QUEUES[self.queue]
        return (self.soft_limit or q.soft_limit, self.hard_limit or q.hard_limit)


def _locked(slug: str, name: str, category: str, badge: str = "Locked",
            access: Access = Access.LOCKED) -> Tool:
    return Tool(slug=slug, name=name, category=category, route=None, badge=badge, access=access)


# The catalogue of the spec (part 1 §1-§2, part 2 §1-§2). ETA texts are the spec's.
TOOLS: dict[str, Tool] = {
    t.slug: t
    for t in (
        Tool("editorial", "Editorial", "editorial", "/editorial", "V1.0",
             eta_text="about 35 seconds", expected_seconds=35),
        Tool("tonelab", "Tonelab", "editorial", "/tonelab", "V1.0",
             eta_text="about 35 seconds", expected_seconds=35),
        Tool("garment-integration", "Garment Integration", "editorial", "/restyle-editorial",
             "V1.0", eta_text="about 20 seconds", expected_seconds=20,
             engine="garment_integration", input_serializer=GarmentIntegrationInput,
             shape=Shape.DIRECT, endpoint="restyle-editorial/process",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"}),
        Tool("editorial-product", "Editorial Product", "editorial", "/editorial-product", "V1.0",
             eta_text="about 30 seconds", expected_seconds=30),
        _locked("editorial-video", "Editorial Video", "editorial"),
        _locked("digital-twin", "Digital Twin", "editorial"),
        Tool("remodel", "Remodel", "ecommerce", "/remodel", "V1.0", queue="batch",
             eta_text="about 15 seconds", expected_seconds=15, engine="remodel",
             input_serializer=RemodelInput, shape=Shape.SYNC, endpoint="remodel/process"),
        Tool("earfit", "Earfit", "ecommerce", "/earring-catalog", "V1.0", queue="batch",
             eta_text="about 17 seconds per earring", expected_seconds=17, engine="earfit",
             input_serializer=EarringCard, shape=Shape.BATCH, endpoint="earring-catalog/process",
             url_inputs={"ring_image": "ring_image"}),
        Tool("baghold", "Baghold", "ecommerce", "/bag-holder", "V1.0", queue="batch",
             eta_text="about 90 seconds per bag", expected_seconds=90, engine="baghold",
             input_serializer=BagCard, shape=Shape.BATCH, endpoint="bag-holder/process",
             url_inputs={"Bag_Url": "bag_image"}),
        Tool("spinview", "Spinview", "ecommerce", "/catalog-video", "V1.0", queue="video",
             eta_text="about 110 seconds per video", expected_seconds=110, engine="spinview",
             input_serializer=SyncInput, shape=Shape.SYNC, endpoint="catalog-video/sync"),
        Tool("restyle", "Restyle", "ecommerce", "/restyle-tool", "V1.0",
             eta_text="about 18 seconds", expected_seconds=18, engine="restyle",
             input_serializer=RestyleInput, shape=Shape.DIRECT,
             endpoint="restyle/garment-restyle",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"}),
        Tool("rebody", "Rebody", "ecommerce", "/rebody", "V1.0",
             eta_text="about 1-2 minutes", expected_seconds=90, engine="rebody",
             input_serializer=RebodyInput, shape=Shape.DIRECT, url_inputs={"image_url": "image"},
             endpoint="rebody/process"),
        Tool("flats", "Flats Ecommerce", "ecommerce", "/flats-catalog", "V1.0", queue="batch",
             eta_text="about 150 seconds", expected_seconds=150, engine="flats",
             input_serializer=SyncInput, shape=Shape.SYNC, endpoint="flats-catalog/sync"),
        Tool("ecommerce-asset", "Ecommerce Asset", "ecommerce", "/catalog-asset", "V1.0",
             eta_text="about 1 minute", expected_seconds=60, engine="ecommerce_asset",
             input_serializer=EcommerceAssetInput, shape=Shape.DIRECT,
             endpoint="catalog-asset/process",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"}),
        Tool("recolor", "Recolor", "design", "/recoloring", "V1.0", queue="batch",
             eta_text="about 90 seconds", expected_seconds=90, engine="recolor",
             input_serializer=RecolorCard, shape=Shape.BATCH, url_inputs={"image_url": "image"},
             endpoint="recoloring/recolor"),
        Tool("refabric", "Refabric", "design", "/refabric", "V1.0", queue="batch",
             eta_text="about 90 seconds", expected_seconds=90, engine="refabric",
             input_serializer=RefabricCard, shape=Shape.BATCH, url_inputs={"image_url": "image"},
             endpoint="refabricing/refabric"),
        Tool("reshape", "Reshape", "design", "/reshaping", "V1.0", queue="batch",
             eta_text="about 90 seconds", expected_seconds=90, engine="reshape",
             input_serializer=ReshapeCard, shape=Shape.BATCH, url_inputs={"image_url": "image"},
             endpoint="reshaping/reshape"),
        Tool("open-lab", "Open Lab", "design", "/open-lab", "V1.0",
             eta_text="about 30 seconds", expected_seconds=30),
        _locked("pattern", "Pattern", "design"),
        Tool("tech-pack", "Tech Pack Lab", "design", "/tech-pack", "Beta",
             eta_text="30-120 seconds per step", expected_seconds=60),
        Tool("virtual-try-on", "Virtual Try-On", "commercial", "/virtual-try-on", "V1.0",
             eta_text="about 2 minutes", expected_seconds=120, engine="virtual_try_on",
             input_serializer=TryOnInput, shape=Shape.DIRECT, endpoint="try-on",
             url_inputs={"garmentUrl": "garment", "modelUrl": "model"}),
        Tool("model-swap", "Model Swap", "commercial", "/model-swapper", "V1.0",
             eta_text="about 15 seconds", expected_seconds=15, engine="remodel",
             input_serializer=ModelSwapInput, shape=Shape.DIRECT, endpoint="model-swap/process",
             url_inputs={"image_url": "image"}),
        _locked("virtual-try-on-app", "Virtual Try-On App", "commercial", "Private",
                Access.PRIVATE),
        _locked("live-restyle", "Live Restyle", "commercial", "Private", Access.PRIVATE),
        _locked("ai-agent", "AI Agent", "playground", "Playground"),
        # Parts of the Editorial Hub and Design Lab tools: one call each.
        Tool("editorial.analyze", "Editorial: analyse a reference", "editorial", None, "V1.0",
             engine="editorial_analyze", input_serializer=AnalyzeInput, shape=Shape.DIRECT,
             endpoint="editorial/analyze", webhook_path="editorial/urls",
             url_inputs={"image_reference": "image"}, part_of="editorial",
             expected_seconds=5),
        Tool("editorial.generate", "Editorial: generate", "editorial", None, "V1.0",
             engine="editorial_generate", input_serializer=EditorialGenerateInput,
             shape=Shape.DIRECT, endpoint="editorial/generate", webhook_path="Editorial",
             url_inputs={"outfit": "image"}, part_of="editorial", expected_seconds=35),
        Tool("tonelab.analyze", "Tonelab: analyse a reference", "editorial", None, "V1.0",
             engine="tonelab_analyze", input_serializer=AnalyzeInput, shape=Shape.DIRECT,
             endpoint="tonelab/analyze", webhook_path="analyze",
             url_inputs={"image_reference": "image"}, part_of="tonelab", expected_seconds=5),
        Tool("tonelab.generate", "Tonelab: generate", "editorial", None, "V1.0",
             engine="tonelab_generate", input_serializer=TonelabGenerateInput,
             shape=Shape.DIRECT, endpoint="tonelab/generate", webhook_path="tonelab",
             url_inputs={"outfit": "image", "reference": "reference"}, part_of="tonelab",
             expected_seconds=35),
        Tool("editorial-product.generate", "Editorial Product: generate", "editorial", None,
             "V1.0", engine="editorial_product", input_serializer=EditorialProductInput,
             shape=Shape.DIRECT, endpoint="editorial-product/", base64_inputs={"image": "image"},
             part_of="editorial-product", expected_seconds=30),
        Tool("open-lab.generate", "Open Lab: generate", "design", None, "V1.0",
             engine="open_lab", input_serializer=OpenLabInput, shape=Shape.DIRECT,
             endpoint="open-lab/", base64_inputs={"image": "image", "image_2": "image_2"},
             part_of="open-lab", expected_seconds=30),
        Tool("tech-pack.describe", "Tech Pack Lab: description", "design", None, "Beta",
             engine="techpack_describe", input_serializer=TechPackDescriptionInput,
             shape=Shape.DIRECT, endpoint="tech-pack/description",
             base64_inputs={"image": "image"}, part_of="tech-pack", expected_seconds=20),
        Tool("tech-pack.process", "Tech Pack Lab: process", "design", None, "Beta",
             engine="techpack_process", input_serializer=TechPackProcessInput,
             shape=Shape.DIRECT, endpoint="tech-pack/process", base64_inputs={"image": "image"},
             part_of="tech-pack", expected_seconds=40),
        Tool(
            slug="diagnostics.sleep",
            name="Diagnostics: sleep",
            category="operations",
            route=None,
            badge="Staff",
            queue="interactive",
            engine="diagnostics.sleep",
            input_serializer=DiagnosticsSleepInput,
            shape=Shape.JOB,
            eta_text="as long as asked",
            expected_seconds=1.0,
            access=Access.STAFF,
            # Short limits so ops and the fault tests can reach them quickly.
            soft_limit=settings.DIAGNOSTICS_SOFT_LIMIT,
            hard_limit=settings.DIAGNOSTICS_HARD_LIMIT,
        ),
    )
}


def tool_get(slug: str) -> Tool | None:
    return TOOLS.get(slug)


def tool_allowed(tool: Tool, *, user: Any) -> bool:
    """Open tools for every partner; locked and private ones for the organisations staff
    enabled them for; staff tools for staff. A part follows its tool."""
    if tool.part_of:
        return tool_allowed(TOOLS[tool.part_of], user=user)
    if user.is_staff:
        return True
    if tool.access == Access.OPEN:
        return True
    if tool.access == Access.STAFF:
        return False
    org = getattr(user, "organization", None)
    return bool(org and tool.slug in (org.enabled_tools or []))
