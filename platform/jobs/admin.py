from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from config.errors import Conflict
from jobs.models import Activity, Job, JobOutput
from jobs.services import job_cancel, job_retry


class JobOutputInline(admin.TabularInline):
    model = JobOutput
    extra = 0
    readonly_fields = ["index", "file", "filename", "content_type", "size", "sha256"]


def flower_url() -> str:
    """Where ops' Flower answers (the FLOWER_URL setting)."""
    return str(getattr(settings, "FLOWER_URL", "") or "http://127.0.0.1:5555").rstrip("/")


class ErrorCodeFilter(admin.SimpleListFilter):
    """The error codes jobs actually failed with, so ops can see all jobs of one failure."""

    title = "error code"
    parameter_name = "error_code"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        codes = (Job.objects.exclude(error_code="").order_by("error_code")
                 .values_list("error_code", flat=True).distinct())
        return [(code, code) for code in codes]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Job]) -> QuerySet[Job]:
        value = self.value()
        return queryset.filter(error_code=value) if value else queryset


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "organization", "tool", "status", "progress", "attempts", "created_at",
                    "finished_at"]
    list_filter = ["status", "tool", "queue", ErrorCodeFilter, "organization"]
    # Exact ids: a job's or its batch's id pasted from a partner's report.
    search_fields = ["=id", "=batch_id", "idempotency_key"]
    search_help_text = "A job id, a batch id or an idempotency key."
    readonly_fields = [f.name for f in Job._meta.fields] + ["flower"]
    inlines = [JobOutputInline]
    actions = ["retry_jobs", "cancel_jobs"]
    date_hierarchy = "created_at"

    def _bulk(self, request: HttpRequest, queryset: QuerySet[Job], action: Any,
              verb: str) -> None:
        done = skipped = 0
        for job in queryset:
            try:
                action(job=job)
                done += 1
            except Conflict:
                skipped += 1
        self.message_user(request, f"{done} job(s) {verb}; {skipped} skipped (wrong state).",
                          messages.SUCCESS if done else messages.WARNING)

    @admin.display(description="Flower")
    def flower(self, job: Job) -> str:
        # The Celery task id is the job id plus a suffix drawn at each enqueue (job_enqueue)
        # and is not stored, so there is no /task/<id> page to link to. Flower's tasks page
        # takes no search from its address (only state, worker and name), but its task API
        # does: it lists every enqueue's task of the job (the job id is the task's argument
        # and starts its id) with state, worker, times and traceback.
        if not job.pk:
            return "-"
        base = flower_url()
        return format_html(
            '<a href="{}" target="_blank" rel="noopener">This job\'s tasks in Flower</a> '
            "(each by its task id, which starts with the job id: open one at "
            '<a href="{}" target="_blank" rel="noopener">Flower</a>/task/&lt;task id&gt;)',
            f"{base}/api/tasks?{urlencode({'search': str(job.pk)})}", f"{base}/tasks")

    @admin.action(description="Retry the selected failed or canceled jobs")
    def retry_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        self._bulk(request, queryset, job_retry, "queued again")

    @admin.action(description="Cancel the selected queued or running jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        self._bulk(request, queryset, job_cancel, "canceled")


@admin.register(Activity)
class ActivityAdmin(admin.ModelAdmin):
    list_display = ["timestamp", "organization", "tool", "action", "shown_status"]
    # The status a job's entry shows is its job's (Activity.shown): filter jobs by theirs.
    list_filter = ["tool", "organization"]
    list_select_related = ["job", "organization"]
