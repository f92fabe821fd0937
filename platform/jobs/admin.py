from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from config.errors import Conflict
from jobs.models import Activity, Job, JobOutput
from jobs.services import job_cancel, job_retry


class JobOutputInline(admin.TabularInline):
    model = JobOutput
    extra = 0
    readonly_fields = ["index", "file", "filename", "content_type", "size", "sha256"]


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "organization", "tool", "status", "progress", "attempts", "created_at",
                    "finished_at"]
    list_filter = ["status", "tool", "queue", "organization"]
    search_fields = ["id", "idempotency_key"]
    readonly_fields = [f.name for f in Job._meta.fields]
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

    @admin.action(description="Retry the selected failed or canceled jobs")
    def retry_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        self._bulk(request, queryset, job_retry, "queued again")

    @admin.action(description="Cancel the selected queued or running jobs")
    def cancel_jobs(self, request: HttpRequest, queryset: QuerySet[Job]) -> None:
        self._bulk(request, queryset, job_cancel, "canceled")


@admin.register(Activity)
class ActivityAdmin(admin.ModelAdmin):
    list_display = ["timestamp", "organization", "tool", "action", "status"]
    list_filter = ["status", "tool", "organization"]
