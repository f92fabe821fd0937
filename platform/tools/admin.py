from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin

from tools.library import LIBRARY_TOOLS, LibraryError, library_photo_check, library_photo_shows
from tools.models import LibraryModel


class LibraryModelForm(forms.ModelForm):
    """The library model's photo is checked when it is added or replaced: one person, showing
    what the tools it is for need (as ``manage.py addmodel --for`` does)."""

    tools = forms.MultipleChoiceField(
        label="For the tools", required=False, widget=forms.CheckboxSelectMultiple,
        choices=list(LIBRARY_TOOLS.items()),
        help_text="The photo is refused unless it shows what these tools need: a visible ear "
                  "for Earfit, the shoulders for Baghold and Flats, a face for Remodel.")

    class Meta:
        model = LibraryModel
        fields = ["code", "organization", "name", "gender", "height_cm", "photo"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        photo = data.get("photo")
        if photo is not None and "photo" in self.changed_data:
            photo.seek(0)
            content = photo.read()
            photo.seek(0)
            try:
                library_photo_check(content, name=str(data.get("name") or ""),
                                    tools=data.get("tools") or [])
            except LibraryError as exc:
                self.add_error("photo", str(exc))
            else:
                # measured once, so the pages say what each tool can do with this model
                self.instance.shows = library_photo_shows(content)
        return data


@admin.register(LibraryModel)
class LibraryModelAdmin(admin.ModelAdmin):
    form = LibraryModelForm
    list_display = ["code", "name", "organization", "gender", "height_cm", "created_at"]
    list_filter = ["organization", "gender"]
    search_fields = ["code", "name"]
