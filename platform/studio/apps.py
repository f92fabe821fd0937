from django.apps import AppConfig


class StudioConfig(AppConfig):
    """The studio tier: organisations' own accounts at generative model services."""

    name = "studio"
    verbose_name = "Studio tier"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from studio import checks  # noqa: F401  (registers the system checks)
