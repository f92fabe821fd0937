"""Sign-in screens served by Django: the start of 'ACCESS PLATFORM', the built-in sign-in
form, the OIDC callback and the page that explains a refusal."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from drf_spectacular.utils import extend_schema
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.oidc import REFUSAL_SESSION_KEY, oidc_enabled, signin_refused
from config.parsers import JSONParser

logger = logging.getLogger(__name__)

REFUSALS = {
    "no_organization": "Your account does not belong to a partner organisation. Ask your "
                       "administrator to add your organisation to Atelier.",
    "state": "The sign-in could not be matched to this browser (it was started elsewhere, "
             "or took too long). Please start again.",
    "invalid": "The identity provider's answer could not be verified.",
    "issuer": "The identity provider's answer came from an unexpected provider.",
    "audience": "The identity provider's answer was meant for another application.",
    "expired": "The identity provider's answer had expired. Please start again.",
    "not_yet_valid": "The identity provider's answer is not valid yet; check the clocks.",
    "claims": "The identity provider's answer was incomplete.",
    "provider": "The identity provider refused the sign-in.",
    "unavailable": "The identity provider is not answering. Please try again shortly.",
    "denied": "The sign-in was cancelled at the identity provider.",
}


def safe_next(request: HttpRequest, default: str = "/") -> str:
    """Only our own paths: never another host, never a scheme-relative //host."""
    target = request.GET.get("next") or request.POST.get("next") or ""
    if (target.startswith("/") and not target.startswith("//") and "\\" not in target
            and url_has_allowed_host_and_scheme(target, allowed_hosts=None)):
        return target
    return default


def login_start(request: HttpRequest) -> HttpResponse:
    """Where 'ACCESS PLATFORM' leads: the provider when one is configured, else the form."""
    target = safe_next(request)
    if request.user.is_authenticated:
        return HttpResponseRedirect(target)
    base = "/oidc/authenticate/" if oidc_enabled() else "/auth/login/"
    return HttpResponseRedirect(f"{base}?{urlencode({'next': target})}")


class PartnerAuthenticationForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Please enter a correct e-mail and password.",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["username"].label = "E-mail"

    def clean_username(self) -> str:
        return str(self.cleaned_data.get("username") or "").strip().lower()


class PartnerLoginView(LoginView):
    """The built-in sign-in form for partner accounts, with throttled attempts."""

    template_name = "accounts/login.html"
    form_class = PartnerAuthenticationForm
    redirect_authenticated_user = True

    def get_success_url(self) -> str:
        return safe_next(self.request)

    def _keys(self) -> list[str]:
        ip = self.request.META.get("REMOTE_ADDR", "")
        user = str(self.request.POST.get("username", "")).strip().lower()
        return [f"signin-fail:{ip}:{user}", f"signin-fail-ip:{ip}"]

    def _limits(self) -> list[int]:
        # one account from one address, and any accounts from one address
        return [settings.LOGIN_MAX_FAILURES, settings.LOGIN_MAX_FAILURES * 4]

    def _locked(self) -> bool:
        try:
            counts = cache.get_many(self._keys())
        except Exception as exc:  # noqa: BLE001 - no cache: no throttle, not no sign-in
            logger.warning("sign-in throttle unavailable: %s", exc)
            return False
        return any(counts.get(k, 0) >= limit for k, limit in zip(self._keys(), self._limits(),
                                                                  strict=True))

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if self._locked():
            form = self.get_form()
            form.errors.clear()
            minutes = settings.LOGIN_FAILURE_WINDOW_SECONDS // 60
            form.add_error(None, f"Too many failed attempts. Try again in {minutes} minutes.")
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(settings.LOGIN_FAILURE_WINDOW_SECONDS)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        for key in self._keys():
            try:
                cache.add(key, 0, timeout=settings.LOGIN_FAILURE_WINDOW_SECONDS)
                cache.incr(key)
            except Exception as exc:  # noqa: BLE001
                logger.warning("sign-in throttle unavailable: %s", exc)
        response = super().form_invalid(form)
        response.status_code = 400
        return response

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["next"] = safe_next(self.request)
        return context


class PartnerCallbackView(OIDCAuthenticationCallbackView):
    """mozilla-django-oidc's callback, with a clear page instead of a 400 for a bad state and
    for an error sent back by the provider."""

    def get(self, request: HttpRequest) -> HttpResponse:
        if request.GET.get("error"):
            signin_refused(request, "denied")
        try:
            return super().get(request)
        except SuspiciousOperation:
            signin_refused(request, "state")
            return self.login_failure()


def signin_refused_page(request: HttpRequest) -> HttpResponse:
    reason = request.session.pop(REFUSAL_SESSION_KEY, "invalid")
    message = REFUSALS.get(reason, REFUSALS["invalid"])
    return render(request, "accounts/refused.html", {"message": message, "reason": reason},
                  status=403)


def provider_logout_url(request: HttpRequest) -> str | None:
    """RP-initiated logout at the provider, returning to the site origin."""
    if not (oidc_enabled() and settings.OIDC_OP_LOGOUT_ENDPOINT):
        return None
    params = {"client_id": settings.OIDC_RP_CLIENT_ID,
              "post_logout_redirect_uri": request.build_absolute_uri("/")}
    id_token = request.session.get("oidc_id_token")
    if id_token:
        params["id_token_hint"] = id_token
    return f"{settings.OIDC_OP_LOGOUT_ENDPOINT}?{urlencode(params)}"


class LogoutApi(APIView):
    """End the session (CSRF-checked); answer where the browser should go next."""

    authentication_classes = [SessionAuthentication]
    permission_classes = [AllowAny]
    # a plain HTML form may sign out too
    parser_classes = [JSONParser, FormParser, MultiPartParser]

    class OutputSerializer(serializers.Serializer):
        redirect = serializers.CharField()

    @extend_schema(request=None, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        target = provider_logout_url(request._request) or settings.LOGOUT_REDIRECT_URL
        auth.logout(request._request)
        return Response({"redirect": target})
