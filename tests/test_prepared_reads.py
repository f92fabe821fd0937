"""The hot reads compiled once (config.prepared) and the serializers whose fields are built once
(config.serializers.FieldsBuiltOnce) answer exactly what the plain ORM and DRF answer."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import serializers

from accounts.models import ApiToken, User
from accounts.services import api_token_create, api_token_revoke, token_digest
from config.prepared import OneRow
from config.serializers import FieldsBuiltOnce
from jobs.models import Job
from jobs.selectors import QueueFigures, job_get
from jobs.serializers import JobOutputSerializer, JobSerializer
from jobs.services import job_fail, job_start, job_submit, job_succeed
from tests.support.factories import UserFactory
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

SLEEP = TOOLS["diagnostics.sleep"]


def model_state(obj: Any) -> dict[str, Any]:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


@pytest.mark.django_db
def test_a_token_read_is_the_orm_read_in_one_query_and_revocation_is_immediate(
        partner: User) -> None:
    token, raw = api_token_create(user=partner, name="ci")
    orm = ApiToken.objects.select_related("user", "user__organization").get(pk=token.pk)
    from accounts.authentication import _TOKEN

    with CaptureQueriesContext(connection) as seen:
        read = _TOKEN.get(digest=token_digest(raw))
        assert read is not None
        # the user and the organisation came with it: no further query
        assert read.user.organization is not None
        read.user.organization.name  # noqa: B018
    assert len(seen.captured_queries) == 1
    assert model_state(read) == model_state(orm)
    assert model_state(read.user) == model_state(orm.user)
    assert model_state(read.user.organization) == model_state(orm.user.organization)
    assert read._state.adding is False and read._state.db == "default"

    assert _TOKEN.get(digest=token_digest(raw + "x")) is None
    api_token_revoke(token=token)
    assert _TOKEN.get(digest=token_digest(raw)) is None


@pytest.mark.django_db
def test_a_token_is_refused_by_the_next_request_once_revoked_or_its_user_deactivated(
        partner: User) -> None:
    from rest_framework.test import APIClient

    for end in ("revoke", "deactivate"):
        token, raw = api_token_create(user=partner)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert client.get("/api/me/").status_code == 200
        if end == "revoke":
            ApiToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
        else:
            User.objects.filter(pk=partner.pk).update(is_active=False)
        assert client.get("/api/me/").status_code == 401
        User.objects.filter(pk=partner.pk).update(is_active=True)


@pytest.mark.django_db
def test_a_job_read_is_the_orm_read_and_only_the_organisations_own() -> None:
    mine, theirs = UserFactory(), UserFactory()
    job = job_submit(org=mine.organization, user=mine, tool=SLEEP, payload={"seconds": 0}).job
    read = job_get(org=mine.organization, job_id=job.pk)
    assert read is not None
    assert model_state(read) == model_state(Job.objects.get(pk=job.pk))
    assert job_get(org=theirs.organization, job_id=job.pk) is None
    assert job_get(org=mine.organization, job_id=uuid.uuid4()) is None
    # a job id given as text reads the same row
    text = job_get(org=mine.organization, job_id=str(job.pk))
    assert text is not None and text.pk == job.pk


def test_a_one_row_read_refuses_a_shape_it_cannot_fill() -> None:
    with pytest.raises(ValueError, match="each value must appear once"):
        OneRow(lambda job: Job.objects.filter(pk=job, batch_id=job)[:1],
               job=Job._meta.pk).get(job=uuid.uuid4())  # type: ignore[arg-type]


class PlainJobOutputSerializer(serializers.ModelSerializer):  # type: ignore[type-arg]
    """DRF's own, fields derived for every instance (what FieldsBuiltOnce must equal)."""

    url = serializers.SerializerMethodField()

    class Meta:
        model = JobOutputSerializer.Meta.model
        fields = JobOutputSerializer.Meta.fields

    get_url = JobOutputSerializer.get_url


