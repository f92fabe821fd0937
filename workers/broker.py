"""What the broker holds: the job ids of messages waiting in our queues or delivered but
not yet acknowledged. The reconciler compares it with the database."""

from __future__ import annotations

import json
import logging
from typing import Any

from workers.queues import QUEUES

logger = logging.getLogger(__name__)

# kombu's Redis transport keeps delivered-but-unacked messages in this hash.
UNACKED_KEY = "unacked"


def _job_id(message: dict[str, Any]) -> str | None:
    task_id = (message.get("headers") or {}).get("id") or ""
    return task_id.split(".", 1)[0] or None


def broker_job_ids() -> set[str]:
    """Job ids the broker holds. Raises if the broker cannot be read, so that the caller
    never takes an unreachable broker for an empty one."""
    from config.celery_app import app

    ids: set[str] = set()
    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        for name in QUEUES:
            for raw in client.lrange(name, 0, -1):
                found = _job_id(json.loads(raw))
                if found:
                    ids.add(found)
        for raw in client.hvals(UNACKED_KEY):
            message = json.loads(raw)[0]
            found = _job_id(message)
            if found:
                ids.add(found)
    return ids
