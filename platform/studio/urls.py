from config.routing import both
from studio.apis import (
    ProviderAccountDetailApi,
    ProviderAccountListApi,
    ProviderAccountTestApi,
    ProviderCatalogueApi,
    UsageApi,
)

urlpatterns = [
    *both("providers/", ProviderAccountListApi.as_view(), "provider-list"),
    *both("providers/catalogue/", ProviderCatalogueApi.as_view(), "provider-catalogue"),
    *both("providers/<uuid:account_id>/", ProviderAccountDetailApi.as_view(), "provider-detail"),
    *both("providers/<uuid:account_id>/test/", ProviderAccountTestApi.as_view(),
          "provider-test"),
    *both("usage/", UsageApi.as_view(), "usage"),
]
