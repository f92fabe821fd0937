"""Settings, read from the environment (django-environ).

Every integration has one block. The embedded defaults (SQLite under var/, a local Redis,
media under var/media) let `make run` work on a fresh machine with nothing configured.
"""

from __future__ import annotations

from pathlib import Path

import environ

REPO_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = REPO_DIR / "var"

env = environ.Env()
environ.Env.read_env(REPO_DIR / ".env", overwrite=False)

REDIS_URL_DEFAULT = "redis://127.0.0.1:6379/0"

# --- Core ---------------------------------------------------------------------------------
DEBUG = env.bool("DJANGO_DEBUG", default=False)
# The embedded default runs on loopback only; production must set its own secret.
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="atelier-embedded-default-not-for-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "mozilla_django_oidc",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "jobs",
    "tools",
    "drives",
    "webhooks",
    "studio",
]

MIDDLEWARE = [
    "config.observability.RequestIdMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.middleware.BodySizeLimitMiddleware",
    "config.middleware.RateLimitHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
# Both /api/x and /api/x/ are served by the routes themselves; no redirects on POST.
APPEND_SLASH = False

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -----------------------------------------------------------------------------
# SQLite is the embedded default; DATABASE_URL=postgres://... switches to PostgreSQL.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'atelier.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # Web, workers and beat write the same file: WAL lets readers go on during a write,
        # IMMEDIATE takes the write lock at BEGIN so two writers wait instead of deadlocking,
        # and the timeout is how long they wait.
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
else:
    # Django's backend with a health check that needs no round trip while the connection is
    # quiet (config/postgresql/base.py).
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"]["ENGINE"] = "config.postgresql"
    # Short connect timeout so that a database outage answers 503 quickly.
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 5
    # Values bound by the server, not spliced into the text by the client, and statements
    # prepared once per connection: psycopg prepares a statement on its fifth run (Django
    # turns that off unless prepare_threshold is given), so PostgreSQL parses and plans the
    # statements a worker runs for every job once. Measured on drains of 400 jobs: binding
    # by the server, 0.8 ms less worker CPU and 0.2 ms less PostgreSQL CPU per job; preparing
    # too, PostgreSQL's CPU per job fell again from 1.13 to 0.63 ms. Behind PgBouncer in
    # transaction mode both need max_prepared_statements (PgBouncer 1.21 and later), or set
    # DB_PREPARED_STATEMENTS and DB_SERVER_SIDE_BINDING off.
    DATABASES["default"]["OPTIONS"]["server_side_binding"] = env.bool(
        "DB_SERVER_SIDE_BINDING", default=True)
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = (
        5 if env.bool("DB_PREPARED_STATEMENTS", default=True) else None)
# Keep connections across requests and tasks (a new PostgreSQL connection per job costs more
# than the job's own queries); the health check replaces one that a restart broke.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=300)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# --- Storage ------------------------------------------------------------------------------
MEDIA_ROOT = env.path("MEDIA_ROOT", default=str(VAR_DIR / "media"))
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
WEBAPP_DIST = REPO_DIR / "webapp" / "dist"
STATICFILES_DIRS = [WEBAPP_DIST] if WEBAPP_DIST.is_dir() else []
AWS_STORAGE_BUCKET_NAME = env.str("AWS_STORAGE_BUCKET_NAME", default="")
# Also the endpoint of S3 drive folders (any S3-compatible store).
AWS_S3_ENDPOINT_URL = env.str("AWS_S3_ENDPOINT_URL", default="") or None
if AWS_STORAGE_BUCKET_NAME:
    # S3 (or any S3-compatible store) through django-storages; credentials from the usual
    # AWS_* variables. Outputs are served through short-lived signed URLs.
    AWS_S3_REGION_NAME = env.str("AWS_S3_REGION_NAME", default=None)
    AWS_DEFAULT_ACL = None
    AWS_QUERYSTRING_EXPIRE = env.int("AWS_QUERYSTRING_EXPIRE", default=3600)
    DEFAULT_FILE_STORAGE_BACKEND = "storages.backends.s3.S3Storage"
else:
    DEFAULT_FILE_STORAGE_BACKEND = "django.core.files.storage.FileSystemStorage"
STORAGES = {
    "default": {"BACKEND": DEFAULT_FILE_STORAGE_BACKEND},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# The webpack bundles already carry content hashes; whitenoise may cache them for ever.
WHITENOISE_IMMUTABLE_FILE_TEST = r"^.+\.[0-9a-f]{8,}\.(js|css|woff2?|png|svg)$"

# --- Drives ------------------------------------------------------------------------------
# Local drive folders (the embedded default) live here.
DRIVES_ROOT = env.path("DRIVES_ROOT", default=str(VAR_DIR / "drives"))
# A Google service account's JSON key, for folders of kind "google". Service accounts have no
# storage of their own: output folders must sit in a shared drive.
GOOGLE_SERVICE_ACCOUNT_FILE = env.str("GOOGLE_SERVICE_ACCOUNT_FILE", default="")
# Another Drive v3 server for Google Drive folders (a Drive-compatible one); empty: Google's.
GOOGLE_DRIVE_API_URL = env.str("GOOGLE_DRIVE_API_URL", default="")
# Signed links to drive files (Get URLs) stay valid this long.
DRIVE_LINK_SECONDS = env.int("DRIVE_LINK_SECONDS", default=6 * 3600)
# A succeeded job's outputs not delivered after this long are delivered again (keyed, so never
# twice).
DELIVERY_GRACE_SECONDS = env.float("DELIVERY_GRACE_SECONDS", default=120.0)
# A delivery owns a job's outputs this long (the delivery task's hard time limit).
DELIVERY_LEASE_SECONDS = env.int("DELIVERY_LEASE_SECONDS", default=600)
# A job's delivery, once enqueued, is not enqueued again for this long (unless it finishes
# first): the reconciler finds a pending job every tick, and must not flood the queue with
# copies of a delivery that is only waiting its turn or a retry. Past it, a lost message is
# enqueued again.
DELIVERY_MARKER_SECONDS = env.int("DELIVERY_MARKER_SECONDS", default=300)
# A drive upload from the browser may be this large.
DRIVE_UPLOAD_MAX_BYTES = env.int("DRIVE_UPLOAD_MAX_BYTES", default=25 * 1024 * 1024)
# One bulk upload: files (a zip counts by the images inside) and their bytes once expanded;
# a zip whose entries expand past this ratio is refused (a zip bomb).
DRIVE_UPLOAD_MAX_FILES = env.int("DRIVE_UPLOAD_MAX_FILES", default=200)
DRIVE_UPLOAD_MAX_TOTAL_BYTES = env.int("DRIVE_UPLOAD_MAX_TOTAL_BYTES", default=200 * 1024 * 1024)
DRIVE_ZIP_MAX_RATIO = env.int("DRIVE_ZIP_MAX_RATIO", default=100)

# --- Webhooks and outbound calls ----------------------------------------------------------
# Hosts or networks (CIDR) exempted from the outbound address checks (image fetches and
# webhooks refuse loopback, private, link-local and metadata addresses). Empty by default.
OUTBOUND_ALLOW = env.list("OUTBOUND_ALLOW", default=[])
# Webhook URLs (endpoints and a submit's webhook_url) must be https, but for hosts that
# OUTBOUND_ALLOW exempts (receivers inside the network): deliveries carry signed output links.
WEBHOOK_HTTPS_ONLY = env.bool("WEBHOOK_HTTPS_ONLY", default=True)
# --- Generative providers (DESIGN §8) ------------------------------------------------------
# Per tool engine name, a provider instead of the local engine: JSON, see
# workers/providers/config.py for every key. Parsed and checked here, so a bad entry stops the
# process at start-up. Output URLs of providers are fetched with OUTBOUND_ALLOW added.
from workers.providers.config import providers_parse  # noqa: E402

ENGINE_PROVIDERS = providers_parse(env.json("ENGINE_PROVIDERS", default={}),
                                   fetch_allow=OUTBOUND_ALLOW)

# --- Provider accounts of organisations (the studio tier) ----------------------------------
# Encrypts their API keys at rest (Fernet): a Fernet key or any long random text; several,
# comma-separated, to rotate (the first encrypts, all decrypt). Production must set it (the
# studio.E001 check stops migrate and runserver without it); only the embedded defaults (DEBUG,
# or the embedded SECRET_KEY) derive one from SECRET_KEY.
PROVIDER_KEYS_SECRET = env.list("PROVIDER_KEYS_SECRET", default=[])
if not PROVIDER_KEYS_SECRET and (
        DEBUG or SECRET_KEY == "atelier-embedded-default-not-for-production"):  # noqa: S105
    PROVIDER_KEYS_SECRET = [f"derived-from-secret-key:{SECRET_KEY}"]

WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=10.0)
# Deliveries failed in a row before an endpoint is switched off.
WEBHOOK_DISABLE_AFTER = env.int("WEBHOOK_DISABLE_AFTER", default=20)
# Where partners reach Atelier, for links in webhooks and e-mails.
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000")
# Output links in webhook deliveries stay valid this long.
OUTPUT_LINK_SECONDS = env.int("OUTPUT_LINK_SECONDS", default=7 * 24 * 3600)
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Atelier <no-reply@atelier.local>")

# --- Request limits -----------------------------------------------------------------------
# Bodies larger than these answer 413 before they are read: JSON (image bytes travel as URLs
# or drive files) and multipart uploads (the drive browser).
MAX_REQUEST_BODY_BYTES = env.int("MAX_REQUEST_BODY_BYTES", default=30 * 1024 * 1024)
MAX_UPLOAD_BODY_BYTES = env.int("MAX_UPLOAD_BODY_BYTES", default=30 * 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY_BYTES
# As many files in one multipart request as a bulk upload takes.
DATA_UPLOAD_MAX_NUMBER_FILES = DRIVE_UPLOAD_MAX_FILES

# --- Security -----------------------------------------------------------------------------
SECURE_TLS = env.bool("SECURE_TLS", default=False)
SESSION_COOKIE_SECURE = SECURE_TLS
CSRF_COOKIE_SECURE = SECURE_TLS
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
if env.bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_AGE = 24 * 3600  # spec part 1 §9: session cookie 1 day
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
# Joining the browsers' HSTS preload list is an operator's decision, not a default.
SILENCED_SYSTEM_CHECKS = ["security.W021"]
# Images come from partners' URLs and our own links (previews); styles are injected by the
# web app's bundle; scripts only from our origin.
CONTENT_SECURITY_POLICY = env.str(
    "CONTENT_SECURITY_POLICY",
    default="default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data: blob: https: http:; media-src 'self' blob: data: https: http:; "
            "connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; "
            "base-uri 'self'; form-action 'self'",
)
SESSION_COOKIE_SAMESITE = "Lax"

# --- Sign-in -----------------------------------------------------------------------------
# With an identity provider configured, 'ACCESS PLATFORM' runs the OpenID Connect code flow
# (mozilla-django-oidc, PKCE, state and nonce); without one it leads to the built-in form.
OIDC_RP_CLIENT_ID = env.str("OIDC_RP_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET", default="")
OIDC_OP_ISSUER = env.str("OIDC_OP_ISSUER", default="")
OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_OP_AUTHORIZATION_ENDPOINT", default="")
OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_OP_TOKEN_ENDPOINT", default="")
OIDC_OP_USER_ENDPOINT = env.str("OIDC_OP_USER_ENDPOINT", default="")
OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_OP_JWKS_ENDPOINT", default="")
# RP-initiated logout; empty when the provider has none.
OIDC_OP_LOGOUT_ENDPOINT = env.str("OIDC_OP_LOGOUT_ENDPOINT", default="")
# The ID token's aud must hold one of these (the client id when empty).
OIDC_AUDIENCES = env.list("OIDC_AUDIENCES", default=[])
OIDC_RP_SIGN_ALGO = "RS256"
OIDC_RP_SCOPES = env.str("OIDC_RP_SCOPES", default="openid profile email offline_access")
OIDC_USE_PKCE = True
OIDC_USE_NONCE = True
OIDC_STORE_ID_TOKEN = True  # for the id_token_hint of RP-initiated logout
OIDC_TIMEOUT = env.float("OIDC_TIMEOUT", default=10.0)  # spec part 1 §9: HTTP timeout 10 s
OIDC_LEEWAY_SECONDS = env.int("OIDC_LEEWAY_SECONDS", default=60)
# The claim that names the user's organisation; users without one join the organisation
# that registered their e-mail domain, or are refused.
OIDC_ORGANIZATION_CLAIM = env.str("OIDC_ORGANIZATION_CLAIM", default="organization")
# Sent as the `organization` parameter of the authorisation request when set.
OIDC_ORGANIZATION = env.str("OIDC_ORGANIZATION", default="")
OIDC_AUTH_REQUEST_EXTRA_PARAMS = {"organization": OIDC_ORGANIZATION} if OIDC_ORGANIZATION else {}
# Provider access tokens sent to the API as Bearer tokens are checked at the userinfo
# endpoint and the answer kept this long.
OIDC_BEARER_CACHE_SECONDS = env.int("OIDC_BEARER_CACHE_SECONDS", default=60)
LOGIN_URL = "/login"
LOGIN_REDIRECT_URL = "/"
LOGIN_REDIRECT_URL_FAILURE = "/auth/refused/"
LOGOUT_REDIRECT_URL = "/login"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "accounts.oidc.PartnerOIDCBackend",
]
# Sign-in form: this many failures per account and address within the window lock it out.
LOGIN_MAX_FAILURES = env.int("LOGIN_MAX_FAILURES", default=5)
LOGIN_FAILURE_WINDOW_SECONDS = env.int("LOGIN_FAILURE_WINDOW_SECONDS", default=900)

# --- Cache --------------------------------------------------------------------------------
# Shared by web processes: sign-in throttling, API throttles, checked bearer tokens.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env.str("CACHE_URL", default=env.str("REDIS_URL", default=REDIS_URL_DEFAULT)),
        "KEY_PREFIX": "atelier",
        "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
    }
}

