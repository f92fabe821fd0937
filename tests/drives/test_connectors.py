"""Partner-managed drive connectors: an organisation's admins point its drive folders at their
own S3 bucket or Google Drive folder, through the API, against the S3-compatible server (moto,
with its IAM authentication on, so wrong keys are refused as AWS refuses them) and the
Drive-compatible server the drive client suites run, through boto3 and google-api-python-client.
"""

from __future__ import annotations

import json
import shutil
from typing import Any
from urllib.parse import urlsplit

import pytest
from rest_framework.test import APIClient

from drives.connectors import drive_credentials_reencrypt
from drives.models import DriveFolder
from drives.services import job_outputs_deliver
from jobs.services import job_start, job_submit, job_succeed
from tests.conftest import client_for
from tests.drives.conftest import s3_body, service_account
from tests.drivesync.conftest import png_bytes
from tests.support.factories import UserFactory
from tests.support.fake_drive import FakeDrive
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(fake: FakeDrive) -> Any:
    return UserFactory(is_org_admin=True)


@pytest.fixture
def admin_api(admin: Any) -> APIClient:
    return client_for(admin)


def folder_id(api: APIClient, tool: str, role: str) -> str:
    rows = api.get("/api/drives/").json()
    return next(r["folder"] for r in rows if r["tool"] == tool and r["role"] == role)


def connected(api: APIClient, tool: str, role: str, endpoint: str, s3: Any,
              keys: dict[str, str]) -> str:
    """The tool's folder, connected to the bucket's looks/in prefix."""
    folder = folder_id(api, tool, role)
    resp = api.put(f"/api/drives/{folder}/connector", s3_body(endpoint, s3, keys), format="json")
    assert resp.status_code == 200, resp.json()
    return folder


def keys_in(bucket: Any) -> list[str]:
    return sorted(o["Key"] for o in bucket.list_objects_v2(Bucket=bucket.name).get(
        "Contents", []))


def test_an_s3_bucket_feeds_a_tool_and_its_keys_never_come_back(
        admin: Any, admin_api: APIClient, moto_endpoint: str, bucket: Any,
        s3_keys: dict[str, str]) -> None:
    folder = folder_id(admin_api, "recolor", "input")

    resp = admin_api.put(f"/api/drives/{folder}/connector",
                         s3_body(moto_endpoint, bucket, s3_keys), format="json")

    assert resp.status_code == 200, resp.json()
    body = resp.json()
    assert (body["kind"], body["bucket"], body["prefix"]) == ("s3", bucket.name, "looks/in")
    secret, key_id = s3_keys["secret_access_key"], s3_keys["access_key_id"]
    assert body["credentials"] == f"access key {key_id[:4]}••••{key_id[-4:]}"
    stored = DriveFolder.objects.get(pk=folder)
    for text in (resp.content.decode(), stored.credentials_encrypted, stored.credentials_hint):
        assert secret not in text
    assert key_id not in resp.content.decode()
    assert keys_in(bucket) == []  # the probe file was removed
    colleague = client_for(UserFactory(organization=admin.organization))
    shown = colleague.get(f"/api/drives/{folder}/connector").json()
    assert (shown["credentials"], shown["can_manage"]) == (body["credentials"], False)

    # A file dropped in the bucket is what the tool's Get URLs lists, and its link reads it.
    image = png_bytes(7)
    bucket.put_object(Bucket=bucket.name, Key="looks/in/polo-beige.png", Body=image)
    urls = admin_api.get("/api/recoloring/urls").json()
    assert len(urls) == 1
    assert APIClient().get(urlsplit(urls[0]["img_url"]).path).content == image


