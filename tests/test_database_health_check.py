"""The PostgreSQL backend's health check (config/postgresql/base.py): a quiet kept connection
is taken as it is, without a statement; one the server ended since is replaced before the
next request's first query, as Django's own check (a SELECT 1) would."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.conf import settings
from django.db import close_old_connections, connection

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="PostgreSQL's backend: set DATABASE_URL")


def other() -> psycopg.Connection:
    """A connection of our own beside Django's, to the same database."""
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432,
                           user=db["USER"], password=db["PASSWORD"] or None,
                           dbname=db["NAME"], autocommit=True)


def next_request() -> None:
    """What Django does between two requests (and Celery's fixup between two tasks)."""
    close_old_connections()


def last_statement(side: psycopg.Connection, pid: int) -> str:
    row = side.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone()
    assert row is not None, f"backend {pid} is gone"
    return str(row[0])


@pytest.mark.django_db(transaction=True)
def test_a_quiet_connection_is_kept_without_a_statement_and_an_ended_one_is_replaced() -> None:
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"]
    assert connection.settings_dict["CONN_MAX_AGE"] > 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid(), 'health check marker'")
        pid = cursor.fetchone()[0]
    with other() as side:
        # the next request, with its check: the same connection, and no SELECT 1 was sent
        next_request()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] == pid
        assert last_statement(side, pid) == "SELECT pg_backend_pid()"
        next_request()
        connection.close_if_health_check_failed()
        assert connection.health_check_done
        assert last_statement(side, pid) == "SELECT pg_backend_pid()"

        # the server ends the connection between two requests (a restart does the same to
        # every backend): the next request is answered on a new one, without an error
        next_request()
        side.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and side.execute(
                "SELECT 1 FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone():
            time.sleep(0.05)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] != pid
