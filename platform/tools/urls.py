from config.routing import both
from tools.apis import (
    CameraTemplateListApi,
    LibraryModelListApi,
    LibraryModelPhotoApi,
    PhotoPresetListApi,
    ToolListApi,
    inputs_delete_view,
    tool_view,
)
from tools.registry import TOOLS

urlpatterns = [
    *both("tools/", ToolListApi.as_view(), "tool-list"),
    *both("models/", LibraryModelListApi.as_view(), "library-models"),
    *both("camera-templates/", CameraTemplateListApi.as_view(), "camera-templates"),
    *both("photo-presets/", PhotoPresetListApi.as_view(), "photo-presets"),
    *both("models/<slug:code>/photo", LibraryModelPhotoApi.as_view(), "library-model-photo"),
]
# The spec's calls (e.g. POST /api/recoloring/recolor), one per tool that declares one.
for _tool in TOOLS.values():
    if _tool.endpoint:
        urlpatterns += both(_tool.endpoint, tool_view(_tool), f"tool-{_tool.slug}")
    if _tool.inputs_path:
        urlpatterns += both(_tool.inputs_path, inputs_delete_view(_tool),
                            f"{_tool.slug}-inputs")
# The ops' name for the diagnostics call.
urlpatterns += both("diagnostics/sleep", tool_view(TOOLS["diagnostics.sleep"]), "diagnostics-sleep")