def test_a_google_drive_folder_receives_the_tool_outputs_once(
        admin: Any, admin_api: APIClient, fake: FakeDrive, private_key: str) -> None:
    target = fake.add_folder("Recolor out")
    folder = folder_id(admin_api, "recolor", "output")
    account = service_account(fake, private_key)

    resp = admin_api.put(f"/api/drives/{folder}/connector", {
        "kind": "google", "service_account": json.dumps(account), "folder_id": target},
        format="json")

    assert resp.status_code == 200, resp.json()
    assert resp.json()["credentials"] == "atelier@maison.iam.gserviceaccount.com (key ••••y3c4)"
    assert private_key not in resp.content.decode()
    assert fake.token_grants[-1]["iss"] == account["client_email"]
    assert fake.children(target) == []  # the probe file was removed
    job = job_submit(org=admin.organization, user=admin, tool=TOOLS["recolor"], payload={
        "image_url": "https://cdn.maison.test/looks/polo-beige.jpg", "target_color": "#c5b299",
        "garment_type": "polo"}).job
    job_succeed(job=job, lease=job_start(job_id=job.pk).lease,
                outputs=[EngineOutput(b"\x89PNG-out", "image/png", "recolor.png")])

    assert job_outputs_deliver(job_id=job.pk) == 1
    assert job_outputs_deliver(job_id=job.pk) == 0
    (delivered,) = fake.children(target)
    assert delivered["name"] == f"polo-beige_recolor_{str(job.pk)[:8]}_0.png"
    assert fake.contents[delivered["id"]] == b"\x89PNG-out"


def test_a_google_folder_asks_for_one_token_however_many_files_are_read(
        admin_api: APIClient, fake: FakeDrive, private_key: str) -> None:
    source = fake.add_folder("Looks in")
    for i in range(3):
        fake.add_file(source, f"look-{i}.png", png_bytes(i), mime_type="image/png")
    folder = folder_id(admin_api, "recolor", "input")
    assert admin_api.put(f"/api/drives/{folder}/connector", {
        "kind": "google", "service_account": service_account(fake, private_key),
        "folder_id": source}, format="json").status_code == 200
    grants = len(fake.token_grants)  # the connection probe's

    urls = admin_api.get("/api/recoloring/urls").json()
    read = [APIClient().get(urlsplit(u["img_url"]).path).content for u in urls]

    assert read == [png_bytes(i) for i in range(3)]
    assert len(fake.token_grants) - grants == 1  # one token for the listing and three reads


@pytest.mark.parametrize(("change", "reason"), [
    ({"secret_access_key": "not-the-secret"}, "signature we calculated does not match"),
    ({"access_key_id": "AKIAUNKNOWNKEY000000"}, "does not exist in our records"),
    ({"bucket": "no-such-bucket-here"}, "bucket does not exist"),
    ({"endpoint_url": "http://127.0.0.1:9"}, "Could not connect to the endpoint URL"),
])
def test_refused_s3_credentials_are_a_400_with_the_drive_reason(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str],
        change: dict[str, str], reason: str) -> None:
    folder = folder_id(admin_api, "recolor", "input")

    resp = admin_api.put(f"/api/drives/{folder}/connector",
                         s3_body(moto_endpoint, bucket, s3_keys, **change), format="json")

    assert resp.status_code == 400
    assert reason in resp.json()["message"]
    assert "connection" in resp.json()["fields"]
    assert DriveFolder.objects.get(pk=folder).kind == "local"  # nothing kept


@pytest.mark.parametrize(("case", "reason"), [
    ("revoked key", "Invalid JWT Signature"),
    ("unknown folder", "File not found: 1NoSuchFolder"),
    ("broken key", "credentials cannot be used"),
])
def test_refused_google_credentials_are_a_400_with_the_drive_reason(
        admin_api: APIClient, fake: FakeDrive, private_key: str, case: str,
        reason: str) -> None:
    target = fake.add_folder("Looks")
    account = service_account(fake, private_key)
    if case == "revoked key":
        fake.refused_accounts.add(account["client_email"])
    elif case == "unknown folder":
        target = "1NoSuchFolder"
    else:
        account["private_key"] = "-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----"
    folder = folder_id(admin_api, "recolor", "input")

    resp = admin_api.put(f"/api/drives/{folder}/connector", {
        "kind": "google", "service_account": account, "folder_id": target}, format="json")

    assert resp.status_code == 400, resp.json()
    assert reason in resp.json()["message"]
    assert DriveFolder.objects.get(pk=folder).kind == "local"


