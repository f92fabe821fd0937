from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from accounts.models import Organization


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELED = "canceled"


ACTIVE_STATUSES = (JobStatus.QUEUED, JobStatus.RUNNING)
FINAL_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELED)


class Job(models.Model):
    """One piece of work. The database is the source of truth; the broker only carries ids."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: job_org_created and job_org_status lead with it (every status
    # change writes each index of the row).
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="jobs",
                                     db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    tool = models.CharField(max_length=64)
    queue = models.CharField(max_length=32)
    # What a run needs, copied from the tool at submit, so that the job core and the worker
    # read the row and never the tool catalogue. Empty on rows older than these columns: the
    # queue's limits and a default ETA seed stand in (jobs.kinds).
    engine_name = models.CharField(max_length=64, blank=True, default="")
    soft_limit = models.PositiveIntegerField(null=True, blank=True)
    hard_limit = models.PositiveIntegerField(null=True, blank=True)
    expected_seconds = models.FloatField(null=True, blank=True)
    # Which engine made the result (`local`, `fashn:tryon-v1.6`, ...) and its tier (`preview`
    # for the local engine of a generative tool, `studio` for a provider), set when a run
    # ends; empty while it has not.
    made_by = models.CharField(max_length=128, blank=True, default="")
    tier = models.CharField(max_length=16, blank=True, default="")
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)
    input = models.JSONField(default=dict)
    error_code = models.CharField(max_length=64, blank=True, default="")
    error_message = models.TextField(blank=True, default="")
    attempts = models.PositiveSmallIntegerField(default=0)
    # Token of the run that owns the job while it is running: every write of a run is guarded
    # by it, so a run that was given up on (stale heartbeat) can never finish the job.
    lease = models.UUIDField(null=True, blank=True)
    # Where the run that holds the lease lives (host name and process id), set when it takes
    # the job: a redelivered task on the same host sees at once that the process is gone.
    run_host = models.CharField(max_length=255, blank=True, default="")
    run_pid = models.PositiveIntegerField(null=True, blank=True)
    # How many outputs the run that succeeded stored; None before it (and on older rows).
    output_count = models.PositiveIntegerField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    enqueue_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    idempotency_key = models.CharField(max_length=255, null=True, blank=True)
    request_digest = models.CharField(max_length=64, blank=True, default="")
    batch_id = models.UUIDField(null=True, blank=True)
    # While a delivery of the outputs to the output drive runs: until when it owns them, so
    # that two deliveries never upload at once (a drive may hold two files of one name).
    delivering_until = models.DateTimeField(null=True, blank=True)
    source_drive_file = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "idempotency_key"],
                condition=models.Q(idempotency_key__isnull=False),
                name="job_idempotency_key_unique_per_org",
            )
        ]
        indexes = [
            models.Index(fields=["status", "queue", "created_at"], name="job_status_queue_created"),
            models.Index(fields=["organization", "-created_at"], name="job_org_created"),
            # the per-organisation cap on active jobs, checked on every submit
            models.Index(fields=["organization", "status"], name="job_org_status"),
            # A tool's last runs (the ETA's seed when Redis has none): only ended jobs, so
            # that taking a job, which sets no finish time, writes nothing to it.
            models.Index(fields=["tool", "status", "finished_at"], name="job_tool_status_finished",
                         condition=models.Q(finished_at__isnull=False)),
            # a batch's jobs; most jobs are in none
            models.Index(fields=["batch_id"], name="job_batch",
                         condition=models.Q(batch_id__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.tool} {self.id} ({self.status})"


class JobOutput(models.Model):
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="outputs")
    index = models.PositiveSmallIntegerField()
    file = models.FileField(max_length=500)
    filename = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    # Where the output was delivered (its output drive folder and file id), once it was.
    drive_folder = models.ForeignKey("drives.DriveFolder", null=True, blank=True,
                                     on_delete=models.SET_NULL)
    drive_file_id = models.CharField(max_length=500, blank=True, default="")
    # An output of a drive tool not yet in its output folder. Only these rows are in the
    # partial index below, so finding the lost deliveries costs the same whatever the history.
    awaiting_delivery = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="job_output_unique_index")
        ]
        indexes = [
            models.Index(fields=["job"], name="joboutput_awaiting_delivery",
                         condition=models.Q(awaiting_delivery=True)),
        ]


class JobEvent(models.Model):
    """The outbox: an ended job's event, written in the transaction that ends it and taken
    (deleted) by the webhook dispatcher, which matches it with subscriptions and the job's
    batch then. Only events not yet dispatched are here, so the table stays small."""

    id = models.BigAutoField(primary_key=True)
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="+")
    # job.succeeded, job.failed, or job.canceled (no webhook of its own, but it may end a batch)
    event = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]


class ActivityStatus(models.TextChoices):
    PROCESSING = "Processing"
    SUCCESS = "Success"
    ERROR = "Error"


class Activity(models.Model):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="activities"
    )
    tool = models.CharField(max_length=64)
    job = models.ForeignKey(Job, null=True, blank=True, on_delete=models.SET_NULL)
    timestamp = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=ActivityStatus.choices)
    details = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-timestamp", "-id"]
        verbose_name_plural = "activities"
        indexes = [
            models.Index(fields=["organization", "tool", "-timestamp"], name="activity_org_tool_ts")
        ]

    def shown(self) -> tuple[str, str]:
        """(status, details) as partners see them. A job's entry is written once, at submit
        (and at a retry); once the job has ended, they are read from the job, so that ending
        a job does not write its entry too."""
        job = self.job
        if job is None or job.status in ACTIVE_STATUSES:
            return self.status, self.details
        if job.status == JobStatus.SUCCEEDED:
            if job.output_count is None:  # ended before the job kept its count
                return self.status, self.details
            return ActivityStatus.SUCCESS, f"Finished with {job.output_count} output(s)."
        if job.status == JobStatus.CANCELED:
            return ActivityStatus.ERROR, "Canceled."
        return ActivityStatus.ERROR, job.error_message

    @property
    def shown_status(self) -> str:
        return self.shown()[0]

    @property
    def shown_details(self) -> str:
        return self.shown()[1]
