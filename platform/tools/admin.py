from django.contrib import admin

from tools.models import LibraryModel


@admin.register(LibraryModel)
class LibraryModelAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "organization", "gender", "height_cm", "created_at"]
    list_filter = ["organization", "gender"]
    search_fields = ["code", "name"]