class PlainJobSerializer(JobSerializer):
    """DRF's field by field representation of JobSerializer's declared fields (what its
    written-out `to_representation` must equal), with the queue figures as the API adds them."""

    outputs = PlainJobOutputSerializer(many=True, read_only=True)

    def get_fields(self) -> dict[str, Any]:
        return serializers.ModelSerializer.get_fields(self)

    def to_representation(self, instance: Job) -> dict[str, Any]:
        data = serializers.ModelSerializer.to_representation(self, instance)
        data["queue_position"], data["eta_seconds"] = QueueFigures().position_and_eta(instance)
        return data


def same(mine: dict[str, Any], plain: dict[str, Any]) -> bool:
    """The same representation, keys in the same order, but for an ETA that moved between
    the two reads: a running job's remainder follows the clock (here the first job's too,
    whose end the figures never hear of, the test's transaction never committing)."""
    mine, plain = dict(mine), dict(plain)
    eta, plain_eta = mine.pop("eta_seconds"), plain.pop("eta_seconds")
    close = eta == plain_eta or abs(eta - plain_eta) <= 0.2
    return close and list(mine.items()) == list(plain.items())


@pytest.mark.django_db
def test_fields_built_once_answer_what_drf_derives_for_every_instance() -> None:
    user = UserFactory()
    job = job_submit(org=user.organization, user=user, tool=SLEEP, payload={"seconds": 0}).job
    lease = job_start(job_id=job.pk).lease
    job_succeed(job=job, lease=lease,
                outputs=[EngineOutput(b'{"ok": 1}', "application/json", "r.json"),
                         EngineOutput(b'{"ok": 2}', "application/json", "s.json")])
    done = Job.objects.prefetch_related("outputs").get(pk=job.pk)
    outputs = list(done.outputs.all())
    FieldsBuiltOnce._built.clear()
    for context in ({}, {"signed_links": True}, {}):
        plain = PlainJobOutputSerializer(outputs, many=True, context=context).data
        assert JobOutputSerializer(outputs, many=True, context=context).data == plain
    # the job itself, built then copied, with and without signed links
    first = JobSerializer(done).data
    assert JobSerializer(done).data == first == PlainJobSerializer(done).data
    queued = job_submit(org=user.organization, user=user, tool=SLEEP,
                        payload={"seconds": 0}).job
    assert same(JobSerializer(queued).data, PlainJobSerializer(queued).data)
    # running, then failed (an error object, no outputs), in a batch, read as the API reads it
    batch = uuid.uuid4()
    Job.objects.filter(pk=queued.pk).update(batch_id=batch, input={"seconds": 0, "note": "é ☃"})
    lease = job_start(job_id=queued.pk).lease
    running = job_get(org=user.organization, job_id=queued.pk)
    assert running is not None and running.status == "running"
    mine = JobSerializer(running).data
    assert same(mine, PlainJobSerializer(running).data)
    assert mine["batch_id"] == str(batch) and mine["queue_position"] == 0
    job_fail(job_id=queued.pk, lease=lease, code="engine_error", message="Bad <input> \u2603")
    failed = job_get(org=user.organization, job_id=queued.pk)
    assert failed is not None
    assert JobSerializer(failed).data == PlainJobSerializer(failed).data
    assert JobSerializer(failed).data["error"] == {"code": "engine_error",
                                                   "message": "Bad <input> \u2603"}
    # a page of jobs, as the list answers it
    page = list(Job.objects.filter(pk__in=[done.pk, failed.pk]).prefetch_related("outputs"))
    mine_page = JobSerializer(page, many=True).data
    plain_page = PlainJobSerializer(page, many=True).data
    assert len(mine_page) == len(plain_page) == 2 and all(map(same, mine_page, plain_page))
    signed = JobSerializer(done, context={"signed_links": True}).data
    assert signed["outputs"][0]["url"] != first["outputs"][0]["url"]
    assert {k: v for k, v in signed.items() if k != "outputs"} == \
        {k: v for k, v in first.items() if k != "outputs"}
    assert list(first) == JobSerializer.Meta.fields
    assert first["id"] == str(done.pk) and first["status"] == "succeeded"
    assert first["created_at"] == serializers.DateTimeField().to_representation(done.created_at)