# --- REST framework -----------------------------------------------------------------------
THROTTLE_PARTNER_RATE = env.str("THROTTLE_PARTNER_RATE", default="1200/min")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "accounts.authentication.ProviderTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.permissions.IsPartner"],
    # bounded nesting and valid Unicode only: see config/parsers.py
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_CLASSES": ["config.throttles.PartnerRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"partner": THROTTLE_PARTNER_RATE},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Atelier API",
    "DESCRIPTION": (
        "The fashion industry's AI atelier: jobs, queues and tools.\n\n"
        "**Rate limits.** Each partner (each address, before sign-in) may send "
        f"{THROTTLE_PARTNER_RATE} requests, counted in fixed "
        "windows. Every API response says where the caller stands: `RateLimit-Limit` (requests "
        "per window), `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the window "
        "ends). Past the limit the answer is 429 `throttled` with `Retry-After` in seconds. "
        "An organisation may also have a cap on jobs queued or running at once (429 as well)."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "PREPROCESSING_HOOKS": ["config.schema.drop_alternate_spellings"],
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums",
                             "config.schema.add_error_components"],
    "ENUM_NAME_OVERRIDES": {"WebhookEventEnum": "webhooks.models.WebhookEvent",
                            # "kind" names provider kinds and drive kinds: each its own enum
                            "KindEnum": "studio.kinds.ProviderKind",
                            "DriveKindEnum": "drives.models.DriveKind",
                            "DriveConnectorKindEnum": "drives.models.ConnectorKind",
                            # "status" names job and delivery statuses
                            "JobStatusEnum": "jobs.models.JobStatus",
                            "DeliveryStatusEnum": "webhooks.models.DeliveryStatus"},
}

