"""`make fidelity`: every batch engine measured on our fixtures, bars checked, sheets written.

    python -m tests.fidelity.run [tool ...]

Writes `var/fidelity/latest.md` (a table per tool, every bar with its figure) and one contact
sheet per tool under `var/fidelity/`. Exits non-zero when a bar is not met.
"""

from __future__ import annotations

import importlib
import platform as _platform
import sys
import time
import traceback
from datetime import UTC, datetime

from tests.fidelity.common import OUT_DIR, ToolReport

TOOLS = ["recolor", "refabric", "reshape", "earfit", "baghold", "rebody", "flats", "refusals",
         "tryon"]


def _table(rows: list[dict[str, object]]) -> list[str]:
    if not rows:
        return []
    cols = list(dict.fromkeys(k for r in rows for k in r))

    def cell(v: object) -> str:
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(cell(r.get(c, "")) for c in cols) + " |" for r in rows]
    return out + [""]


def main(argv: list[str]) -> int:
    tools = argv or TOOLS
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Atelier fidelity",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {_platform.machine()}. Written by "
        "`make fidelity`; every figure below was measured by this run.",
        "",
    ]
    failed: list[str] = []
    for tool in tools:
        started = time.perf_counter()
        try:
            module = importlib.import_module(f"tests.fidelity.fid_{tool}")
            report: ToolReport = module.measure(OUT_DIR)
        except Exception:  # a crashing measurement is a failed bar, reported, not hidden
            traceback.print_exc()
            lines += [f"## {tool}", "", "**The measurement crashed** (see the run's output).", ""]
            failed.append(tool)
            continue
        seconds = time.perf_counter() - started
        verdict = "all bars met" if report.met else "BARS NOT MET"
        print(f"{tool}: {verdict} ({seconds:.0f} s)")
        lines += [f"## {tool}: {verdict}", ""]
        for bar in report.bars:
            mark = "met" if bar.met else "NOT MET"
            print(f"  [{mark}] {bar.describe()}")
            lines.append(f"- [{mark}] {bar.describe()}")
        lines.append("")
        lines += _table(report.rows)
        if report.sheet:
            lines += [f"Contact sheet: `{report.sheet.relative_to(OUT_DIR.parent.parent)}`", ""]
        lines += [f"- {n}" for n in report.notes] + ([""] if report.notes else [])
        if not report.met:
            failed.append(tool)
    (OUT_DIR / "latest.md").write_text("\n".join(lines) + "\n")
    print(f"Report written to {OUT_DIR / 'latest.md'}")
    if failed:
        print("Bars not met: " + ", ".join(failed))
        return 1
    print("Every bar met.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
