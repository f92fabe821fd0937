from __future__ import annotations

import uuid

from django.db import models

from accounts.models import Organization


class Gender(models.TextChoices):
    FEMALE = "female"
    MALE = "male"


class LibraryModel(models.Model):
    """A person of an organisation's model library: the people Earfit, Baghold, Flats and
    Remodel dress. Staff add them in the admin; ship no photograph we may not redistribute."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    code = models.SlugField(max_length=64, help_text="The id the pages send (Remodel's modelId).")
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE,
                                     related_name="library_models")
    name = models.CharField(max_length=100)
    gender = models.CharField(max_length=8, choices=Gender.choices)
    height_cm = models.PositiveSmallIntegerField(default=175)
    photo = models.ImageField(upload_to="library/")
    # What the photo shows (face, ears, hands, upper/full body), measured once when the model
    # is added (tools.library.library_photo_shows); null until measured.
    shows = models.JSONField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["organization", "code"],
                                               name="library_model_code_per_org")]

    def __str__(self) -> str:
        return f"{self.name} ({self.organization})"
