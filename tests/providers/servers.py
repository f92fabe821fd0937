"""Loopback servers speaking the generative providers' documented protocols (docs/providers/).

Each keeps the requests it got (headers, decoded JSON) and answers from a script: the statuses
successive polls walk through, faults queued per request ("429" or ("429", seconds) with
Retry-After, "500", ("error", status, message), "timeout": an answer after slow_seconds), and
the outputs (served by the same server under /files/, without auth, or as data URLs).

- FakeFashn: POST /v1/run {model_name, inputs} → {id, error}; GET /v1/status/{id} → {id,
  status, output, error}; Bearer key; FASHN's error bodies {"error": name, "message": text}.
- FakeFal: POST /{model_id} → {request_id, status_url, response_url, cancel_url};
  GET /{owner}/{alias}/requests/{id}/status → {status: IN_QUEUE|IN_PROGRESS|COMPLETED,
  queue_position}; GET /{owner}/{alias}/requests/{id} → {image: {url, ...}};
  "Authorization: Key <key>"; errors {"detail": ...}.
- FakeReplicate: POST /v1/models/{owner}/{name}/predictions {input} or POST /v1/predictions
  {version, input} → the prediction; GET /v1/predictions/{id}; Bearer token; errors
  {"title", "detail", "status"}.
- FakeVertex: POST /token (the OAuth 2.0 JWT-bearer grant a service account makes; the
  assertion's signature is checked with the account's public key) → {access_token, expires_in,
  token_type}; POST /v1/projects/{p}/locations/{l}/publishers/google/models/{m}:predict with
  that Bearer token → {predictions: [{mimeType, bytesBase64Encoded}]}; Google's error body
  {"error": {"code", "message", "status"}}.
"""

from __future__ import annotations

import base64
import itertools
import json
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from tests.support.fake_providers import Call, FakeServer, _Handler, png
from tests.support.loopback import serving

FASHN_MODELS = {
    "tryon-v1.6": ("model_image", "garment_image"),
    "tryon-max": ("model_image", "product_image"),
    "product-to-model": ("product_image",),
    "model-swap": ("model_image",),
}
FASHN_CATEGORIES = ("auto", "tops", "bottoms", "one-pieces")


def is_data_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("data:image/") and ";base64," in value


def data_url_bytes(value: str) -> bytes:
    return base64.b64decode(value.partition(",")[2])


@dataclass
class FakeQueue(FakeServer):
    """What the queue-style fakes share: scripted statuses, outputs and faults."""

    statuses: list[str] = field(default_factory=list)
    error_message: str = "The model image could not be processed: no person detected."
    output: str = "url"  # "url" or "data_url"
    outputs: int = 1
    poll_faults: list[Any] = field(default_factory=list)
    jobs: dict[str, int] = field(default_factory=dict)  # job id → polls so far
    inputs: dict[str, Any] = field(default_factory=dict)  # job id → what it was given

    def polls(self, marker: str) -> list[Call]:
        return [c for c in self.calls if c.method == "GET" and marker in c.path]

    def next_status(self, job_id: str) -> str:
        polls = self.jobs[job_id]
        self.jobs[job_id] = polls + 1
        return self.statuses[min(polls, len(self.statuses) - 1)]


