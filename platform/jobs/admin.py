from django.contrib import admin

from jobs.models import Activity, Job, JobOutput


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


@admin.register(Activity)
class ActivityAdmin(admin.ModelAdmin):
    list_display = ["timestamp", "organization", "tool", "action", "status"]
    list_filter = ["status", "tool", "organization"]
