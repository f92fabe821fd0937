"""LocalDrive on a real file system: what only a local folder can get wrong."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from drivesync.errors import DriveError, DriveNotFound, DriveRefused
from drivesync.local import LocalDrive
from tests.drivesync.conftest import png_bytes


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "storage" / "inputs").mkdir(parents=True)
    return tmp_path / "storage"


def test_symlinks_are_neither_listed_nor_read(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    (root / "inputs" / "link.png").symlink_to(secret)
    (root / "inputs" / "real.png").write_bytes(b"ok")
    drive = LocalDrive(root)

    assert [f.name for f in drive.list("inputs")] == ["real.png"]
    with pytest.raises(DriveError):
        drive.read("inputs", "link.png")
    with pytest.raises(DriveNotFound):
        drive.delete("inputs", "link.png")
    assert secret.read_text() == "outside"


@pytest.mark.parametrize("folder", ["../outside", "/etc", "inputs/../../outside", "a\x00b"])
def test_folders_cannot_leave_the_root(root: Path, folder: str) -> None:
    (root.parent / "outside").mkdir()

    with pytest.raises(DriveRefused):
        list(LocalDrive(root).list(folder))


def test_a_symlinked_folder_pointing_outside_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (root / "sneaky").symlink_to(tmp_path / "elsewhere")

    with pytest.raises(DriveRefused):
        LocalDrive(root).write("sneaky", "a.png", b"x", "image/png")

    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_same_size_same_mtime_rewrite_changes_the_revision(root: Path) -> None:
    path = root / "inputs" / "dress.png"
    path.write_bytes(png_bytes(1, size=4000))
    drive = LocalDrive(root, racy_seconds=0.05)
    time.sleep(0.1)  # out of the racy window: the revision gets cached
    (before,) = drive.list("inputs")
    stat = path.stat()

    # Rewritten in place (same inode), same size, mtime put back (as `rsync -t` or a careless
    # tool does): only the ctime tells.
    with open(path, "r+b") as fh:
        fh.write(png_bytes(2, size=4000))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (after,) = drive.list("inputs")

    assert path.stat().st_ino == stat.st_ino and after.size == before.size
    assert after.modified_at == before.modified_at
    assert after.revision != before.revision


def test_files_dropped_with_decomposed_names_stay_readable(root: Path) -> None:
    nfd = "cafe\u0301.png"
    (root / "inputs" / nfd).write_bytes(b"mac")
    drive = LocalDrive(root)

    (listed,) = drive.list("inputs")

    assert listed.id == nfd
    assert drive.read("inputs", listed.id) == b"mac"


def test_hidden_entries_and_subfolders_are_not_listed(root: Path) -> None:
    (root / "inputs" / ".DS_Store").write_bytes(b"x")
    (root / "inputs" / ".look.png.1a2b.tmp").write_bytes(b"partial")
    (root / "inputs" / "nested").mkdir()
    drive = LocalDrive(root)
    drive.write("inputs", "shoe.png", b"x", "image/png", app_key="k")

    assert [f.name for f in drive.list("inputs")] == ["shoe.png"]


def test_content_type_comes_from_the_bytes_first(root: Path) -> None:
    (root / "inputs" / "actually-png.jpg").write_bytes(png_bytes(1))
    (root / "inputs" / "notes.txt").write_bytes(b"hello")

    types = {f.name: f.content_type for f in LocalDrive(root).list("inputs")}

    assert types == {"actually-png.jpg": "image/png", "notes.txt": "text/plain"}


def test_a_failed_write_leaves_no_temporary_file_and_the_old_content(root: Path) -> None:
    drive = LocalDrive(root)
    drive.write("inputs", "keep.png", b"old", "image/png")
    (root / "inputs" / "blocked.png").mkdir()  # os.replace onto a directory fails

    with pytest.raises(DriveError):
        drive.write("inputs", "blocked.png", b"new", "image/png")

    assert sorted(p.name for p in (root / "inputs").iterdir()) == ["blocked.png", "keep.png"]
    assert drive.read("inputs", "keep.png") == b"old"


def test_written_files_follow_the_umask(root: Path) -> None:
    old = os.umask(0o022)
    try:
        LocalDrive(root).write("inputs", "shared.png", b"x", "image/png")
    finally:
        os.umask(old)

    assert (root / "inputs" / "shared.png").stat().st_mode & 0o777 == 0o644


def test_a_key_no_longer_describes_a_name_overwritten_with_other_content(root: Path) -> None:
    drive = LocalDrive(root)
    drive.write("inputs", "out.png", b"first", "image/png", app_key="job-1:0")

    drive.write("inputs", "out.png", b"second", "image/png", app_key="job-2:0")

    assert drive.find_by_key("inputs", "job-1:0") is None
    found = drive.find_by_key("inputs", "job-2:0")
    assert found is not None and drive.read("inputs", found.id) == b"second"
