from django.contrib import admin

from drives.models import DriveFolder, LedgerEntry


@admin.register(DriveFolder)
class DriveFolderAdmin(admin.ModelAdmin):
    list_display = ["organization", "tool", "role", "category", "kind", "locator",
                    "credentials_hint", "watch"]
    list_filter = ["kind", "tool", "role", "watch", "organization"]


@admin.register(LedgerEntry)
class LedgerEntryAdmin(admin.ModelAdmin):
    list_display = ["folder", "name", "revision", "job", "taken_at"]
    readonly_fields = ["folder", "file_id", "revision", "name", "job", "taken_at"]
