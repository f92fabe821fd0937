"""A webhook receiver on loopback that records what it is sent and answers as told."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serving


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    url: str
    calls: list[Received] = field(default_factory=list)
    # statuses to answer with, in order; 200 once they run out
    answers: list[int] = field(default_factory=list)


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.calls.append(Received(headers=dict(self.headers.items()), body=body))
            code = state.answers.pop(0) if state.answers else 200
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as server:
        state.url = f"{server.origin}/hooks/atelier"
        yield state
