"""The catalogue entries with no workspace yet (spec part 1 §1-§2): shown with a lock, or as
private commercial solutions staff enable per organisation."""

from __future__ import annotations

from tools.spec import Access, locked

SPECS = [
    locked("editorial-video", "Editorial Video", "editorial", order=50, nav_group="EDITORIAL"),
    locked("digital-twin", "Digital Twin", "editorial", order=60, nav_group="EDITORIAL"),
    locked("pattern", "Pattern", "design", order=190, nav_group="DESIGN"),
    locked("virtual-try-on-app", "Virtual Try-On App", "commercial", order=230, nav_group="",
           badge="Private", access=Access.PRIVATE),
    locked("live-restyle", "Live Restyle", "commercial", order=240, nav_group="",
           badge="Private", access=Access.PRIVATE),
    locked("ai-agent", "AI Agent", "playground", order=250, nav_group="", badge="Playground"),
]
