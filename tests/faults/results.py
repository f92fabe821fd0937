"""Writes the reliability figures of one `make faults` (deploy/local/faults.sh) from the JSON
lines its runs reported (tests/faults/harness.py `report`): a table per scenario and database
of lost, doubled and recovery seconds, with the run's date, commit and duration. Nothing in
RESULTS.md is written by hand.

    python tests/faults/results.py --out tests/faults/RESULTS.md --seconds 1800 \\
        --outcome sqlite=0 --outcome postgresql=0 report-sqlite.jsonl report-postgresql.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATABASES = ("sqlite", "postgresql")


def _commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=False).stdout.strip()

    sha = git("rev-parse", "--short=10", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return f"{sha} (with uncommitted changes)" if dirty else sha


def _read(paths: list[Path]) -> list[dict[str, Any]]:
    records = []
    for path in paths:
        if not path.exists():
            continue
        database = "postgresql" if path.stem.endswith("postgresql") else "sqlite"
        for line in path.read_text().splitlines():
            if line.strip():
                records.append(json.loads(line) | {"database_file": database})
    return records


def _failed(failed: dict[str, int]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in sorted(failed.items())) or "0"


def _notes(notes: dict[str, Any]) -> str:
    return "; ".join(f"{k}={v}" for k, v in notes.items()).replace("|", "/")


def render(records: list[dict[str, Any]], *, seconds: float, outcomes: dict[str, str],
           stamp: str, commit: str, databases: str = "one after the other") -> str:
    tallies = [r for r in records if "scenario" in r]
    lines = [r for r in records if "scenario" not in r]
    sizes = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                     if k.startswith("FAULTS_") and k not in ("FAULTS_PG_CLUSTER",))
    ran = ", ".join(f"{db}: {'passed' if rc == '0' else rc if rc == 'skipped' else 'FAILED'}"
                    for db, rc in outcomes.items())
    out = [
        "# Reliability figures",
        "",
        f"Written by `make faults` on {stamp}, commit {commit}; the run took "
        f"{seconds / 60:.1f} min ({ran}; the databases' runs {databases}). "
        f"Sizes: {sizes or 'the defaults of deploy/local/faults.sh'}.",
        "",
        "Counted by effects, where they happen: engine runs per job (the diagnostic engine's "
        "runs file), webhook events per job and endpoint (the loopback receiver, by "
        "webhook-id), drive files per output (the output folder's listing). Lost: an expected "
        "effect missing; doubled: an effect counted twice; recovery: seconds from the fault "
        "until the work went on (each scenario says from what to what). Every scenario must show 0 lost and 0 "
        "doubled.",
        "",
        "| scenario | database | submitted | succeeded | failed | lost | doubled | recovery s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    order: list[str] = []
    for t in tallies:
        if t["scenario"] not in order:
            order.append(t["scenario"])
    by_key = {(t["scenario"], t.get("database") or t["database_file"]): t for t in tallies}
    for scenario in order:
        for db in DATABASES:
            t = by_key.get((scenario, db))
            if t is None:
                out.append(f"| {scenario} | {db} | – | – | – | – | – | – |")
                continue
            recovery = "–" if t.get("recovery_s") is None else f"{t['recovery_s']:.1f}"
            out.append(f"| {scenario} | {db} | {t['submitted']} | {t['succeeded']} | "
                       f"{_failed(t.get('failed') or {})} | {t['lost']} | {t['doubled']} | "
                       f"{recovery} |")
    out += ["", "## Details", ""]
    for scenario in order:
        for db in DATABASES:
            t = by_key.get((scenario, db))
            if t is not None and t.get("notes"):
                out.append(f"- {scenario} ({db}): {_notes(t['notes'])}")
    if lines:
        out += ["", "## Other figures", ""]
        out += [f"- ({r['database_file']}) {r['line']}" for r in lines]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("reports", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--databases", default="one after the other",
                        help="how the databases' runs ran: one after the other, side by side")
    parser.add_argument("--outcome", action="append", default=[],
                        help="database=exit status of its run (or skipped)")
    args = parser.parse_args()
    outcomes = dict(o.split("=", 1) for o in args.outcome)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(_read(args.reports), seconds=args.seconds, outcomes=outcomes,
                               stamp=stamp, commit=_commit(), databases=args.databases))


if __name__ == "__main__":
    main()
