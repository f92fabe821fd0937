from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from mozilla_django_oidc.views import OIDCAuthenticationRequestView

from accounts.views import PartnerCallbackView, PartnerLoginView, signin_refused_page
from config import errors, observability, views
from config.routing import both
from tools.apis import tool_view
from tools.registry import TOOLS

api: list[URLPattern | URLResolver] = [
    path("", include("accounts.urls")),
    path("", include("jobs.urls")),
    path("", include("tools.urls")),
    path("", include("drives.urls")),
    path("", include("webhooks.urls")),
    path("", include("studio.urls")),
    *both("schema/", SpectacularAPIView.as_view(), "schema"),
    *both("docs/", SpectacularSwaggerView.as_view(url_name="schema"), "docs"),
]

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", observability.metrics, name="metrics"),
    path("admin/", admin.site.urls),
    path("auth/login/", PartnerLoginView.as_view(), name="signin-form"),
    path("auth/refused/", signin_refused_page, name="signin-refused"),
    path("oidc/authenticate/", OIDCAuthenticationRequestView.as_view(),
         name="oidc_authentication_init"),
    path("oidc/callback/", PartnerCallbackView.as_view(), name="oidc_authentication_callback"),
    path("api/", include(api)),
    re_path(r"^api(/.*)?$", errors.json_404),
    # The editorial calls at the spec's workflow-webhook paths.
    *[path(f"webhook/{t.webhook_path}", tool_view(t)) for t in TOOLS.values() if t.webhook_path],
    # Every other path that is not a server route is a client route of the web app.
    re_path(r"^(?!api/|admin/|auth/|oidc/|static/|media/|webhook/)(?P<path>.*)$", views.spa,
            name="spa"),
]

handler404 = "config.errors.json_404"
handler500 = "config.errors.json_500"
