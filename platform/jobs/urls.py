from config.routing import both
from jobs.apis import (
    ActivityListApi,
    BatchReportApi,
    BatchRetryFailedApi,
    JobCancelApi,
    JobDetailApi,
    JobListApi,
    JobOutputApi,
    JobOutputSignedApi,
    JobRetryApi,
    QueueListApi,
)

urlpatterns = [
    *both("jobs/", JobListApi.as_view(), "job-list"),
    *both("jobs/<uuid:job_id>/", JobDetailApi.as_view(), "job-detail"),
    *both("jobs/<uuid:job_id>/cancel/", JobCancelApi.as_view(), "job-cancel"),
    *both("jobs/<uuid:job_id>/retry/", JobRetryApi.as_view(), "job-retry"),
    *both("jobs/<uuid:job_id>/outputs/<int:index>", JobOutputApi.as_view(), "job-output"),
    *both("jobs/outputs/<str:token>", JobOutputSignedApi.as_view(), "job-output-signed"),
    *both("batches/<uuid:batch_id>/retry-failed/", BatchRetryFailedApi.as_view(),
          "batch-retry-failed"),
    *both("batches/<uuid:batch_id>/report.csv", BatchReportApi.as_view(), "batch-report"),
    *both("queues/", QueueListApi.as_view(), "queue-list"),
    *both("activity/", ActivityListApi.as_view(), "activity-list"),
]
