from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from webhooks.models import BatchCompletion, DeliveryStatus, Webhook, WebhookDelivery
from webhooks.services import delivery_redeliver


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ["url", "organization", "active", "per_request", "consecutive_failures",
                    "created_at"]
    list_filter = ["active", "per_request", "organization"]
    exclude = ["secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "webhook", "event", "status", "attempts", "response_code",
                    "created_at"]
    list_filter = ["status", "event"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]
    search_fields = ["=id", "webhook__url", "url"]
    actions = ["redeliver"]

    @admin.action(description="Redeliver the selected deliveries")
    def redeliver(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        # Same delivery id: receivers drop a repeat they already handled.
        # One being sent right now is left to finish its attempt (delivery_redeliver).
        done = skipped = 0
        for delivery in queryset:
            if delivery_redeliver(delivery=delivery).status == DeliveryStatus.PENDING:
                done += 1
            else:
                skipped += 1
        self.message_user(request, f"{done} deliver{'y' if done == 1 else 'ies'} queued to be "
                          f"sent again; {skipped} skipped (being sent).",
                          messages.SUCCESS if done else messages.WARNING)


admin.site.register(BatchCompletion)
