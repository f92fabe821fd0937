from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import request_org, request_partner
from config.serializers import StrictSerializer
from webhooks.models import Webhook, WebhookDelivery, WebhookEvent
from webhooks.sending import DestinationRefused
from webhooks.services import (
    delivery_redeliver,
    event_emit,
    request_signer,
    request_signer_rotate,
    webhook_create,
    webhook_update,
)

SIGNING_DOC = """
Every delivery is a POST with a JSON body `{"id", "event", "created_at", "data"}` and headers
`Atelier-Event`, `Atelier-Delivery` (the delivery id: a receiver may see a delivery more than
once, and should drop repeats by this id) and `Atelier-Signature: t=<unix>,v1=<hex>` where
`v1 = HMAC-SHA256(secret, "<t>.<raw body>")`. Reject a timestamp older than 5 minutes.

Python:

    import hmac, hashlib, time
    def verify(secret, header, body):
        parts = dict(p.split("=", 1) for p in header.split(","))
        mac = hmac.new(secret.encode(), f"{parts['t']}.".encode() + body, hashlib.sha256)
        return (hmac.compare_digest(mac.hexdigest(), parts["v1"])
                and abs(time.time() - int(parts["t"])) < 300)

JavaScript (Node):

    const crypto = require('crypto');
    function verify(secret, header, rawBody) {
      const parts = Object.fromEntries(header.split(',').map((p) => p.split('=')));
      const mac = crypto.createHmac('sha256', secret)
        .update(`${parts.t}.`).update(rawBody).digest('hex');
      return crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(parts.v1))
        && Math.abs(Date.now() / 1000 - Number(parts.t)) < 300;
    }

Webhook URLs must be https (http only for hosts the deployment exempts, inside its network).
Failed deliveries (timeouts, 429, 5xx) are retried about 8 times over a day with backoff;
other 4xx answers stop them. An endpoint that keeps failing is switched off.

Deliveries also carry the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and
`webhook-signature`, signed with the same secret:

    from standardwebhooks.webhooks import Webhook
    Webhook(secret).verify(raw_body, request_headers)  # raises when forged or stale
"""

REQUEST_DOC = """
Any job submit (`POST /api/<tool>/...`) takes an optional `?webhook_url=` query parameter:
the job's `job.succeeded` or `job.failed` event is also POSTed there, once (a batch: once per
job), with the same body, headers and retries as the registered webhooks'. Those deliveries
are signed with the organisation's per-request secret, read here.
"""


class WebhookSerializer(serializers.ModelSerializer):
    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "active", "disabled_reason", "consecutive_failures",
                  "created_at"]


class WebhookInput(StrictSerializer):
    url = serializers.URLField(max_length=1000)
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices),
                                   allow_empty=False, max_length=len(WebhookEvent.choices))
    active = serializers.BooleanField(default=True)


class WebhookPatch(StrictSerializer):
    url = serializers.URLField(max_length=1000, required=False)
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices),
                                   allow_empty=False, required=False)
    active = serializers.BooleanField(required=False)


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = ["id", "event", "status", "attempts", "response_code", "response_ms",
                  "last_error", "next_attempt_at", "created_at", "finished_at", "payload"]


def webhook_or_404(request: Request, webhook_id: Any) -> Webhook:
    return get_object_or_404(Webhook, organization=request_org(request), pk=webhook_id,
                             per_request=False)


def _refused(exc: DestinationRefused) -> ValidationError:
    return ValidationError({"url": [str(exc)]})