# --- Celery -------------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default=REDIS_URL_DEFAULT)
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
# The database is the source of truth for jobs; no result backend is needed.
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
# JSON only: a message from the broker is never unpickled.
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Ack after the task ran, so a worker that dies mid-job leaves the message to be redelivered.
CELERY_TASK_ACKS_LATE = True
# A pool child killed mid-task (OOM, SIGKILL) requeues its message instead of acking it;
# the job's attempt cap (JOB_MAX_ATTEMPTS) keeps a poison job from looping for ever.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message at a time per process: a long job never holds others hostage in a prefetch buffer.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TRACK_STARTED = False
CELERY_WORKER_SEND_TASK_EVENTS = True  # Flower
CELERY_TASK_SEND_SENT_EVENT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Longest hard time limit of any queue (see workers/queues.py) plus margin.
CELERY_MAX_HARD_LIMIT = 3600
CELERY_BROKER_TRANSPORT_OPTIONS = {
    # A message is only given back to the queue by kombu once it has been unacked this long,
    # so it must exceed the longest hard time limit, or a running job would be handed out twice.
    "visibility_timeout": CELERY_MAX_HARD_LIMIT + 600,
    # kombu scans the unacked index every interval × throttle seconds (10 × 10 = 100 s by
    # default, ~105 s measured). Scanning every 5 s is cheap (one ZRANGE) and means a message
    # whose visibility timeout ran out is restored within seconds, not minutes. Recovery of a
    # job whose worker was SIGKILLed does not wait for this: the reconciler requeues it as soon
    # as its heartbeat is stale (JOB_HEARTBEAT_STALE_SECONDS).
    "unacked_restore_interval": 5,
    "unacked_restore_throttle": 1,
    # Fail fast when Redis is gone instead of hanging a web request.
    "socket_timeout": 5,
    "socket_connect_timeout": 3,
    "max_retries": 2,
}
# Publishing from the web process must not block a request for long when Redis is down:
# the job is in the database and the reconciler enqueues it once the broker is back.
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5}

