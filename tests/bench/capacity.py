"""The measured table of deploy/CAPACITY.md, written from a `make bench` report.

    python tests/bench/capacity.py var/bench/latest.md            # prints the table
    python tests/bench/capacity.py var/bench/latest.md --write deploy/CAPACITY.md

--write replaces what lies between the two "measured" markers of CAPACITY.md. Every figure
comes from the report; the specification's quoted times are in their own column, marked
quoted. Not a benchmark itself (``make bench`` collects ``bench_*.py`` only).
"""

from __future__ import annotations

import math
import re
import statistics
import sys
from pathlib import Path

BEGIN = "<!-- measured: begin (tests/bench/capacity.py writes this block) -->"
END = "<!-- measured: end -->"

ENGINE = re.compile(
    r"^(?P<label>.+?)\s+(?P<s>[\d.]+) s(?: \(first call (?P<first>[\d.]+) s\))?\s+=\s+"
    r"(?P<codec_x>[\d.]+)x decode\+encode \((?P<codec_ms>\d+) ms\)\s+=\s+(?P<blur_x>\d+)x "
    r"GaussianBlur \((?P<blur_ms>[\d.]+) ms\)\s+on (?P<size>\d+x\d+)(?:\s+spec says (?P<spec>.+))?$")
HTTP = re.compile(r"^\[bench\] (?P<label>.+?)\s+(?P<rate>\d+)\s+(?P<sent>[\d.]+)\s+"
                  r"(?P<p50>[\d.]+|nan)\s+(?P<p99>[\d.]+|nan)\s+(?P<ok>\d+)\s+(?P<c4>\d+)\s+"
                  r"(?P<c5>\d+)\s+(?P<none>\d+)$")
SATURATION = re.compile(r"^\[bench\] (?P<label>.+?)\s+(?P<rps>\d+) req/s\s+\((?P<bad>\d+) not")
DRAIN = re.compile(r"^\[bench\] (?P<side>raw Celery no-op|Atelier jobs)\s+(?P<rate>[\d.]+) jobs/s")
RATIO = re.compile(r"drain ratio Atelier/raw on (?P<db>\w+): (?P<ratio>[\d.]+)x")
CONCURRENCY = re.compile(r"prefork concurrency (\d+)")
CPU = re.compile(r"^\[bench\] (?P<side>raw Celery no-op|Atelier jobs)\s+CPU ms per job: "
                 r"(?P<parts>.+); total (?P<total>[\d.]+|nan)")

# CAPACITY.md's assumptions: volume, peak hour over the average, how busy workers are kept.
IMAGES_PER_DAY = 1_000_000
PEAK = 3
BUSY = 0.7
# The mix of CAPACITY.md's assumptions: which measured rows stand for each share.
MIX = (
    ("garment edits (Recolor, Refabric, Reshape, Rebody)", 0.6,
     ("recolor ", "refabric ", "reshape 1024", "rebody 1024")),
    ("try-on family (Try-On, Restyle, Integration, Asset)", 0.2,
     ("Virtual Try-On", "Restyle", "Garment Integration", "Ecommerce Asset")),
    ("editorial (generation, Tonelab)", 0.1, ("Editorial generation", "Tonelab")),
    ("placement and the rest (Earfit, Baghold, Remodel)", 0.1, ("Earfit", "Baghold", "Remodel")),
)


