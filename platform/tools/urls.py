from config.routing import both
from tools.apis import ToolListApi, tool_view
from tools.registry import TOOLS

urlpatterns = [
    *both("tools/", ToolListApi.as_view(), "tool-list"),
    *both("diagnostics/sleep", tool_view(TOOLS["diagnostics.sleep"]), "diagnostics-sleep"),
]
# The spec's calls (e.g. POST /api/recoloring/recolor), one per tool that declares one.
for _tool in TOOLS.values():
    if _tool.endpoint:
        urlpatterns += both(_tool.endpoint, tool_view(_tool), f"tool-{_tool.slug}")
