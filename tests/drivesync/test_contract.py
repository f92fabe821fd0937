"""One contract, three clients: what the sync service relies on from every drive."""

from __future__ import annotations

import hashlib
import math

import pytest

from drivesync.base import Drive, DriveFile, write_once
from drivesync.errors import DriveNotFound, DriveRefused
from tests.drivesync.conftest import Backend, png_bytes


def names_in(drive: Drive, folder: str) -> list[str]:
    return [f.name for f in drive.list(folder)]


def test_list_pages_through_every_file(backend: Backend) -> None:
    folder = backend.folder("inputs")
    seeded = {f"look-{i:04d}.png": png_bytes(i) for i in range(120)}
    for name, data in seeded.items():
        backend.seed(folder, name, data)
    before = backend.list_calls()

    listed = list(backend.drive.list(folder, page_size=7))

    assert sorted(f.name for f in listed) == sorted(seeded)
    assert len({f.id for f in listed}) == 120
    by_name = {f.name: f for f in listed}
    assert by_name["look-0007.png"].size == len(seeded["look-0007.png"])
    if before is not None:
        assert backend.list_calls() - before >= math.ceil(120 / 7)


def test_write_returns_what_list_and_read_see(backend: Backend) -> None:
    folder = backend.folder("outputs")
    data = png_bytes(1, size=600_000)  # several 256 KiB chunks on Google

    written = backend.drive.write(folder, "job-1-0.png", data, "image/png")

    assert (written.name, written.size) == ("job-1-0.png", len(data))
    assert backend.drive.read(folder, written.id) == data
    listed = {f.id: f for f in backend.drive.list(folder)}
    # The ledger records (id, revision) from the write and later compares listings to it.
    assert listed[written.id].revision == written.revision
    assert listed[written.id].content_type == "image/png"
    if written.md5 is not None:
        assert written.md5 == hashlib.md5(data).hexdigest()


def test_empty_file_round_trips(backend: Backend) -> None:
    folder = backend.folder("outputs")

    written = backend.drive.write(folder, "empty.txt", b"", "text/plain")

    assert written.size == 0
    assert backend.drive.read(folder, written.id) == b""


def test_revision_changes_when_content_changes_and_only_then(backend: Backend) -> None:
    folder = backend.folder("inputs")
    file_id = backend.seed(folder, "dress.png", png_bytes(1, size=5000))
    first = {f.id: f.revision for f in backend.drive.list(folder)}
    again = {f.id: f.revision for f in backend.drive.list(folder)}

    # Same size, different bytes: a size-and-time check alone would miss it.
    backend.overwrite(folder, file_id, png_bytes(2, size=5000))
    changed = {f.id: f.revision for f in backend.drive.list(folder)}

    assert again == first
    assert list(changed) == [file_id]
    assert changed[file_id] != first[file_id]


def test_retried_delivery_with_app_key_finds_the_first(backend: Backend) -> None:
    folder = backend.folder("outputs")
    other = backend.folder("elsewhere")
    data = png_bytes(3)

    first, created = write_once(backend.drive, folder, "job-7-0.png", data, "image/png",
                                app_key="job-7:0")
    retried, created_again = write_once(backend.drive, folder, "job-7-0.png", data,
                                        "image/png", app_key="job-7:0")

    assert (created, created_again) == (True, False)
    assert retried.id == first.id and retried.revision == first.revision
    assert names_in(backend.drive, folder) == ["job-7-0.png"]
    assert backend.drive.find_by_key(folder, "job-7:1") is None
    assert backend.drive.find_by_key(other, "job-7:0") is None
    # Keys with quotes and backslashes must not break out of a search expression.
    tricky = "o'brien\\' or name != '"
    written = backend.drive.write(folder, "quote.png", data, "image/png", app_key=tricky)
    found = backend.drive.find_by_key(folder, tricky)
    assert found is not None and found.id == written.id


def test_delete_removes_the_file(backend: Backend) -> None:
    folder = backend.folder("inputs")
    keep = backend.drive.write(folder, "keep.png", png_bytes(1), "image/png")
    gone = backend.drive.write(folder, "gone.png", png_bytes(2), "image/png", app_key="k-gone")

    backend.drive.delete(folder, gone.id)

    assert names_in(backend.drive, folder) == ["keep.png"]
    assert backend.drive.find_by_key(folder, "k-gone") is None
    with pytest.raises(DriveNotFound):
        backend.drive.read(folder, gone.id)
    with pytest.raises(DriveNotFound):
        backend.drive.delete(folder, gone.id)
    assert backend.drive.read(folder, keep.id) == png_bytes(1)