def test_test_connection_says_what_the_drive_answers_now(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str]) -> None:
    folder = connected(admin_api, "recolor", "output", moto_endpoint, bucket, s3_keys)
    bucket.put_object(Bucket=bucket.name, Key="looks/in/a.png", Body=png_bytes(1))

    ok = admin_api.post(f"/api/drives/{folder}/connector/test")
    assert ok.status_code == 200
    assert ok.json()["ok"] is True
    assert ok.json()["files"] == 1
    assert ok.json()["message"].startswith(f"Connected to s3://{bucket.name}/looks/in/")

    bucket.delete_object(Bucket=bucket.name, Key="looks/in/a.png")
    bucket.delete_bucket(Bucket=bucket.name)
    gone = admin_api.post(f"/api/drives/{folder}/connector/test")
    assert gone.status_code == 400
    assert "bucket does not exist" in gone.json()["message"]


def test_an_edit_keeps_the_stored_keys_and_delete_goes_back_to_local(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str],
        settings: Any) -> None:
    folder = connected(admin_api, "recolor", "input", moto_endpoint, bucket, s3_keys)
    body = {k: v for k, v in s3_body(moto_endpoint, bucket, s3_keys, prefix="looks/v2").items()
            if k not in s3_keys}

    moved = admin_api.put(f"/api/drives/{folder}/connector", body, format="json")

    assert moved.status_code == 200, moved.json()
    assert moved.json()["prefix"] == "looks/v2"
    back = admin_api.delete(f"/api/drives/{folder}/connector")
    assert (back.status_code, back.json()["kind"], back.json()["credentials"]) == (200, "local", "")
    stored = DriveFolder.objects.get(pk=folder)
    assert (stored.credentials_encrypted, stored.locator.split("/")[1:]) == (
        "", ["recolor", "input"])
    shutil.rmtree(settings.DRIVES_ROOT)  # even with its local folder gone meanwhile
    back = admin_api.delete(f"/api/drives/{folder}/connector")
    assert back.status_code == 200
    assert admin_api.get(f"/api/drives/{folder}/files").json() == []  # the local folder again


def test_only_admins_change_or_test_a_connector(admin: Any, admin_api: APIClient) -> None:
    folder = folder_id(admin_api, "recolor", "input")
    partner = client_for(UserFactory(organization=admin.organization))
    body = {"kind": "google", "service_account": "{}", "folder_id": "x"}

    assert partner.get(f"/api/drives/{folder}/connector").status_code == 200
    assert partner.put(f"/api/drives/{folder}/connector", body, format="json").status_code == 403
    assert partner.delete(f"/api/drives/{folder}/connector").status_code == 403
    assert partner.post(f"/api/drives/{folder}/connector/test").status_code == 403
    stranger = client_for(UserFactory(is_org_admin=True))
    assert stranger.get(f"/api/drives/{folder}/connector").status_code == 404
    assert stranger.put(f"/api/drives/{folder}/connector", body,
                        format="json").status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"endpoint_url": "http://169.254.169.254/"}, "endpoint_url"),
    ({"endpoint_url": "http://10.0.0.8:9000"}, "endpoint_url"),
    ({"endpoint_url": "ftp://s3.maison.test"}, "endpoint_url"),
    ({"bucket": "a/b"}, "bucket"),
    ({"prefix": "../up"}, "prefix"),
    ({"secret_access_key": ""}, "secret_access_key"),
    ({"kind": "google", "service_account": "not json", "folder_id": "abc"}, "service_account"),
    ({"kind": "google", "service_account": {"type": "service_account"}, "folder_id": "a"},
     "service_account"),
    ({"kind": "google", "folder_id": "a", "service_account": {
        "type": "service_account", "client_email": "a@b.c", "private_key": "k" * 30_000}},
     "service_account"),
    ({"kind": "google", "folder_id": "a", "service_account": {
        "type": "service_account", "client_email": "a@b.c", "private_key": "k",
        "token_uri": "http://169.254.169.254/token"}}, "service_account"),
    ({"kind": "google", "folder_id": "../x", "service_account": {
        "type": "service_account", "client_email": "a@b.c", "private_key": "k"}}, "folder_id"),
    ({"kind": "local"}, "kind"),
    ({"bucket": 42}, "bucket"),
])
def test_what_cannot_make_a_connector_is_refused_by_field(
        admin_api: APIClient, settings: Any, body: dict[str, Any], field: str) -> None:
    settings.OUTBOUND_ALLOW = []
    folder = folder_id(admin_api, "recolor", "input")
    payload = {"kind": "s3", "bucket": "maison", "access_key_id": "AKIAEXAMPLE000000000",
               "secret_access_key": "secret", **body}

    resp = admin_api.put(f"/api/drives/{folder}/connector", payload, format="json")

    assert resp.status_code == 400, resp.json()
    assert field in resp.json()["fields"]