class WebhookListApi(APIView):
    class CreatedSerializer(WebhookSerializer):
        class Meta(WebhookSerializer.Meta):
            fields = [*WebhookSerializer.Meta.fields, "secret"]

    @extend_schema(responses=WebhookSerializer(many=True), description=SIGNING_DOC)
    def get(self, request: Request) -> Response:
        hooks = Webhook.objects.filter(organization=request_org(request), per_request=False)
        return Response(WebhookSerializer(hooks, many=True).data)

    @extend_schema(request=WebhookInput, responses={201: CreatedSerializer},
                   description="Register an endpoint. The signing secret is in this answer "
                               "only.\n" + SIGNING_DOC)
    def post(self, request: Request) -> Response:
        data = WebhookInput.validated(request.data)
        try:
            hook = webhook_create(org=request_org(request), user=request_partner(request),
                                  url=data["url"], events=sorted(set(data["events"])),
                                  active=data["active"])
        except DestinationRefused as exc:
            raise _refused(exc) from exc
        return Response(self.CreatedSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    @extend_schema(responses=WebhookSerializer)
    def get(self, request: Request, webhook_id: Any) -> Response:
        return Response(WebhookSerializer(webhook_or_404(request, webhook_id)).data)

    @extend_schema(request=WebhookPatch, responses=WebhookSerializer)
    def patch(self, request: Request, webhook_id: Any) -> Response:
        hook = webhook_or_404(request, webhook_id)
        changes = dict(WebhookPatch.validated(request.data))
        try:
            hook = webhook_update(webhook=hook, **changes)
        except DestinationRefused as exc:
            raise _refused(exc) from exc
        return Response(WebhookSerializer(hook).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, webhook_id: Any) -> Response:
        webhook_or_404(request, webhook_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookTestApi(APIView):
    @extend_schema(request=None, responses={202: DeliverySerializer})
    def post(self, request: Request, webhook_id: Any) -> Response:
        hook = webhook_or_404(request, webhook_id)
        event = hook.events[0] if hook.events else WebhookEvent.JOB_SUCCEEDED
        deliveries = event_emit(org_id=hook.organization_id, event=event,
                                data={"test": True, "webhook_id": str(hook.pk)})
        mine = [d for d in deliveries if d.webhook_id == hook.pk]
        if not mine:
            raise ValidationError({"active": ["The webhook is switched off."]})
        return Response(DeliverySerializer(mine[0]).data, status=status.HTTP_202_ACCEPTED)


class RequestSecretApi(APIView):
    """The secret that signs the deliveries to per-request `webhook_url`s."""

    class OutputSerializer(serializers.Serializer):
        secret = serializers.CharField()

    @extend_schema(responses=OutputSerializer, description=REQUEST_DOC + SIGNING_DOC)
    def get(self, request: Request) -> Response:
        hook = request_signer(org_id=request_org(request).pk)
        return Response(self.OutputSerializer({"secret": hook.secret}).data)

    @extend_schema(request=None, responses=OutputSerializer,
                   description="A new per-request secret; the old one stops signing at once.")
    def post(self, request: Request) -> Response:
        hook = request_signer_rotate(org_id=request_org(request).pk)
        return Response(self.OutputSerializer({"secret": hook.secret}).data)


class RequestDeliverySerializer(DeliverySerializer):
    class Meta(DeliverySerializer.Meta):
        fields = [*DeliverySerializer.Meta.fields, "url"]


class RequestDeliveryListApi(APIView):
    """The latest deliveries to per-request `webhook_url`s: what each URL answered."""

    @extend_schema(responses=RequestDeliverySerializer(many=True))
    def get(self, request: Request) -> Response:
        deliveries = WebhookDelivery.objects.filter(
            webhook__organization=request_org(request), webhook__per_request=True)[:200]
        return Response(RequestDeliverySerializer(deliveries, many=True).data)


class DeliveryListApi(APIView):
    @extend_schema(responses=DeliverySerializer(many=True))
    def get(self, request: Request, webhook_id: Any) -> Response:
        hook = webhook_or_404(request, webhook_id)
        return Response(DeliverySerializer(hook.deliveries.all()[:200], many=True).data)


class RedeliverApi(APIView):
    @extend_schema(request=None, responses={202: DeliverySerializer})
    def post(self, request: Request, webhook_id: Any, delivery_id: Any) -> Response:
        hook = webhook_or_404(request, webhook_id)
        delivery = get_object_or_404(WebhookDelivery, webhook=hook, pk=delivery_id)
        return Response(DeliverySerializer(delivery_redeliver(delivery=delivery)).data,
                        status=status.HTTP_202_ACCEPTED)