# --- Jobs ---------------------------------------------------------------------------------
# The kinds of job the queue overview lists (jobs.kinds.job_catalogue): the job core is
# told where the tool catalogue is rather than importing it.
JOB_CATALOGUE = "tools.registry.TOOLS"
JOB_MAX_ATTEMPTS = env.int("JOB_MAX_ATTEMPTS", default=3)
# Workers touch the job row this often while it runs...
JOB_HEARTBEAT_SECONDS = env.float("JOB_HEARTBEAT_SECONDS", default=5.0)
# ...and a running job whose heartbeat is older than this is taken to have lost its worker.
JOB_HEARTBEAT_STALE_SECONDS = env.float("JOB_HEARTBEAT_STALE_SECONDS", default=30.0)
# A redelivered task takes a running job over at once when its run's process is gone (same
# host), or when that run has not beaten for this long (another host).
JOB_TAKEOVER_SECONDS = env.float("JOB_TAKEOVER_SECONDS", default=3 * JOB_HEARTBEAT_SECONDS)
# A queued job enqueued longer ago than this is checked against the broker by the reconciler.
JOB_ENQUEUE_GRACE_SECONDS = env.float("JOB_ENQUEUE_GRACE_SECONDS", default=30.0)
JOB_RECONCILE_SECONDS = env.float("JOB_RECONCILE_SECONDS", default=10.0)
# Progress is written at most this often (100 is written by the run's end).
JOB_PROGRESS_MIN_INTERVAL = env.float("JOB_PROGRESS_MIN_INTERVAL", default=0.5)
DIAGNOSTICS_SOFT_LIMIT = env.int("DIAGNOSTICS_SOFT_LIMIT", default=60)
DIAGNOSTICS_HARD_LIMIT = env.int("DIAGNOSTICS_HARD_LIMIT", default=75)
# A direct tool's request waits this long for its job, then answers 202 with the job (the
# spec's pages give up after 240 s: the answer must come first).
DIRECT_WAIT_SECONDS = env.float("DIRECT_WAIT_SECONDS", default=230.0)
# Direct-tool requests one web process lets wait at once; past it they answer 202 with the
# job at once, so waiting calls never take every thread of a process. Half its threads
# (WEB_THREADS, what gunicorn is started with) by default.
DIRECT_WAIT_SLOTS = env.int("DIRECT_WAIT_SLOTS",
                            default=max(1, env.int("WEB_THREADS", default=8) // 2))
# How long a process reuses a tool's average run time for ETAs.
JOB_ETA_CACHE_SECONDS = env.float("JOB_ETA_CACHE_SECONDS", default=5.0)
# Jobs an organisation may have queued or running at once; past it, submits answer 429.
ORG_MAX_ACTIVE_JOBS = env.int("ORG_MAX_ACTIVE_JOBS", default=5000)
OUTPUT_RETENTION_DAYS = env.int("OUTPUT_RETENTION_DAYS", default=30)
# Worker processes per queue, used by the ETA; `make run` starts this many.
QUEUE_CONCURRENCY = {
    "interactive": env.int("CONCURRENCY_INTERACTIVE", default=1),
    "batch": env.int("CONCURRENCY_BATCH", default=1),
    "video": env.int("CONCURRENCY_VIDEO", default=1),
    "drivesync": env.int("CONCURRENCY_DRIVESYNC", default=1),
    "webhooks": env.int("CONCURRENCY_WEBHOOKS", default=1),
}

# --- Flower -------------------------------------------------------------------------------
FLOWER_BASIC_AUTH = env.str("FLOWER_BASIC_AUTH", default="ops:atelier")
# Where ops open Flower: the admin's job pages link to the job's tasks there.
FLOWER_URL = env.str("FLOWER_URL", default="http://127.0.0.1:5555")

# --- Logging ------------------------------------------------------------------------------
# JSON lines carrying request_id and job_id; LOG_FORMAT=plain for people reading a terminal.
LOG_FORMAT = env.str("LOG_FORMAT", default="json")
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "config.observability.ContextFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s%(job_id)s] "
                            "%(message)s"},
        "json": {"()": "pythonjsonlogger.json.JsonFormatter",
                 "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s "
                        "%(job_id)s %(tool)s %(organization)s %(attempt)s %(queue)s",
                 "rename_fields": {"asctime": "time",
                                                        "levelname": "level"}},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT,
                             "filters": ["context"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}
