"""Gunicorn's settings for the web process (`gunicorn -c python:config.gunicorn ...`).

Its access log is one JSON object a line, like every other log line of ours, carrying the
request id the RequestIdMiddleware answered with, so an access line, the application's lines
for that request and the partner's report (X-Request-ID) can be joined. The fields are passed
as the record's `extra` and serialised by the JSON formatter, so quotes or newlines in a path,
a query or a user agent cannot break a line. LOG_FORMAT=plain gives people one readable line.

This module is read by gunicorn's master before Django is set up: it imports neither Django
nor our settings, and reads LOG_FORMAT and LOG_LEVEL from the environment as the settings do.
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

from gunicorn import util as gunicorn_util
from gunicorn.glogging import Logger
from gunicorn.workers import gthread

LOG_FORMAT = os.environ.get("LOG_FORMAT", "json")
if LOG_FORMAT not in ("json", "plain"):
    LOG_FORMAT = "json"


def _header(headers: Any, name: str) -> str:
    for key, value in headers or ():
        if key.lower() == name:
            return str(value)
    return ""


class AccessLogger(Logger):
    """Gunicorn's logger with each access line's fields as a dict (the record's `extra`)."""

    def access(self, resp: Any, req: Any, environ: dict[str, Any],
               request_time: datetime.timedelta) -> None:
        if not self.access_log_enabled:
            return
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        try:
            status = int(status)
        except (TypeError, ValueError):
            pass
        fields = {
            "method": environ.get("REQUEST_METHOD", ""),
            "path": environ.get("PATH_INFO", ""),
            "query": environ.get("QUERY_STRING", ""),
            "status": status,
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 3),
            # What the middleware answered with (it keeps a caller's id or makes one).
            "request_id": _header(getattr(resp, "headers", ()), "x-request-id"),
            "remote_addr": environ.get("REMOTE_ADDR", ""),
            "user_agent": environ.get("HTTP_USER_AGENT", ""),
        }
        query = f"?{fields['query']}" if fields["query"] else ""
        try:
            self.access_log.info('"%s %s%s" %s %s B %s ms', fields["method"], fields["path"],
                                 query, fields["status"], fields["bytes"],
                                 fields["duration_ms"], extra=fields)
        except Exception:  # noqa: BLE001 - a log line must never fail the request
            self.exception("access log line failed")


def logging_config(log_format: str = LOG_FORMAT) -> dict[str, Any]:
    """The logging configuration of gunicorn's own loggers: the same formatters as the
    application's LOGGING (config.settings), access lines to stdout, the rest to stderr."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {"()": "pythonjsonlogger.json.JsonFormatter",
                     "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
                     "rename_fields": {"asctime": "time", "levelname": "level"}},
            "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
            "plain_access": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] "
                                       "%(message)s %(remote_addr)s \"%(user_agent)s\""},
        },
        "handlers": {
            "access": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout",
                       "formatter": "json" if log_format == "json" else "plain_access"},
            "error": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr",
                      "formatter": log_format},
        },
        "root": {"level": os.environ.get("LOG_LEVEL", "INFO"), "handlers": ["error"]},
        "loggers": {
            "gunicorn.error": {"level": os.environ.get("LOG_LEVEL", "INFO"),
                               "handlers": ["error"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
        },
    }


logger_class = AccessLogger
logconfig_dict = logging_config()
accesslog = "-"


def post_worker_init(worker: Any) -> None:
    """The worker has loaded the application: import what its first requests would (every
    URL's view, serializer and setting), then move everything alive now out of the garbage
    collector's sight (gc.freeze). A full collection otherwise walks the whole application,
    150,000 objects, holding the GIL for 40 to 80 ms: every thread of the process stalls, and
    that was the tail of the API's latency. What requests allocate is collected as before."""
    import gc

    try:
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018 - imports every view module
    except Exception:  # noqa: BLE001 - a broken URLconf fails its first request, not this
        worker.log.exception("warming the URLconf failed")
    gc.collect()
    gc.freeze()


def child_exit(server: Any, worker: Any) -> None:
    """A worker exited: in Prometheus multiprocess mode (PROMETHEUS_MULTIPROC_DIR), its live
    gauges go; its counters stay in the folder and keep counting in every scrape."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


# Errors gunicorn answers itself, before the application sees the request (a request line or
# headers past its limits, a malformed request): the application's JSON error envelope
# (config.errors.error_body) instead of gunicorn's HTML page, so a client parses every answer
# the same way.
_ERROR_CODES = {400: "bad_request", 403: "forbidden", 414: "uri_too_long",
                417: "expectation_failed", 431: "headers_too_large", 500: "server_error",
                501: "not_implemented"}
_ERROR_MESSAGES = {
    414: "The request line is too long: send long inputs in the request body.",
    431: "The request's headers are too large.",
    500: "The server could not answer this request.",
}


def json_error(status_int: int, reason: str, mesg: str) -> bytes:
    """The whole HTTP answer for an error gunicorn raises, with our JSON envelope."""
    body = json.dumps({
        "error": _ERROR_CODES.get(status_int, "bad_request"),
        "message": _ERROR_MESSAGES.get(status_int) or mesg or reason,
        "fields": {},
    }, ensure_ascii=True).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


def _write_json_error(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    gunicorn_util.write_nonblock(sock, json_error(status_int, reason, mesg))


# Gunicorn writes these answers through util.write_error (workers call it by that name).
gunicorn_util.write_error = _write_json_error


# A new connection's first request: gthread hands every accepted connection to a pool thread,
# which waited up to 5 s there for the request's bytes. A client that opens connections before
# it sends (a load balancer, a browser's preconnect, wrk pacing 100 connections) held every
# thread of the process: 16 idle connections stalled all requests, up to 270 ms at the p99 of
# the bare /healthz at 200 req/s (bench_http). The thread now only looks: a connection
# with nothing to read yet goes back to the worker's poller (gunicorn's own deferral, closed
# after the keep-alive timeout like an idle kept-alive connection) and takes a thread when its
# request arrives.
_wait_for_data = gthread.TConn.wait_for_data


def _look_for_data(self: Any, timeout: float) -> bool:
    return bool(_wait_for_data(self, 0))


gthread.TConn.wait_for_data = _look_for_data