class _QueueHandler(_Handler):
    state: FakeQueue
    _ids = itertools.count(1)

    def new_job(self, given: Any) -> str:
        job_id = f"job-{next(self._ids)}"
        self.state.jobs[job_id] = 0
        self.state.inputs[job_id] = given
        return job_id

    def results(self) -> list[str]:
        return [self.image_ref(png((0, 200, 30 * i)), self.state.output)
                for i in range(self.state.outputs)]

    def _fault(self, faults: list[Any]) -> bool:  # the providers' own 429 and 500 bodies
        if faults and faults[0] in ("429", "500") or (
                faults and isinstance(faults[0], tuple) and faults[0][0] == "429"):
            fault = faults.pop(0)
            if (fault[0] if isinstance(fault, tuple) else fault) == "429":
                headers = {"Retry-After": str(fault[1])} if isinstance(fault, tuple) else {}
                self._send(429, self.error_body(429, "Rate limit exceeded."), headers)
            else:
                self._send(500, self.error_body(500, "Internal server error."))
            return True
        if faults and isinstance(faults[0], tuple) and faults[0][0] == "error":
            fault = faults.pop(0)
            self._send(int(fault[1]), self.error_body(int(fault[1]), str(fault[2])))
            return True
        return super()._fault(faults)

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message}}

    def _authorised(self) -> bool:
        if self.headers.get("Authorization", "") == self.auth():
            return True
        self._send(401, self.error_body(401, "Invalid API key."))
        return False

    def auth(self) -> str:
        return f"Bearer {self.state.api_key}"

    def polled_job(self, call: Call, prefix: str, missing: str) -> str | None:
        """The job a status poll at ``prefix``<id> asks for; None once the answer is sent (not
        found, a wrong key, a queued fault, or ``missing``, formatted with the job_id)."""
        if not call.path.startswith(prefix):
            self._send(404, self.error_body(404, "Not found"))
            return None
        if not self._authorised() or self._fault(self.state.poll_faults):
            return None
        job_id = call.path.removeprefix(prefix)
        if job_id not in self.state.jobs:
            self._send(404, self.error_body(404, missing.format(job_id=job_id)))
            return None
        return job_id


# --- FASHN ---------------------------------------------------------------------------------------


@dataclass
class FakeFashn(FakeQueue):
    api_key: str = "fa-test-0123456789"
    statuses: list[str] = field(default_factory=lambda: [
        "starting", "in_queue", "processing", "processing", "completed"])


class _FashnHandler(_QueueHandler):
    state: FakeFashn

    def error_body(self, status: int, message: str) -> Any:
        names = {400: "BadRequest", 401: "UnauthorizedAccess", 404: "NotFound",
                 429: "RateLimitExceeded", 500: "InternalServerError"}
        return {"error": names.get(status, "Error"), "message": message}

    def handle_post(self, call: Call) -> None:
        if call.path != "/v1/run":
            return self._send(404, self.error_body(404, "Not found"))
        if not self._authorised() or self._fault(self.state.faults):
            return None
        body = call.json or {}
        model, inputs = body.get("model_name"), body.get("inputs")
        if model not in FASHN_MODELS or not isinstance(inputs, dict) or set(body) - {
                "model_name", "inputs"}:
            # What the old flat body gets from us: the real API would run tryon-v1.5.
            return self._send(400, self.error_body(
                400, "model_name and inputs are required."))
        for key in FASHN_MODELS[model]:
            if not is_data_url(inputs.get(key)):
                return self._send(400, {"id": None, "error": {
                    "name": "InputValidationError", "message": f"{key} must be a data URL."}})
        if "category" in inputs and inputs["category"] not in FASHN_CATEGORIES:
            return self._send(400, self.error_body(400, "category is invalid."))
        return self._send(200, {"id": self.new_job(body), "error": None})

    def handle_get(self, call: Call) -> None:
        job_id = self.polled_job(call, "/v1/status/", "Prediction {job_id} not found.")
        if job_id is None:
            return None
        status = self.state.next_status(job_id)
        answer: dict[str, Any] = {"id": job_id, "status": status, "output": None, "error": None}
        if status == "completed":
            answer["output"] = self.results()
        elif status == "failed":
            answer["error"] = {"name": "ImageLoadError", "message": self.state.error_message}
        return self._send(200, answer, {"X-FASHN-Credits-Used": "1"}
                          if status == "completed" else None)


# --- fal -----------------------------------------------------------------------------------------


@dataclass
class FakeFal(FakeQueue):
    api_key: str = "fal-key-id:fal-key-secret"
    statuses: list[str] = field(default_factory=lambda: [
        "IN_QUEUE", "IN_QUEUE", "IN_PROGRESS", "COMPLETED"])
    result_error: tuple[int, Any] | None = None  # what the result GET answers instead


