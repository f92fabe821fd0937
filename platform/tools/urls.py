from config.routing import both
from tools.apis import (
    CameraTemplateListApi,
    CatalogVideoInputsApi,
    LibraryModelListApi,
    LibraryModelPhotoApi,
    PhotoPresetListApi,
    ToolListApi,
    tool_view,
)
from tools.registry import TOOLS

urlpatterns = [
    *both("tools/", ToolListApi.as_view(), "tool-list"),
    *both("models/", LibraryModelListApi.as_view(), "library-models"),
    *both("camera-templates/", CameraTemplateListApi.as_view(), "camera-templates"),
    *both("photo-presets/", PhotoPresetListApi.as_view(), "photo-presets"),
    *both("models/<slug:code>/photo", LibraryModelPhotoApi.as_view(), "library-model-photo"),
    *both("catalog-video/inputs", CatalogVideoInputsApi.as_view(), "catalog-video-inputs"),
]
# The spec's calls (e.g. POST /api/recoloring/recolor), one per tool that declares one.
for _tool in TOOLS.values():
    if _tool.endpoint:
        urlpatterns += both(_tool.endpoint, tool_view(_tool), f"tool-{_tool.slug}")
# The ops' name for the diagnostics call.
urlpatterns += both("diagnostics/sleep", tool_view(TOOLS["diagnostics.sleep"]), "diagnostics-sleep")
