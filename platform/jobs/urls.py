from django.urls import re_path

from jobs.apis import (
    ActivityListApi,
    JobCancelApi,
    JobDetailApi,
    JobListApi,
    JobOutputApi,
    JobRetryApi,
    QueueListApi,
)

UUID = r"(?P<job_id>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"

urlpatterns = [
    re_path(r"^jobs/?$", JobListApi.as_view(), name="job-list"),
    re_path(rf"^jobs/{UUID}/?$", JobDetailApi.as_view(), name="job-detail"),
    re_path(rf"^jobs/{UUID}/cancel/?$", JobCancelApi.as_view(), name="job-cancel"),
    re_path(rf"^jobs/{UUID}/retry/?$", JobRetryApi.as_view(), name="job-retry"),
    re_path(rf"^jobs/{UUID}/outputs/(?P<index>[0-9]{{1,4}})/?$", JobOutputApi.as_view(),
            name="job-output"),
    re_path(r"^queues/?$", QueueListApi.as_view(), name="queue-list"),
    re_path(r"^activity/?$", ActivityListApi.as_view(), name="activity-list"),
]
