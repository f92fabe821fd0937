from django.contrib import admin

from webhooks.models import BatchCompletion, Webhook, WebhookDelivery


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ["url", "organization", "active", "consecutive_failures", "created_at"]
    list_filter = ["active", "organization"]
    exclude = ["secret"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "webhook", "event", "status", "attempts", "response_code",
                    "created_at"]
    list_filter = ["status", "event"]
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]


admin.site.register(BatchCompletion)
