from django.urls import path

from config.routing import both
from drives.apis import DriveFileApi, DriveFilesApi, DriveListApi, DriveSignedFileApi, urls_view
from drives.connector_apis import DriveConnectorApi, DriveConnectorTestApi
from tools.registry import TOOLS

urlpatterns = [
    *both("drives/", DriveListApi.as_view(), "drive-list"),
    path("drives/files/<str:token>", DriveSignedFileApi.as_view(), name="drive-signed-file"),
    path("drives/files/<str:token>/<path:name>", DriveSignedFileApi.as_view()),
    *both("drives/<uuid:folder_id>/files", DriveFilesApi.as_view(), "drive-files"),
    *both("drives/<uuid:folder_id>/connector", DriveConnectorApi.as_view(), "drive-connector"),
    *both("drives/<uuid:folder_id>/connector/test", DriveConnectorTestApi.as_view(),
          "drive-connector-test"),
    path("drives/<uuid:folder_id>/files/<path:file_id>", DriveFileApi.as_view(),
         name="drive-file"),
]
# The spec's Get URLs calls, one per card tool that declares one.
for _tool in TOOLS.values():
    if _tool.urls_path:
        urlpatterns += both(_tool.urls_path, urls_view(_tool.slug, _tool.urls_limit),
                            f"{_tool.slug}-urls")
