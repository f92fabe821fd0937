from accounts.apis import MeApi, TokenDetailApi, TokenListApi
from config.routing import both

urlpatterns = [
    *both("me/", MeApi.as_view(), "me"),
    *both("tokens/", TokenListApi.as_view(), "token-list"),
    *both("tokens/<int:token_id>/", TokenDetailApi.as_view(), "token-detail"),
]
