"""The `atelier` CLI and SDK against a live stack (the live server and a real Celery worker):
a folder of 10 photos uploaded to Recolor's input folder, cards made from the Get URLs call,
the batch run, followed and downloaded; a second upload sends nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from accounts.services import api_token_create
from tests.support.factories import UserFactory
from tests.support.processes import CeleryProcess

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

GARMENTS = Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "garment"


@pytest.fixture
def cli_env(live_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    user = UserFactory()
    _, raw = api_token_create(user=user, name="cli")
    env = {"ATELIER_URL": live_server.url, "ATELIER_TOKEN": raw,
           "ATELIER_CONFIG": str(tmp_path / "config" / "atelier.json")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def photos(folder: Path, count: int = 10) -> list[Path]:
    """COUNT small, distinct garment photos (the engine's minimum is 256 px a side)."""
    folder.mkdir()
    sources = sorted(GARMENTS.glob("*.jpg"))
    made = []
    for i in range(count):
        with Image.open(sources[i % len(sources)]) as img:
            img = img.convert("RGB")
            scale = (300 + 8 * i) / min(img.size)
            img = img.resize((round(img.width * scale), round(img.height * scale)))
            path = folder / f"look-{i:02}.jpg"
            img.save(path, quality=85)
        made.append(path)
    return made


def atelier(*args: str) -> Any:
    from atelier.cli import app

    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result


def test_login_and_token(cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ATELIER_TOKEN")
    assert atelier("token").exit_code == 2  # nothing stored yet
    result = atelier("login", "--url", cli_env["ATELIER_URL"], "--token", cli_env["ATELIER_TOKEN"])
    assert result.exit_code == 0, result.output
    assert "Signed in as" in result.output
    stored = Path(cli_env["ATELIER_CONFIG"])
    assert stored.stat().st_mode & 0o077 == 0  # the token is the user's alone
    assert atelier("token").output.strip() == cli_env["ATELIER_TOKEN"]
    bad = atelier("login", "--url", cli_env["ATELIER_URL"], "--token", "atl_not-a-token")
    assert bad.exit_code == 1 and "401" in bad.output


def test_run_refuses_unknown_columns_and_lists_fields(cli_env: dict[str, str],
                                                      tmp_path: Path) -> None:
    cards = tmp_path / "cards.csv"
    cards.write_text("image_url,colour\nhttps://cdn.example.com/a.jpg,#ffffff\n")
    result = atelier("run", "recolor", "--cards", str(cards))
    assert result.exit_code == 1 and "Unknown column 'colour'" in result.output
    assert "target_color" in result.output
    fields = atelier("run", "reshape", "--fields")
    assert fields.exit_code == 0 and "changes.0.place" in fields.output
    direct = atelier("run", "try-on", "--garment", "https://cdn.example.com/g.jpg")
    assert direct.exit_code == 1 and "--modelUrl" in direct.output


def test_upload_run_wait_download_a_folder_of_ten(
    cli_env: dict[str, str], tmp_path: Path, worker: CeleryProcess
) -> None:
    from atelier import Atelier

    made = photos(tmp_path / "looks")
    result = atelier("upload", str(tmp_path / "looks"), "--tool", "recolor", "--parallel", "3")
    assert result.exit_code == 0, result.output
    assert "10 uploaded, 0 already there" in result.output

    again = atelier("upload", str(tmp_path / "looks"), "--tool", "recolor")
    assert again.exit_code == 0 and "0 uploaded, 10 already there" in again.output

    made_csv = atelier("urls", "recolor", "--csv", "--set", "target_color=#C5B299",
                       "--set", "garment_type=polo")
    assert made_csv.exit_code == 0, made_csv.output
    cards = tmp_path / "cards.csv"
    cards.write_text(made_csv.output)
    lines = made_csv.output.strip().splitlines()
    assert lines[0] == "image_url,target_color,garment_type" and len(lines) == 11
    assert all(line.startswith(cli_env["ATELIER_URL"] + "/api/drives/files/")
               for line in lines[1:])

    ran = atelier("run", "recolor", "--cards", str(cards))
    assert ran.exit_code == 0, ran.output
    match = re.search(r"batch ([0-9a-f-]{36}): 10 jobs", ran.output)
    assert match, ran.output
    batch = match.group(1)

    updates: list[Any] = []
    with Atelier(cli_env["ATELIER_URL"], cli_env["ATELIER_TOKEN"]) as sdk:
        final = sdk.jobs.subscribe(batch, on_update=updates.append, timeout=280,
                                   max_interval=0.5)
    assert final.total == 10 and final.done == 10, [j.get("error") for j in final.jobs]
    assert len(updates) >= 2
    assert any(u.status == "queued" and u.queue_position is not None for u in updates) or any(
        u.running for u in updates)
    assert any(u.progress is not None and 0 < u.progress < 1 for u in updates)
    assert updates[-1].finished

    waited = atelier("wait", batch)
    assert waited.exit_code == 0, waited.output
    assert "10 succeeded, 0 failed of 10" in waited.output

    out = tmp_path / "out"
    got = atelier("download", batch, str(out))
    assert got.exit_code == 0, got.output
    files = sorted(out.iterdir())
    assert len(files) == 10 and len(made) == 10
    for path in files:
        with Image.open(path) as img:
            assert img.size[0] >= 256
    listed = atelier("jobs", "--batch", batch, "--json")
    assert listed.exit_code == 0 and listed.output.count('"status": "succeeded"') == 10


def test_run_passes_a_webhook_url(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`--webhook-url` (and the SDK's `webhook_url=`) reach the submit: each job of the batch
    will announce its end there; a URL the stack refuses is the command's error."""
    from webhooks.models import JobCallback

    from jobs.models import Job

    url = "https://93.184.215.14/hooks/atelier"  # a public address: nothing is called here
    cards = tmp_path / "cards.csv"
    cards.write_text("image_url,target_color,garment_type\n"
                     "https://cdn.example.com/a.jpg,#C5B299,polo\n"
                     "https://cdn.example.com/b.jpg,#C5B299,polo\n")

    result = atelier("run", "recolor", "--cards", str(cards), "--webhook-url", url)

    assert result.exit_code == 0, result.output
    jobs = list(Job.objects.values_list("pk", flat=True))
    assert len(jobs) == 2
    assert sorted(JobCallback.objects.values_list("job_id", "url")) == sorted(
        (job, url) for job in jobs)
    refused = atelier("run", "recolor", "--cards", str(cards), "--webhook-url",
                      "http://10.0.0.8/hook")
    assert refused.exit_code == 1 and "private" in refused.output
