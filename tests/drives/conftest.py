"""The S3-compatible and Drive-compatible servers of the drive client suites, set up for
connectors: moto with IAM authentication on (wrong keys are refused as AWS refuses them), and
the Drive server with a service account whose token it grants."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.drivesync.conftest import fake_drive_server, moto_endpoint
from tests.support.fake_drive import FakeDrive

__all__ = ["fake_drive_server", "moto_endpoint"]  # the drive client suites' servers, reused


@pytest.fixture(scope="module")
def s3_keys(moto_endpoint: str) -> Iterator[dict[str, str]]:
    """An IAM user allowed s3:*, then authentication switched on: from here the server
    refuses unknown keys and bad signatures with AWS's own codes and messages."""
    iam = boto3.client("iam", endpoint_url=moto_endpoint, region_name="us-east-1",
                       aws_access_key_id="testing", aws_secret_access_key="testing")  # noqa: S106
    name = f"atelier-{uuid.uuid4().hex[:8]}"
    iam.create_user(UserName=name)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    iam.put_user_policy(UserName=name, PolicyName="s3", PolicyDocument=json.dumps({
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
    requests.post(f"{moto_endpoint}/moto-api/reset-auth", data=b"0", timeout=10)
    try:
        yield {"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"]}
    finally:  # the other suites' clients sign with made-up keys
        requests.post(f"{moto_endpoint}/moto-api/reset-auth", data=b"inf", timeout=10)


@pytest.fixture
def bucket(moto_endpoint: str, s3_keys: dict[str, str]) -> Any:
    s3 = boto3.client("s3", endpoint_url=moto_endpoint, region_name="us-east-1",
                      aws_access_key_id=s3_keys["access_key_id"],
                      aws_secret_access_key=s3_keys["secret_access_key"])
    name = f"maison-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    s3.name = name
    return s3


@pytest.fixture(scope="module")
def private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


@pytest.fixture
def fake(fake_drive_server: FakeDrive, settings: Any, tmp_path: Any) -> FakeDrive:
    fake_drive_server.reset()
    settings.GOOGLE_DRIVE_API_URL = fake_drive_server.base_url
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    settings.DRIVES_ROOT = tmp_path / "drives"
    return fake_drive_server



def service_account(fake: FakeDrive, private_key: str) -> dict[str, str]:
    return {"type": "service_account", "project_id": "maison", "private_key_id": "k1e2y3c4",
            "private_key": private_key,
            "client_email": "atelier@maison.iam.gserviceaccount.com", "client_id": "1",
            "token_uri": fake.base_url + "token"}


def s3_body(endpoint: str, s3: Any, keys: dict[str, str], /, **changes: Any) -> dict:
    return {"kind": "s3", "endpoint_url": endpoint, "region": "us-east-1",
            "bucket": s3.name, "prefix": "looks/in", **keys, **changes}
