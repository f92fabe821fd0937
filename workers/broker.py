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


# Move a message, found by its task id among the newest ones of a queue, to the queue's front.
# kombu's Redis transport publishes with LPUSH and consumes with BRPOP: the front is the right
# end, where kombu itself puts back a message it restores. Atomic: a consumer either popped
# the message already (nothing to move) or pops it next.
_TO_FRONT = """
local items = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]))
for _, item in ipairs(items) do
  if string.find(item, ARGV[1], 1, true) then
    redis.call('LREM', KEYS[1], 1, item)
    redis.call('RPUSH', KEYS[1], item)
    return 1
  end
end
return 0
"""


def message_to_front(queue: str, task_id: str, *, within: int = 1000) -> bool:
    """Put the message of `task_id` at the front of `queue` (it runs next), looking among the
    `within` newest messages, where a message just published is. False when it is not there
    (a worker took it already)."""
    from config.celery_app import app

    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        return bool(client.eval(_TO_FRONT, 1, queue, f'"{task_id}"', within - 1))
