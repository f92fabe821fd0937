from django.urls import path

from config.routing import both
from drives.apis import DriveFileApi, DriveFilesApi, DriveListApi, DriveSignedFileApi, urls_view

urlpatterns = [
    *both("drives/", DriveListApi.as_view(), "drive-list"),
    path("drives/files/<str:token>", DriveSignedFileApi.as_view(), name="drive-signed-file"),
    path("drives/files/<str:token>/<path:name>", DriveSignedFileApi.as_view()),
    *both("drives/<uuid:folder_id>/files", DriveFilesApi.as_view(), "drive-files"),
    path("drives/<uuid:folder_id>/files/<path:file_id>", DriveFileApi.as_view(),
         name="drive-file"),
    # The spec's Get URLs calls
    *both("recoloring/urls", urls_view("recolor"), "recolor-urls"),
    *both("refabricing/urls", urls_view("refabric"), "refabric-urls"),
    *both("reshaping/urls", urls_view("reshape"), "reshape-urls"),
    *both("bag-holder/urls", urls_view("baghold"), "baghold-urls"),
    *both("earring-catalog/urls", urls_view("earfit"), "earfit-urls"),
]
