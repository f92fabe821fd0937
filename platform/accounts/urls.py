from django.urls import path

from accounts.apis import MeApi, TokenDetailApi, TokenListApi
from accounts.views import LogoutApi, login_start
from config.routing import both

urlpatterns = [
    *both("me/", MeApi.as_view(), "me"),
    *both("tokens/", TokenListApi.as_view(), "token-list"),
    *both("tokens/<int:token_id>/", TokenDetailApi.as_view(), "token-detail"),
    path("auth/login/", login_start, name="auth-login"),
    path("auth/login", login_start),
    *both("auth/logout/", LogoutApi.as_view(), "auth-logout"),
]
