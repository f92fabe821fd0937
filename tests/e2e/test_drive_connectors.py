"""An organisation admin connects the Recolor input folder to the team's S3 bucket from the
drive page, in the browser: the form is filled in as a person would, the key comes back
masked, the page lists the bucket's files and Test connection answers; a colleague who is not
an admin sees where the folder is and no control."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from accounts.models import User
from tests.drives.conftest import bucket, fake, fake_drive_server, moto_endpoint, s3_keys
from tests.e2e.conftest import partner_api, shot, sign_in

__all__ = ["bucket", "fake", "fake_drive_server", "moto_endpoint", "s3_keys"]  # fixtures
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

EMAIL, ORG = "admin@maison-storage.test", "Maison Storage"


def test_an_admin_connects_an_s3_bucket_from_the_drive_page(
        page: Any, live_server: Any, fake: Any, moto_endpoint: str, bucket: Any,
        s3_keys: dict[str, str]) -> None:
    bucket.put_object(Bucket=bucket.name, Key="looks/in/polo-beige.png", Body=b"\x89PNG-look")
    sign_in(page, "/", EMAIL, ORG)
    User.objects.filter(email=EMAIL).update(is_org_admin=True)
    api = partner_api(EMAIL, live_server)
    folder = next(f["folder"] for f in api.get("/api/drives/").json()
                  if f["tool"] == "recolor" and f["role"] == "input")

    page.goto(f"/drives/{folder}")
    page.get_by_text("Files are kept in the local folder.").wait_for()
    page.get_by_role("button", name="Connect a bucket or Drive folder").click()
    form = page.get_by_role("form", name="Connect this folder")
    form.get_by_label("Endpoint URL").fill(moto_endpoint)
    form.get_by_label("Region").fill("us-east-1")
    form.get_by_label("Bucket").fill(bucket.name)
    form.get_by_label("Prefix").fill("looks/in")
    form.get_by_label("Access key ID").fill(s3_keys["access_key_id"])
    form.get_by_label("Secret access key").fill(s3_keys["secret_access_key"])
    form.get_by_role("button", name="Connect").click()

    key = s3_keys["access_key_id"]
    page.get_by_text(f"Credentials: access key {key[:4]}••••{key[-4:]}").wait_for()
    expect(page.get_by_text(f"Connected to s3://{bucket.name}/looks/in/")).to_be_visible()
    table = page.get_by_role("table", name="Files in Input Drive")
    table.get_by_role("cell", name="polo-beige.png", exact=True).wait_for()
    page.get_by_role("button", name="Test connection").click()
    expect(page.get_by_role("status")).to_contain_text("1 file(s) listed")
    assert s3_keys["secret_access_key"] not in page.content()
    shot(page, "drive-connector-s3")

    colleague = "colleague@maison-storage.test"
    page.context.clear_cookies()
    sign_in(page, f"/drives/{folder}", colleague, ORG)
    page.get_by_text(f"Credentials: access key {key[:4]}••••{key[-4:]}").wait_for()
    expect(page.get_by_role("button", name="Test connection")).to_have_count(0)
    expect(page.get_by_role("button", name="Change connection")).to_have_count(0)