def test_a_secret_rotation_keeps_the_folders_credentials_readable(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str],
        settings: Any) -> None:
    settings.PROVIDER_KEYS_SECRET = ["old secret, long enough to be random"]
    folder = connected(admin_api, "recolor", "input", moto_endpoint, bucket, s3_keys)

    settings.PROVIDER_KEYS_SECRET = ["new secret, long enough to be random",
                                     "old secret, long enough to be random"]
    assert drive_credentials_reencrypt() == 1
    settings.PROVIDER_KEYS_SECRET = ["new secret, long enough to be random"]

    assert admin_api.post(f"/api/drives/{folder}/connector/test").json()["ok"] is True


def test_credentials_no_secret_can_read_are_entered_again_not_a_500(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str],
        settings: Any) -> None:
    settings.PROVIDER_KEYS_SECRET = ["a secret that is then lost, long enough to be random"]
    folder = connected(admin_api, "recolor", "input", moto_endpoint, bucket, s3_keys)
    settings.PROVIDER_KEYS_SECRET = ["another secret, long enough to be random"]
    without_keys = {k: v for k, v in s3_body(moto_endpoint, bucket, s3_keys).items()
                    if k not in s3_keys}

    tested = admin_api.post(f"/api/drives/{folder}/connector/test")
    kept = admin_api.put(f"/api/drives/{folder}/connector", without_keys, format="json")
    listed = admin_api.get(f"/api/drives/{folder}/files")
    entered = admin_api.put(f"/api/drives/{folder}/connector",
                            s3_body(moto_endpoint, bucket, s3_keys), format="json")

    assert tested.status_code == 400 and "enter them again" in tested.json()["message"]
    assert kept.status_code == 400 and "access_key_id" in kept.json()["fields"]
    assert listed.status_code == 400 and "enter them again" in listed.json()["message"]
    assert entered.status_code == 200


def test_a_bucket_gone_since_it_was_connected_is_a_400_everywhere_it_is_read(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str]) -> None:
    """Sync, Clean Input and the drive browser say what the drive answered."""
    folder = connected(admin_api, "spinview", "input", moto_endpoint, bucket, s3_keys)
    bucket.delete_bucket(Bucket=bucket.name)

    answers = [admin_api.post("/api/catalog-video/sync", {}, format="json"),
               admin_api.delete("/api/catalog-video/inputs", {"codes": ["SKU1"]}, format="json"),
               admin_api.get(f"/api/drives/{folder}/files")]

    assert [a.status_code for a in answers] == [400, 400, 404], [a.json() for a in answers]
    assert all("bucket does not exist" in a.json()["message"] for a in answers)


def test_a_job_whose_input_drive_refuses_fails_with_the_drive_words(
        admin_api: APIClient, moto_endpoint: str, bucket: Any, s3_keys: dict[str, str]) -> None:
    from workers.engines.base import EngineError
    from workers.inputs import inputs_resolve

    folder = connected(admin_api, "spinview", "input", moto_endpoint, bucket, s3_keys)
    bucket.delete_bucket(Bucket=bucket.name)

    with pytest.raises(EngineError) as refused:
        inputs_resolve({"_sources": {"image": {"drive": {"folder": folder, "file": "a.png"}}}},
                       url_inputs={})

    assert refused.value.code == "input_missing"
    assert "bucket does not exist" in refused.value.message