def sections(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = []
        elif current:
            out[current].append(line.rstrip())
    return out


def table(report: str) -> str:
    text = Path(report).read_text()
    head = next((line for line in text.splitlines()[1:6] if "commit" in line), "")
    parts = sections(text)
    rows: list[str] = []
    notes: list[str] = []
    drains: list[tuple[str, float, str]] = []

    for name, lines in parts.items():
        if not name.startswith("bench_jobs.py"):
            continue
        db = name.split("(")[-1].rstrip(")")
        rates = {m["side"]: float(m["rate"]) for m in map(DRAIN.search, lines) if m}
        ratio = next((m["ratio"] for m in map(RATIO.search, lines) if m), "?")
        conc = next((m.group(1) for m in map(CONCURRENCY.search, lines) if m), "?")
        cpu = {m["side"]: m for m in map(CPU.search, lines) if m}
        if rates:
            ours = rates.get("Atelier jobs", 0.0)
            drains.append((db, ours, conc))
            per_job = int(conc) / ours if ours and conc.isdigit() else float("nan")
            rows.append(f"| worker drain, {db} | {ours:.0f} jobs/s with {conc} processes "
                        f"(~{per_job * 1000:.0f} ms of bookkeeping per job and process) | "
                        f"raw Celery no-op {rates.get('raw Celery no-op', 0):.0f} jobs/s: "
                        f"**{ratio}×** | measured | bench_jobs |")
            if "Atelier jobs" in cpu and "raw Celery no-op" in cpu:
                ours_cpu, raw_cpu = cpu["Atelier jobs"], cpu["raw Celery no-op"]
                rows.append(f"| CPU per job while draining, {db} | {ours_cpu['total']} ms "
                            f"({ours_cpu['parts']}) | raw Celery no-op {raw_cpu['total']} ms "
                            f"({raw_cpu['parts']}) | measured | bench_jobs |")

    http = parts.get("bench_http.py (PostgreSQL)", [])
    runs = [m for m in map(HTTP.search, http) if m]
    sat = {m["label"].strip(): int(m["rps"]) for m in map(SATURATION.search, http) if m}
    # A burst row (hey's lockstep) has the burst of /healthz for its baseline.
    base = {(m["rate"], "burst" in m["label"]): m for m in runs if "healthz" in m["label"]}
    for m in runs:
        label = m["label"].strip()
        if "healthz" in label:
            continue
        bare = base.get((m["rate"], "burst" in label))
        baseline = f"/healthz p99 {bare['p99']} ms" if bare else ""
        shortfall = "" if float(m["sent"]) >= 0.95 * int(m["rate"]) else \
            f", only {float(m['sent']):.0f}/s sent (saturated)"
        rows.append(f"| {label} at {m['rate']} req/s | p50 {m['p50']} ms, p99 {m['p99']} ms; "
                    f"{m['ok']} 2xx, {m['c4']} 4xx, {m['c5']} 5xx, {m['none']} unanswered"
                    f"{shortfall} | {baseline} | measured | bench_http |")
    bare_sat = next((v for k, v in sat.items() if "healthz" in k), None)
    for label, rps in sat.items():
        if "healthz" in label:
            continue
        rows.append(f"| {label}, most answered (wrk, no rate limit) | {rps} req/s | /healthz "
                    f"{bare_sat} req/s | measured | bench_http |")

    scale = parts.get("bench_scale.py (PostgreSQL)", [])
    header = next((line for line in scale if "ratio" in line and "bar" in line), "")
    cols = re.findall(r"0 again|\d[\d,]*", header.split("ratio")[0]) if header else []
    for line in scale:
        numbers = r"((?:\s+[\d.]+){" + str(len(cols)) + "})"
        m = re.match(r"^\[bench\] (.+?)" + numbers + r"\s+([\d.]+|inf)\s+(bar met|NOT MET)(?: \([^)]*\))?(?:; .*)?$",
                     line) if cols else None
        if not m:
            continue
        values = dict(zip(cols, m.group(2).split(), strict=True))
        shown = ", ".join(f"{values[c]} ms at {c}" for c in cols)
        rows.append(f"| {m.group(1).strip()} with history (fastest call) | {shown} | itself at 0: "
                    f"**{m.group(3)}×** ({m.group(4)}) | measured | bench_scale |")

    engines: dict[tuple[str, str], float] = {}
    codec: list[float] = []
    for name, lines in parts.items():
        if "engines" not in name:
            continue
        for line in lines:
            plain = re.match(r"decode JPEG \+ encode PNG\s+([\d.]+) s.* on 768x1024", line)
            if plain:
                codec.append(float(plain.group(1)))
            m = ENGINE.match(line.strip())
            if not m:
                continue
            label = m["label"].strip()
            engines[(label, m["size"])] = float(m["s"])
            spec = f"spec says {m['spec']} (quoted)" if m["spec"] else "the spec quotes none"
            rows.append(f"| {label} ({m['size']}, one core) | {float(m['s']):.2f} s | "
                        f"{m['codec_x']}× decode+encode ({m['codec_ms']} ms), {m['blur_x']}× "
                        f"one Gaussian blur | measured; {spec} | "
                        f"{name.split(' ')[0]} |")

    weighted = 0.0
    parts_used = []
    for share_label, share, prefixes in MIX:
        picked = [s for (label, size), s in engines.items()
                  if any(label.startswith(p) for p in prefixes) and "2048" not in size]
        if not picked:
            notes.append(f"no engine figure for {share_label}")
            continue
        mean = statistics.mean(picked)
        weighted += share * mean
        parts_used.append(f"{share:.0%} × {mean:.2f} s ({share_label})")

    bookkeeping = next((int(c) / r for db, r, c in drains if db == "PostgreSQL" and r), None)
    fleet: list[str] = []
    if len(parts_used) == len(MIX) and codec and bookkeeping:
        per_image = weighted + (codec[0] if codec else 0.0) + (bookkeeping or 0.0)
        average = IMAGES_PER_DAY * per_image / 86_400
        cores = average * PEAK / BUSY
        fleet = [
            f"Per image: {weighted:.2f} s of engine + {codec[0] if codec else 0:.2f} s of decode "
            f"and encode + {bookkeeping or 0:.3f} s of job bookkeeping (the PostgreSQL drain) "
            f"= **{per_image:.2f} core-seconds**.",
            f"Fleet for {IMAGES_PER_DAY:,} images a day: {IMAGES_PER_DAY:,} × {per_image:.2f} s "
            f"/ 86,400 s = **{average:.1f} cores busy** on average; at the peak hour (×{PEAK}) "
            f"and {BUSY:.0%} busy: **{cores:.0f} worker cores**, e.g. {math.ceil(cores / 8)} "
            "machines of 8 cores.", ""]

    out = [BEGIN, "", f"From `make bench` ({head.strip()}).", "",
           "| work | figure | baseline in the same run | measured or quoted | bench |",
           "|---|---|---|---|---|", *rows, ""]
    if len(parts_used) == len(MIX):
        out += ["Weighted engine time of the mix below, from these figures: "
                + " + ".join(parts_used) + f" = **{weighted:.2f} core-seconds per image**"
                + (f" (plus decode and encode, {codec[0]:.2f} s at 1024 px)" if codec else "")
                + ".", ""]
    out += fleet or ["No fleet arithmetic: this report lacks some of its figures.", ""]
    out += [f"Note: {n}." for n in notes]
    out += [END]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    block = table(argv[0])
    if len(argv) >= 3 and argv[1] == "--write":
        doc = Path(argv[2])
        text = doc.read_text()
        if BEGIN.split(" (")[0] not in text or END not in text:
            print(f"{doc} has no measured markers", file=sys.stderr)
            return 1
        start = text.index(BEGIN.split(" (")[0])
        end = text.index(END) + len(END) + 1
        doc.write_text(text[:start] + block + text[end:])
    else:
        print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