def test_move_takes_content_and_key_along(backend: Backend) -> None:
    inbox = backend.folder("inputs")
    done = backend.folder("processed")
    data = png_bytes(4, size=3000)
    written = backend.drive.write(inbox, "shoe.png", data, "image/png", app_key="in:shoe")

    moved = backend.drive.move(inbox, written.id, done)

    assert names_in(backend.drive, inbox) == []
    assert [f.id for f in backend.drive.list(done)] == [moved.id]
    assert moved.name == "shoe.png" and moved.revision == written.revision
    assert backend.drive.read(done, moved.id) == data
    found = backend.drive.find_by_key(done, "in:shoe")
    assert found is not None and found.id == moved.id
    assert backend.drive.find_by_key(inbox, "in:shoe") is None


@pytest.mark.parametrize(("given", "stored"), [
    ("../escape.png", "___escape.png"),
    ("../../../../etc/passwd", "___.._.._.._etc_passwd"),
    (".hidden.png", "_hidden.png"),
    ("sub/dir/look.png", "sub_dir_look.png"),
    ("..\\win.png", "___win.png"),
    ("/abs.png", "_abs.png"),
    ("cafe\u0301.png", "caf\u00e9.png"),  # NFD in, NFC stored
    ("  spaced.png ", "spaced.png"),
])
def test_odd_names_stay_inside_the_folder(backend: Backend, given: str, stored: str) -> None:
    folder = backend.folder("outputs/batch")
    sibling = backend.folder("outputs/other")

    written = backend.drive.write(folder, given, b"data", "image/png")

    assert written.name == stored
    assert names_in(backend.drive, folder) == [stored]
    assert names_in(backend.drive, sibling) == []
    assert backend.drive.read(folder, written.id) == b"data"
    if backend.name == "local":
        root = backend.extra["root"]
        everything = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
        assert everything == [f"outputs/batch/{stored}"]
    if backend.name == "s3":
        keys = [o["Key"] for o in backend.extra["client"].list_objects_v2(
            Bucket=backend.extra["bucket"])["Contents"]]
        assert keys == [f"org-1/outputs/batch/{stored}"]


@pytest.mark.parametrize("name", ["", "..", ".", "nul\x00.png", "bell\x07.png",
                                  "line\nbreak.png", "photo\u202egnp.exe",
                                  "x" * 300])
def test_unsafe_names_are_refused_and_nothing_is_written(backend: Backend, name: str) -> None:
    folder = backend.folder("outputs")

    with pytest.raises(DriveRefused) as caught:
        backend.drive.write(folder, name, b"data", "image/png")

    assert caught.value.code == "bad_name"
    assert names_in(backend.drive, folder) == []


def test_missing_files_are_not_found(backend: Backend) -> None:
    folder = backend.folder("inputs")
    other = backend.folder("processed")
    missing = "1missingFileId" if backend.name == "google" else "missing.png"

    for attempt in (lambda: backend.drive.read(folder, missing),
                    lambda: backend.drive.delete(folder, missing),
                    lambda: backend.drive.move(folder, missing, other),
                    lambda: backend.drive.read(folder, "../inputs")):
        with pytest.raises(DriveNotFound):
            attempt()


def test_missing_folder_is_not_found(backend: Backend) -> None:
    if backend.name == "s3":
        pytest.skip("S3 has no folders: an unused prefix lists as empty")
    missing = "1missingFolderId" if backend.name == "google" else "no/such/folder"

    with pytest.raises(DriveNotFound):
        list(backend.drive.list(missing))


def test_file_in_another_folder_is_not_deleted_through_this_one(backend: Backend) -> None:
    folder = backend.folder("inputs")
    other = backend.folder("processed")
    written = backend.drive.write(other, "theirs.png", b"data", "image/png")

    with pytest.raises(DriveNotFound):
        backend.drive.delete(folder, written.id)

    assert names_in(backend.drive, other) == ["theirs.png"]


def test_listing_describes_files(backend: Backend) -> None:
    folder = backend.folder("inputs")
    data = png_bytes(9)
    backend.drive.write(folder, "top.png", data, "image/png")

    (listed,) = list(backend.drive.list(folder))

    assert isinstance(listed, DriveFile)
    assert listed.size == len(data)
    assert listed.modified_at.tzinfo is not None
    assert listed.revision
