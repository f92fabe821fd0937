"""LocalDrive against plain os calls on the same folder, in the same run.

- listing 10,000 files: os.scandir + stat (the floor: no content read) vs LocalDrive cold
  (every file hashed) and warm (revisions from the cache);
- a ledger-like diff: the set difference of (id, revision) against the previous listing
  after some files changed and some arrived;
- delivery: files written per second by LocalDrive.write (atomic, fsynced; with an app_key
  sidecar) vs Path.write_bytes (neither atomic nor durable).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from drivesync.local import LocalDrive

FILES = 10_000
FILE_BYTES = 4096
DELIVERIES = 400
RACY = 0.5


def timed(fn: Callable[[], object], repeat: int = 1) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    return best, result


def scandir_listing(folder: Path) -> list[tuple[str, int, int]]:
    with os.scandir(folder) as it:
        return [(e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in it
                if e.is_file(follow_symlinks=False)]


def bench_local_listing_and_ledger_diff(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    folder = root / "inputs"
    folder.mkdir(parents=True)
    for i in range(FILES):
        (folder / f"look-{i:05d}.png").write_bytes(os.urandom(FILE_BYTES))
    time.sleep(RACY + 0.1)  # files older than the racy window, as dropped files are
    drive = LocalDrive(root, racy_seconds=RACY)

    base_s, base = timed(lambda: scandir_listing(folder), repeat=3)
    cold_s, cold = timed(lambda: list(drive.list("inputs")))
    warm_s, warm = timed(lambda: list(drive.list("inputs")), repeat=3)
    assert isinstance(base, list) and isinstance(cold, list) and isinstance(warm, list)
    assert len(base) == len(cold) == len(warm) == FILES

    previous = {(f.id, f.revision) for f in warm}
    for i in range(0, 500, 10):  # 50 changed in place
        (folder / f"look-{i:05d}.png").write_bytes(os.urandom(FILE_BYTES))
    for i in range(20):  # 20 new
        (folder / f"new-{i:02d}.png").write_bytes(os.urandom(FILE_BYTES))

    def listing_and_diff() -> set[tuple[str, str]]:
        current = {(f.id, f.revision) for f in drive.list("inputs")}
        return current - previous

    diff_s, fresh = timed(listing_and_diff)
    assert isinstance(fresh, set) and len(fresh) == 70
    set_s, _ = timed(lambda: {(f.id, f.revision) for f in warm} - previous, repeat=3)

    print(f"\nlisting {FILES} files of {FILE_BYTES} B")
    print(f"  os.scandir+stat          {base_s * 1e3:8.1f} ms  (baseline)")
    print(f"  LocalDrive cold (hashes) {cold_s * 1e3:8.1f} ms  x{cold_s / base_s:6.1f}")
    print(f"  LocalDrive warm (cache)  {warm_s * 1e3:8.1f} ms  x{warm_s / base_s:6.1f}")
    print(f"  listing + ledger diff    {diff_s * 1e3:8.1f} ms  x{diff_s / base_s:6.1f}"
          f"  (70 of {FILES + 20} new or changed; the set difference alone "
          f"{set_s * 1e3:.1f} ms)")


def bench_local_delivery(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    for name in ("plain", "durable", "nosync", "keyed"):
        (root / name).mkdir(parents=True)
    payload = os.urandom(64 * 1024)
    durable, nosync = LocalDrive(root), LocalDrive(root, fsync=False)

    def plain() -> None:
        for i in range(DELIVERIES):
            (root / "plain" / f"out-{i}.png").write_bytes(payload)

    def deliver(drive: LocalDrive, folder: str, keyed: bool) -> Callable[[], None]:
        def run() -> None:
            for i in range(DELIVERIES):
                drive.write(folder, f"out-{i}.png", payload, "image/png",
                            app_key=f"job:{i}" if keyed else None)
        return run

    plain_s, _ = timed(plain)
    nosync_s, _ = timed(deliver(nosync, "nosync", False))
    durable_s, _ = timed(deliver(durable, "durable", False))
    keyed_s, _ = timed(deliver(durable, "keyed", True))

    print(f"\ndelivering {DELIVERIES} files of 64 KiB (files per second)")
    print(f"  Path.write_bytes                  {DELIVERIES / plain_s:8.0f}/s  (baseline)")
    for label, seconds in (("LocalDrive.write, no fsync", nosync_s),
                           ("LocalDrive.write, fsync", durable_s),
                           ("LocalDrive.write, fsync + app_key", keyed_s)):
        print(f"  {label:<33} {DELIVERIES / seconds:8.0f}/s  x{plain_s / seconds:5.2f}")