class _FalHandler(_QueueHandler):
    state: FakeFal

    def auth(self) -> str:
        return f"Key {self.state.api_key}"

    def error_body(self, status: int, message: str) -> Any:
        return {"detail": message}

    def handle_post(self, call: Call) -> None:
        if "/requests/" in call.path:
            return self._send(405, self.error_body(405, "Method Not Allowed"))
        if not self._authorised() or self._fault(self.state.faults):
            return None
        model = urllib.parse.unquote(call.path.strip("/"))
        body = call.json
        if not isinstance(body, dict):
            return self._send(422, {"detail": [{"loc": ["body"], "msg": "field required",
                                                "type": "value_error.missing"}]})
        missing = [k for k in ("human_image_url", "garment_image_url") if k not in body]
        if missing:
            return self._send(422, {"detail": [{"loc": ["body", k], "msg": "field required",
                                                "type": "value_error.missing"}
                                               for k in missing]})
        job_id = self.new_job({"model": model, "input": body})
        root = "/".join(model.split("/")[:2])
        base = f"{self.state.origin}/{root}/requests/{job_id}"
        return self._send(200, {"request_id": job_id, "response_url": base,
                                "status_url": base + "/status", "cancel_url": base + "/cancel",
                                "queue_position": 0})

    def handle_get(self, call: Call) -> None:
        path = call.path.partition("?")[0]
        if "/requests/" not in path:
            return self._send(404, self.error_body(404, "Not found"))
        if not self._authorised() or self._fault(self.state.poll_faults):
            return None
        root, _, rest = path.strip("/").partition("/requests/")
        job_id, _, tail = rest.partition("/")
        if job_id not in self.state.jobs or root.count("/") != 1:
            return self._send(404, self.error_body(404, "Request not found"))
        if tail == "status":
            status = self.state.next_status(job_id)
            answer: dict[str, Any] = {"status": status}
            if status == "IN_QUEUE":
                answer["queue_position"] = max(0, 2 - self.state.jobs[job_id])
            answer["response_url"] = f"{self.state.origin}/{root}/requests/{job_id}"
            if status == "COMPLETED":
                answer["metrics"] = {"inference_time": 1.5}
            return self._send(202 if status != "COMPLETED" else 200, answer)
        if tail:
            return self._send(404, self.error_body(404, "Not found"))
        if self.state.result_error is not None:
            status_code, body = self.state.result_error
            return self._send(status_code, body)
        url = self.results()[0]
        return self._send(200, {"image": {"url": url, "content_type": "image/png",
                                          "width": 64, "height": 48},
                                "seed": 42, "has_nsfw_concepts": [False]})


# --- Replicate -----------------------------------------------------------------------------------


@dataclass
class FakeReplicate(FakeQueue):
    api_key: str = "r8_test0123456789"
    statuses: list[str] = field(default_factory=lambda: [
        "starting", "processing", "processing", "succeeded"])
    logs: list[str] = field(default_factory=list)  # what successive polls' logs say


class _ReplicateHandler(_QueueHandler):
    state: FakeReplicate

    def error_body(self, status: int, message: str) -> Any:
        return {"title": "Error", "detail": message, "status": status}

    def prediction(self, job_id: str, status: str) -> dict[str, Any]:
        given = self.state.inputs[job_id]
        answer: dict[str, Any] = {
            "id": job_id, "model": given.get("model", ""), "version": given.get("version", ""),
            "input": given.get("input"), "status": status, "output": None, "error": None,
            "logs": "", "metrics": {}, "created_at": "2026-01-01T00:00:00Z",
            "urls": {"get": f"{self.state.origin}/v1/predictions/{job_id}",
                     "cancel": f"{self.state.origin}/v1/predictions/{job_id}/cancel"}}
        polls = self.state.jobs[job_id]
        if self.state.logs:
            answer["logs"] = self.state.logs[min(polls, len(self.state.logs)) - 1] if polls \
                else ""
        if status == "succeeded":
            results = self.results()
            answer["output"] = results[0] if len(results) == 1 else results
            answer["metrics"] = {"predict_time": 4.2}
        elif status == "failed":
            answer["error"] = self.state.error_message
        return answer

    def handle_post(self, call: Call) -> None:
        if not self._authorised() or self._fault(self.state.faults):
            return None
        body = call.json or {}
        if not isinstance(body.get("input"), dict):
            return self._send(422, self.error_body(422, "input is required"))
        if call.path == "/v1/predictions":
            if not body.get("version"):
                return self._send(422, self.error_body(422, "version is required"))
            given = {"version": body["version"], "input": body["input"]}
        elif call.path.startswith("/v1/models/") and call.path.endswith("/predictions"):
            given = {"model": call.path.removeprefix("/v1/models/").removesuffix(
                "/predictions"), "input": body["input"]}
        else:
            return self._send(404, self.error_body(404, "Not found"))
        job_id = self.new_job(given)
        return self._send(201, self.prediction(job_id, "starting"))

    def handle_get(self, call: Call) -> None:
        job_id = self.polled_job(call, "/v1/predictions/", "Prediction not found")
        if job_id is None:
            return None
        status = self.state.next_status(job_id)
        return self._send(200, self.prediction(job_id, status))


