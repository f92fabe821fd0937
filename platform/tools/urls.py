from config.routing import both
from tools.apis import ToolListApi, job_submit_view

urlpatterns = [
    *both("tools/", ToolListApi.as_view(), "tool-list"),
    *both("diagnostics/sleep", job_submit_view("diagnostics.sleep"), "diagnostics-sleep"),
]
