from config.routing import both
from webhooks.apis import (
    DeliveryListApi,
    RedeliverApi,
    RequestDeliveryListApi,
    RequestSecretApi,
    WebhookDetailApi,
    WebhookListApi,
    WebhookTestApi,
)

urlpatterns = [
    *both("webhooks/", WebhookListApi.as_view(), "webhook-list"),
    *both("webhooks/request-secret/", RequestSecretApi.as_view(), "webhook-request-secret"),
    *both("webhooks/request-deliveries/", RequestDeliveryListApi.as_view(),
          "webhook-request-deliveries"),
    *both("webhooks/<uuid:webhook_id>/", WebhookDetailApi.as_view(), "webhook-detail"),
    *both("webhooks/<uuid:webhook_id>/test/", WebhookTestApi.as_view(), "webhook-test"),
    *both("webhooks/<uuid:webhook_id>/deliveries/", DeliveryListApi.as_view(),
          "webhook-deliveries"),
    *both("webhooks/<uuid:webhook_id>/deliveries/<uuid:delivery_id>/redeliver/",
          RedeliverApi.as_view(), "webhook-redeliver"),
]