# --- Vertex AI -----------------------------------------------------------------------------------


@dataclass
class FakeVertex(FakeServer):
    project: str = "atelier-test"
    location: str = "europe-west4"
    private_key: str = ""
    public_key: Any = None
    client_email: str = "tryon@atelier-test.iam.gserviceaccount.com"
    token: str = "ya29.test-token-0123456789"
    token_error: tuple[int, Any] | None = None
    outputs: int = 1
    filtered: str = ""  # answer a raiFilteredReason instead of images
    slow_seconds: float = 2.0

    def service_account(self) -> dict[str, Any]:
        return {"type": "service_account", "project_id": self.project,
                "private_key_id": "k1", "private_key": self.private_key,
                "client_email": self.client_email, "client_id": "1",
                "token_uri": f"{self.origin}/token"}

    def predict_path(self, model: str = "virtual-try-on-preview-08-04") -> str:
        return (f"/v1/projects/{self.project}/locations/{self.location}/publishers/google/"
                f"models/{model}:predict")


class _VertexHandler(_Handler):
    state: FakeVertex

    def google_error(self, status: int, message: str, code: str) -> None:
        self._send(status, {"error": {"code": status, "message": message, "status": code}})

    def _fault(self, faults: list[Any]) -> bool:
        if faults and (faults[0] == "429" or isinstance(faults[0], tuple)
                       and faults[0][0] == "429"):
            fault = faults.pop(0)
            headers = {"Retry-After": str(fault[1])} if isinstance(fault, tuple) else {}
            self._send(429, {"error": {"code": 429, "message": "Quota exceeded for "
                                       "aiplatform.googleapis.com/online_prediction_requests.",
                                       "status": "RESOURCE_EXHAUSTED"}}, headers)
            return True
        if faults and isinstance(faults[0], tuple) and faults[0][0] == "error":
            fault = faults.pop(0)
            self.google_error(int(fault[1]), str(fault[2]), "INVALID_ARGUMENT")
            return True
        return super()._fault(faults)

    def token(self, call: Call) -> None:
        raise NotImplementedError

    def handle_post(self, call: Call) -> None:
        if call.path == "/token":
            return self.token(call)
        if self.headers.get("Authorization") != f"Bearer {self.state.token}":
            return self.google_error(401, "Request had invalid authentication credentials.",
                                     "UNAUTHENTICATED")
        model = call.path.rpartition("/models/")[2].removesuffix(":predict")
        if not call.path.endswith(":predict") or call.path != self.state.predict_path(model):
            return self.google_error(404, f"Publisher model {call.path} was not found.",
                                     "NOT_FOUND")
        if self._fault(self.state.faults):
            return None
        body = call.json or {}
        instances = body.get("instances")
        if not isinstance(instances, list) or len(instances) != 1:
            return self.google_error(400, "instances must hold one instance.",
                                     "INVALID_ARGUMENT")
        instance = instances[0]
        person = (instance.get("personImage") or {}).get("image") or {}
        products = instance.get("productImages") or []
        if "bytesBase64Encoded" not in person or not products or not all(
                "bytesBase64Encoded" in (p.get("image") or {}) for p in products):
            return self.google_error(400, "personImage and productImages are required.",
                                     "INVALID_ARGUMENT")
        if self.state.filtered:
            return self._send(200, {"predictions": [{"raiFilteredReason": self.state.filtered}]})
        count = int((body.get("parameters") or {}).get("sampleCount") or 1)
        images = [png((0, 200, 30 * i)) for i in range(count)]
        return self._send(200, {"predictions": [
            {"mimeType": "image/png", "bytesBase64Encoded": base64.b64encode(im).decode()}
            for im in images]})



