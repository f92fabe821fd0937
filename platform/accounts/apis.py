from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.permissions import request_partner
from accounts.services import api_token_create, api_token_revoke
from config.serializers import StrictSerializer


class OrganizationSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class MeApi(APIView):
    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        email = serializers.EmailField()
        organization = OrganizationSerializer(allow_null=True)
        is_staff = serializers.BooleanField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(request.user).data)


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]


class TokenListApi(APIView):
    class InputSerializer(StrictSerializer):
        name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")

    class CreatedSerializer(TokenSerializer):
        token = serializers.CharField(help_text="The token itself: shown this once only.")

        class Meta(TokenSerializer.Meta):
            fields = [*TokenSerializer.Meta.fields, "token"]

    @extend_schema(responses=TokenSerializer(many=True))
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.filter(user=request_partner(request))
        return Response(TokenSerializer(tokens, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: CreatedSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer.validated(request.data)
        token, raw = api_token_create(user=request_partner(request), name=data["name"])
        body = TokenSerializer(token).data | {"token": raw}
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetailApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, token_id: int) -> Response:
        token = get_object_or_404(ApiToken, pk=token_id, user=request_partner(request))
        api_token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)
