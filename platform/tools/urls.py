from django.urls import re_path

from tools.apis import ToolListApi, job_submit_view

urlpatterns = [
    re_path(r"^tools/?$", ToolListApi.as_view(), name="tool-list"),
    re_path(r"^diagnostics/sleep/?$", job_submit_view("diagnostics.sleep"),
            name="diagnostics-sleep"),
]