def _check_assertion(assertion: str, public_key: Any) -> dict[str, Any]:
    """The claims of a service account's JWT, its RS256 signature checked."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    def b64(part: str) -> bytes:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

    header, claims, signature = assertion.split(".")
    public_key.verify(b64(signature), f"{header}.{claims}".encode(), padding.PKCS1v15(),
                      hashes.SHA256())
    return dict(json.loads(b64(claims)))


class _VertexTokenHandler(_VertexHandler):
    """The token endpoint's form body recorded too."""

    def _record_form(self, call: Call, ctype: str, body: bytes) -> None:
        if ctype.startswith("application/x-www-form-urlencoded"):
            call.form = urllib.parse.parse_qs(body.decode())

    def token(self, call: Call) -> None:
        if self.state.token_error is not None:
            status, body = self.state.token_error
            return self._send(status, body)
        grant = (call.form.get("grant_type") or [""])[0]
        assertion = (call.form.get("assertion") or [""])[0]
        if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" or not assertion:
            return self._send(400, {"error": "unsupported_grant_type",
                                    "error_description": "Invalid grant_type."})
        try:
            claims = _check_assertion(assertion, self.state.public_key)
        except Exception:  # noqa: BLE001 - any bad signature or shape is Google's invalid_grant
            return self._send(400, {"error": "invalid_grant",
                                    "error_description": "Invalid JWT Signature."})
        # Google's audience for the grant is its token endpoint whatever token_uri says.
        if claims.get("iss") != self.state.client_email or claims.get("aud") != \
                "https://oauth2.googleapis.com/token" or claims.get("exp", 0) < time.time():
            return self._send(400, {"error": "invalid_grant",
                                    "error_description": "Invalid JWT: claims."})
        call.json = {"claims": claims}
        return self._send(200, {"access_token": self.state.token, "expires_in": 3599,
                                "token_type": "Bearer"})


def _rsa_key() -> tuple[str, Any]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return pem, key.public_key()


# --- serving -------------------------------------------------------------------------------------


@contextmanager
def _serve(handler: type[_Handler], state: FakeServer, root: str) -> Iterator[Any]:
    handler_cls = type(f"Bound{handler.__name__}", (handler,), {"state": state})
    with serving(handler_cls) as server:
        state.origin = server.origin
        state.url = state.origin + root
        yield state


Served = TypeVar("Served", bound=FakeServer)


def _fake(handler: type[_Handler], state: Callable[..., Served],
          root: str) -> Callable[..., AbstractContextManager[Served]]:
    """A provider's loopback server: its state made from the call's keywords, served at root."""

    @contextmanager
    def fake(**kwargs: Any) -> Iterator[Served]:
        with _serve(handler, state(**kwargs), root) as served:
            yield served

    return fake


fake_fashn = _fake(_FashnHandler, FakeFashn, "/v1")
fake_fal = _fake(_FalHandler, FakeFal, "")
fake_replicate = _fake(_ReplicateHandler, FakeReplicate, "/v1")


@contextmanager
def fake_vertex(**kwargs: Any) -> Iterator[FakeVertex]:
    pem, public = _rsa_key()
    state = FakeVertex(private_key=pem, public_key=public, **kwargs)
    with _serve(_VertexTokenHandler, state, "/v1") as served:
        yield served
