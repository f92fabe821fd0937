from django.urls import re_path

from accounts.apis import MeApi, TokenDetailApi, TokenListApi

urlpatterns = [
    re_path(r"^me/?$", MeApi.as_view(), name="me"),
    re_path(r"^tokens/?$", TokenListApi.as_view(), name="token-list"),
    re_path(r"^tokens/(?P<token_id>[0-9]{1,18})/?$", TokenDetailApi.as_view(), name="token-detail"),
]
