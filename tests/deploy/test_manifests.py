"""Checks of deploy/: the Dockerfile, compose file, Kubernetes manifests, systemd units and
nginx configuration agree with each other and with the code (workers/queues.py, settings).

Offline and quick. Tools that may be missing (kubernetes-validate, systemd-analyze, a compose
client) skip their one test with the reason.
"""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from workers.queues import QUEUES

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
SYSTEMD = DEPLOY / "systemd"
MAX_HARD_LIMIT = max(q.hard_limit for q in QUEUES.values())
STATEFUL_IMAGES = ("postgres", "redis", "minio", "mc", "nginx")


def load_all(path: Path) -> list[dict[str, Any]]:
    with path.open() as f:
        return [doc for doc in yaml.safe_load_all(f) if doc is not None]


def compose() -> dict[str, Any]:
    (doc,) = load_all(DEPLOY / "compose.yaml")
    return doc


def k8s_docs() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    docs: list[dict[str, Any]] = []
    for name in kustomization["resources"]:
        docs.extend(load_all(K8S / name))
    return docs


def k8s_by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s_docs() if d["kind"] == kind}


def env_example() -> dict[str, str]:
    values = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key] = value
    return values


def seconds(value: str | int) -> int:
    """Compose durations as written here: 330s, 5m, or a bare number."""
    if isinstance(value, int):
        return value
    total = 0
    for amount, unit in re.findall(r"(\d+)([hms])", value):
        total += int(amount) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(SYSTEMD / name)
    return parser


# --- every YAML parses -----------------------------------------------------------------------

def test_every_yaml_file_parses() -> None:
    files = sorted(DEPLOY.rglob("*.yaml")) + sorted(DEPLOY.rglob("*.yml"))
    files = [f for f in files if "local" not in f.relative_to(DEPLOY).parts]
    assert len(files) >= 10
    for path in files:
        docs = load_all(path)
        assert docs, f"{path} holds no document"
        assert all(isinstance(d, dict) for d in docs), path


def test_kustomization_lists_every_manifest() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == on_disk
    (image,) = kustomization["images"]
    assert image["name"] == "atelier" and image["newTag"] != "latest"


# --- compose ---------------------------------------------------------------------------------

def test_compose_has_one_worker_service_per_queue() -> None:
    services = compose()["services"]
    workers = {name: s for name, s in services.items() if s.get("command", [None])[0] == "worker"}
    assert {s["command"][1] for s in workers.values()} == set(QUEUES), (
        "every queue of workers/queues.py needs exactly one worker service in compose.yaml"
    )
    assert len(workers) == len(QUEUES)
    for name, service in workers.items():
        queue = service["command"][1]
        assert name == f"worker-{queue}"
        assert service["environment"]["ATELIER_QUEUE"] == queue
        # Warm shutdown: running jobs finish before Docker sends SIGKILL.
        assert seconds(service["stop_grace_period"]) > QUEUES[queue].hard_limit, name


def test_compose_runs_exactly_one_beat() -> None:
    services = compose()["services"]
    beats = [n for n, s in services.items() if s.get("command", [None])[0] == "beat"]
    assert beats == ["beat"]
    beat = services["beat"]
    # container_name makes `--scale beat=2` impossible; no replicas either.
    assert beat.get("container_name")
    assert beat.get("deploy", {}).get("replicas", 1) == 1


def test_compose_services_and_dependencies() -> None:
    services = compose()["services"]
    for required in ("web", "beat", "flower", "migrate", "redis", "postgres", "minio",
                     "minio-init", "nginx"):
        assert required in services, required
    assert services["web"]["command"] == ["web"]
    assert services["migrate"]["command"] == ["migrate"]
    assert services["migrate"]["restart"] == "no"
    for name, service in services.items():
        if service.get("image", "").startswith("${ATELIER_IMAGE") and name != "migrate":
            deps = service["depends_on"]
            assert deps["migrate"]["condition"] == "service_completed_successfully", name
            assert deps["postgres"]["condition"] == "service_healthy", name
            assert deps["redis"]["condition"] == "service_healthy", name
    assert services["minio-init"]["depends_on"]["minio"]["condition"] == "service_healthy"
    assert "mc mb --ignore-existing" in services["minio-init"]["command"][0]


def test_compose_healthchecks() -> None:
    services = compose()["services"]
    one_shots = {"migrate", "minio-init"}
    for name, service in services.items():
        if name in one_shots:
            continue
        assert "healthcheck" in service and service["healthcheck"]["test"], name
    assert services["web"]["healthcheck"]["test"][-1] == "/readyz"
    assert "/healthz" in " ".join(services["nginx"]["healthcheck"]["test"])


def test_compose_redis_is_persistent_and_never_evicts() -> None:
    redis = compose()["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    assert any(v.endswith(":/data") for v in redis["volumes"])


def test_compose_flower_behind_basic_auth_with_persistent_db() -> None:
    services = compose()["services"]
    flower = services["flower"]
    assert flower["command"][0] == "flower"
    assert "ports" not in flower  # reached through nginx (TLS) only
    assert any(v.split(":")[1] == "/data" for v in flower["volumes"])
    entrypoint = (DEPLOY / "docker" / "entrypoint.sh").read_text()
    assert '--basic-auth="$FLOWER_BASIC_AUTH"' in entrypoint
    assert "--persistent=True" in entrypoint
    assert "FLOWER_BASIC_AUTH" in env_example()


def test_compose_images_are_pinned() -> None:
    for name, service in compose()["services"].items():
        image = service.get("image", "")
        if image.startswith("${"):
            # The application image: its default and the value .env.example sets are pinned
            # too (a tag compose builds and runs, never "latest").
            variable, _, default = image[2:-1].partition(":-")
            assert default and variable in env_example(), f"{name}: {image}"
            for value in (default, env_example()[variable]):
                repo, _, tag = value.rpartition(":")
                assert repo and tag and tag != "latest", f"{name}: {value}"
            continue
        repo, _, tag = image.rpartition(":")
        assert repo and tag, f"{name}: {image} has no tag"
        assert tag != "latest", f"{name}: {image}"
        if any(repo.endswith(s) for s in STATEFUL_IMAGES):
            assert re.search(r"\d", tag), f"{name}: {image} needs a versioned tag"


def test_compose_builds_the_application_image() -> None:
    """`up -d --build` (the header) builds the image from the checkout under its one name."""
    header = (DEPLOY / "compose.yaml").read_text().split("\n\n", 1)[0]
    assert "up -d --build" in header
    app = [(n, s) for n, s in compose()["services"].items()
           if s.get("image", "").startswith("${ATELIER_IMAGE")]
    assert {n for n, _ in app} >= {"web", "migrate", "beat", "flower"} | {
        f"worker-{q}" for q in QUEUES}
    for name, service in app:
        build = service["build"]
        assert (DEPLOY / build["context"]).resolve() == ROOT, name
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert len({(s["image"], s["build"]["context"], s["build"]["dockerfile"])
                for _, s in app}) == 1, "one image for every application service"
    for name, service in compose()["services"].items():
        assert "build" not in service or (name, service) in app, f"{name} builds another image"


def test_compose_variables_are_documented_in_env_example() -> None:
    text = (DEPLOY / "compose.yaml").read_text()
    used = set(re.findall(r"(?<!\$)\$\{([A-Z0-9_]+)(?::-[^}]*)?\}", text))
    documented = env_example()
    missing = used - documented.keys()
    assert not missing, f"compose.yaml uses variables that .env.example lacks: {missing}"


def test_env_example_has_no_real_secrets() -> None:
    values = env_example()
    for key in ("DJANGO_SECRET_KEY", "POSTGRES_PASSWORD", "REDIS_PASSWORD",
                "MINIO_ROOT_PASSWORD", "AWS_SECRET_ACCESS_KEY", "FLOWER_BASIC_AUTH"):
        assert "CHANGE-ME" in values[key], key
    for key in QUEUES:
        assert f"CONCURRENCY_{key.upper()}" in values


def test_nginx_limits_and_bucket_route() -> None:
    conf = (DEPLOY / "nginx" / "atelier.conf").read_text()
    server = conf[conf.index("listen 443"):]
    assert re.search(r"client_max_body_size\s+30m;", server)
    for directive in ("proxy_read_timeout", "proxy_send_timeout"):
        (value,) = re.findall(rf"{directive}\s+(\d+)s;", server)
        assert int(value) >= 300, directive
    assert "ssl_certificate     /etc/nginx/tls/fullchain.pem;" in server
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in server
    bucket = env_example()["AWS_STORAGE_BUCKET_NAME"]
    assert f"location /{bucket}/ {{" in server, "nginx must route the bucket path to MinIO"
    nginx = compose()["services"]["nginx"]
    assert "./nginx/atelier.conf:/etc/nginx/conf.d/default.conf:ro" in nginx["volumes"]


def test_compose_config_with_a_compose_client(tmp_path: Path) -> None:
    if shutil.which("docker") and subprocess.run(
        ["docker", "compose", "version"], capture_output=True, timeout=30
    ).returncode == 0:
        command = ["docker", "compose"]
    elif shutil.which("docker-compose"):
        command = ["docker-compose"]
    else:
        pytest.skip("no compose client (neither `docker compose` nor `docker-compose`)")
    shutil.copy(DEPLOY / "compose.yaml", tmp_path / "compose.yaml")
    shutil.copy(DEPLOY / ".env.example", tmp_path / ".env")
    result = subprocess.run([*command, "-f", "compose.yaml", "config"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    rendered = yaml.safe_load(result.stdout)
    web_env = rendered["services"]["web"]["environment"]
    assert web_env["DATABASE_URL"].startswith("postgres://atelier:")
    assert web_env["REDIS_URL"].startswith("redis://:")
    assert web_env["DJANGO_ALLOWED_HOSTS"] == env_example()["ATELIER_HOST"]
    assert web_env["MINIO_ROOT_PASSWORD"] == ""  # the MinIO admin stays out of the app


# --- Dockerfile and entrypoint ---------------------------------------------------------------

def test_dockerfile_stages_user_and_entrypoint() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    froms = re.findall(r"^FROM (\S+)(?: AS (\S+))?", text, re.M)
    assert froms[0][0].startswith("node:20")
    assert froms[-1][0].startswith("python:3.11-slim")
    assert "npm ci" in text and "npm run build" in text
    assert "COPY --from=webapp /src/webapp/dist/ webapp/dist/" in text
    assert "collectstatic --noinput" in text
    assert "pip install --no-deps -r /tmp/requirements-nodeps.txt" in text
    assert re.search(r"^USER (?!root)\S+", text, re.M)
    assert "PYTHONPATH=/app/platform:/app" in text
    assert 'ENTRYPOINT ["/usr/bin/tini", "--", "/app/deploy/docker/entrypoint.sh"]' in text
    # Every source folder the Python code imports from is copied.
    for folder in ("platform", "workers", "drivesync"):
        assert f"COPY {folder}/ {folder}/" in text


def test_builds_install_the_locks_with_hashes() -> None:
    """The image and `make run` install the product's lock, `make test` the development one:
    every package pinned to one version with its hashes, no test tool in the product's."""
    for name in ("requirements.lock", "requirements-dev.lock"):
        lines = (ROOT / name).read_text().splitlines()
        pins = [line for line in lines if re.match(r"^[A-Za-z0-9][^ ]*==", line)]
        assert pins and all(line.endswith("\\") for line in pins), name  # hashes follow
        assert sum("--hash=sha256:" in line for line in lines) >= len(pins), name
    runtime = (ROOT / "requirements.lock").read_text()
    for needed in ("django==", "celery==", "gunicorn==", "flower==", "whitenoise=="):
        assert needed in runtime.lower(), needed
    for tool in ("pytest==", "mypy==", "playwright==", "ruff=="):
        assert tool not in runtime.lower() and tool in (
            ROOT / "requirements-dev.lock").read_text().lower(), tool
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert "pip install --require-hashes -r /tmp/requirements.lock" in dockerfile
    lib = (ROOT / "deploy" / "local" / "lib.sh").read_text()
    assert '--require-hashes -r "$lock"' in lib


def test_entrypoint_roles() -> None:
    path = DEPLOY / "docker" / "entrypoint.sh"
    assert path.stat().st_mode & 0o111, "entrypoint.sh must be executable"
    assert subprocess.run(["sh", "-n", str(path)]).returncode == 0
    text = path.read_text()
    for role in ("web", "worker", "beat", "flower", "migrate", "wait-for-migrations", "probe"):
        assert re.search(rf"^  {re.escape(role)}\)$", text, re.M), role
    assert "config.wsgi:application" in text
    assert '-Q "$queue"' in text and "CONCURRENCY_$upper" in text


def test_entrypoint_probe_fails_when_nothing_listens() -> None:
    # The probe role itself runs (python, headers) and reports failure with a non-zero exit.
    result = subprocess.run(
        ["sh", str(DEPLOY / "docker" / "entrypoint.sh"), "probe", "/healthz"],
        env={"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin", "PORT": "1",
             "DJANGO_ALLOWED_HOSTS": "atelier.example.com"},
        capture_output=True, text=True, timeout=30,
    )
    assert result.returncode == 1
    assert "probe /healthz" in result.stderr


# --- Kubernetes ------------------------------------------------------------------------------

def test_k8s_web_deployment_probes_and_service() -> None:
    web = k8s_by_kind("Deployment")["atelier-web"]
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert container["args"] == ["web"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    allowed = k8s_by_kind("ConfigMap")["atelier-config"]["data"]["DJANGO_ALLOWED_HOSTS"]
    for probe in ("readinessProbe", "livenessProbe"):
        headers = {h["name"]: h["value"] for h in container[probe]["httpGet"]["httpHeaders"]}
        assert headers["Host"] in allowed.split(","), "probes would get 400 DisallowedHost"
    service = k8s_by_kind("Service")["atelier-web"]
    assert service["spec"]["selector"] == web["spec"]["selector"]["matchLabels"]
    ingress = k8s_by_kind("Ingress")["atelier"]
    annotations = ingress["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/proxy-body-size"] == "30m"
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 300
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "atelier-web"


def test_k8s_every_pod_uses_config_and_secret() -> None:
    for kind in ("Deployment", "Job"):
        for name, doc in k8s_by_kind(kind).items():
            pod = doc["spec"]["template"]["spec"]
            for container in pod["containers"] + pod.get("initContainers", []):
                refs = {(next(iter(r)), next(iter(r.values()))["name"])
                        for r in container["envFrom"]}
                assert refs == {("configMapRef", "atelier-config"),
                                ("secretRef", "atelier-secrets")}, (name, container["name"])
                assert container["image"] == "atelier", name  # tag set by kustomization
            assert pod["securityContext"]["runAsNonRoot"] is True, name


def test_k8s_one_worker_deployment_and_scaledobject_per_queue() -> None:
    deployments = k8s_by_kind("Deployment")
    scaled = k8s_by_kind("ScaledObject")
    workers = {n: d for n, d in deployments.items() if n.startswith("atelier-worker-")}
    assert {d["spec"]["template"]["metadata"]["labels"]["atelier.io/queue"]
            for d in workers.values()} == set(QUEUES)
    assert len(workers) == len(QUEUES) == len(scaled)
    for queue, spec in QUEUES.items():
        deployment = workers[f"atelier-worker-{queue}"]
        pod = deployment["spec"]["template"]["spec"]
        assert pod["containers"][0]["args"] == ["worker", queue]
        assert pod["terminationGracePeriodSeconds"] > spec.hard_limit, queue
        assert "replicas" not in deployment["spec"], "KEDA owns the replica count"
        so = scaled[f"atelier-worker-{queue}"]
        assert so["apiVersion"] == "keda.sh/v1alpha1"
        assert so["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
        (trigger,) = so["spec"]["triggers"]
        assert trigger["type"] == "redis"
        assert trigger["metadata"]["listName"] == queue
        assert int(trigger["metadata"]["listLength"]) >= 1
        assert so["spec"]["minReplicaCount"] <= so["spec"]["maxReplicaCount"]
        # The scaler reads these from the worker's envFrom.
        config = k8s_by_kind("ConfigMap")["atelier-config"]["data"]
        secret = k8s_by_kind("Secret")["atelier-secrets"]["stringData"]
        assert trigger["metadata"]["addressFromEnv"] in config
        assert trigger["metadata"]["passwordFromEnv"] in secret
    # People wait on the interactive queue: never scale it to zero.
    assert scaled["atelier-worker-interactive"]["spec"]["minReplicaCount"] >= 1


def test_k8s_beat_is_single_and_recreated() -> None:
    deployments = k8s_by_kind("Deployment")
    beats = [d for d in deployments.values()
             if d["spec"]["template"]["spec"]["containers"][0]["args"] == ["beat"]]
    assert len(beats) == 1
    (beat,) = beats
    assert beat["spec"]["replicas"] == 1
    assert beat["spec"]["strategy"]["type"] == "Recreate"
    assert not any(so["spec"]["scaleTargetRef"]["name"] == beat["metadata"]["name"]
                   for so in k8s_by_kind("ScaledObject").values())


def test_k8s_flower_migrate_and_secret_placeholders() -> None:
    flower = k8s_by_kind("Deployment")["atelier-flower"]
    assert flower["spec"]["replicas"] == 1 and flower["spec"]["strategy"]["type"] == "Recreate"
    assert "atelier-flower" in k8s_by_kind("Service")
    assert "atelier-flower" in k8s_by_kind("PersistentVolumeClaim")
    job = k8s_by_kind("Job")["atelier-migrate"]
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["migrate"]
    secret = k8s_by_kind("Secret")["atelier-secrets"]["stringData"]
    for key in ("DJANGO_SECRET_KEY", "DATABASE_URL", "REDIS_URL", "FLOWER_BASIC_AUTH",
                "AWS_SECRET_ACCESS_KEY"):
        assert "CHANGE-ME" in secret[key], key


def k8s_validate() -> Any:
    """deploy/local/k8s_validate.py, which `make lint` runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("k8s_validate",
                                                  DEPLOY / "local" / "k8s_validate.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_k8s_manifests_against_kubernetes_schemas() -> None:
    pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed (pip)")
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    # Strict: unknown fields (typos) fail too. KEDA's ScaledObjects (a CRD, no bundled
    # schema) are skipped there and checked structurally above.
    checked, skipped, errors = k8s_validate().validate(
        [K8S / name for name in kustomization["resources"]])
    assert errors == []
    assert len(checked) >= 15
    assert all(": ScaledObject/" in name for name in skipped), skipped


def test_k8s_validate_reports_typos_and_unknown_kinds(tmp_path: Path) -> None:
    pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is not installed (pip)")
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k: v}\nextra: 1\n---\n"
        "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: b}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    tool = k8s_validate()
    checked, skipped, errors = tool.validate([bad])
    assert checked == ["bad.yaml: ConfigMap/c"] and skipped == []
    assert [e.split(":")[1].strip() for e in errors] == ["ConfigMap/a", "Deploymnet/b"]
    assert tool.main([str(bad)]) == 1
    assert tool.main([str(K8S / "web.yaml")]) == 0


# --- systemd ---------------------------------------------------------------------------------

def test_systemd_units() -> None:
    names = {p.name for p in SYSTEMD.iterdir()}
    assert {"atelier-web.service", "atelier-worker@.service", "atelier-beat.service",
            "atelier-flower.service", "atelier.target"} <= names
    target = unit("atelier.target")
    wants = target["Unit"]["Wants"].split()
    assert {f"atelier-worker@{q}.service" for q in QUEUES} <= set(wants), (
        "atelier.target must start a worker for every queue"
    )
    assert wants.count("atelier-beat.service") == 1
    for name in ("atelier-web.service", "atelier-worker@.service", "atelier-beat.service",
                 "atelier-flower.service"):
        service = unit(name)["Service"]
        assert service["EnvironmentFile"] == "/etc/atelier/atelier.env", name
        assert service["Restart"] == "on-failure", name
        assert service["KillSignal"] == "SIGTERM", name
        assert unit(name)["Install"]["WantedBy"] == "atelier.target", name
    worker = unit("atelier-worker@.service")["Service"]
    assert worker["ExecStart"].endswith("entrypoint.sh worker %i")
    assert worker["KillMode"] == "mixed"  # TERM to celery's main process: warm shutdown
    assert int(worker["TimeoutStopSec"]) > MAX_HARD_LIMIT, (
        "a worker must be given longer than the longest hard time limit to finish its job"
    )


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed on this machine")
    # The units point at /opt/atelier; verify checks that ExecStart exists, so point them
    # at this checkout (whose deploy/docker/entrypoint.sh is the same file).
    for path in SYSTEMD.iterdir():
        (tmp_path / path.name).write_text(path.read_text().replace("/opt/atelier", str(ROOT)))
    units = [f"atelier-worker@{q}.service" for q in QUEUES] + [
        "atelier-web.service", "atelier-beat.service", "atelier-flower.service",
        "atelier-migrate.service", "atelier.target"]
    result = subprocess.run(["systemd-analyze", "verify", "--man=no",
                             *(str(tmp_path / u) for u in units)],
                            capture_output=True, text=True, timeout=60)
    # verify only warns (exit 0) on unknown keys and bad values: fail on any line about ours.
    ours = [line for line in (result.stdout + result.stderr).splitlines()
            if str(tmp_path) in line or "atelier" in line]
    assert result.returncode == 0 and not ours, result.stdout + result.stderr


# --- Kubernetes hardening: Pod Security "restricted", read-only roots, policies ---------------

POD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job")
# The volume types Pod Security "restricted" admits.
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                      "persistentVolumeClaim", "projected", "secret"}


def pod_templates() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(name, pod template metadata, pod spec) of every workload, CronJobs included."""
    pods = []
    for doc in k8s_docs():
        if doc["kind"] in POD_KINDS:
            template = doc["spec"]["template"]
        elif doc["kind"] == "CronJob":
            template = doc["spec"]["jobTemplate"]["spec"]["template"]
        else:
            continue
        pods.append((doc["metadata"]["name"], template["metadata"], template["spec"]))
    return pods


def all_containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return pod["containers"] + pod.get("initContainers", []) + pod.get("ephemeralContainers", [])


def selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    """A Kubernetes label selector (matchLabels and matchExpressions) against labels."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for expr in selector.get("matchExpressions", []):
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def container_env(container: dict[str, Any]) -> dict[str, str]:
    """What a container sees: the image's ENV, then the ConfigMap (envFrom), then env."""
    env = dockerfile_env()
    env |= k8s_by_kind("ConfigMap")["atelier-config"]["data"]
    env |= {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    return env


def dockerfile_env() -> dict[str, str]:
    text = (DEPLOY / "Dockerfile").read_text()
    runtime = text[text.rindex("\nFROM "):]
    env: dict[str, str] = {}
    for block in re.findall(r"^ENV ((?:.*\\\n)*.*)$", runtime, re.M):
        for key, value in re.findall(r"([A-Z_][A-Z0-9_]*)=(\S+)", block):
            env[key] = value
    return env


def test_k8s_every_workload_has_a_pod_template() -> None:
    components = {meta["labels"]["app.kubernetes.io/component"] for _, meta, _ in pod_templates()}
    assert components == {"web", "worker", "beat", "flower", "migrate"}
    names = {name for name, _, _ in pod_templates()}
    assert {f"atelier-worker-{q}" for q in QUEUES} <= names


def test_k8s_every_pod_meets_pod_security_restricted() -> None:
    for name, _, pod in pod_templates():
        security = pod["securityContext"]
        assert security["runAsNonRoot"] is True, name
        assert security.get("runAsUser", 10001) != 0, name
        assert security["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for host in ("hostNetwork", "hostPID", "hostIPC"):
            assert not pod.get(host, False), (name, host)
        assert pod.get("automountServiceAccountToken") is False, name
        for volume in pod.get("volumes", []):
            kinds = set(volume) - {"name"}
            assert kinds <= RESTRICTED_VOLUMES, (name, volume["name"], kinds)
        for container in all_containers(pod):
            where = (name, container["name"])
            csc = container["securityContext"]
            assert csc["allowPrivilegeEscalation"] is False, where
            assert csc.get("privileged", False) is False, where
            assert csc["capabilities"]["drop"] == ["ALL"], where
            assert set(csc["capabilities"].get("add", [])) <= {"NET_BIND_SERVICE"}, where
            assert csc["readOnlyRootFilesystem"] is True, where
            assert csc.get("runAsUser", 10001) != 0 and csc.get("runAsNonRoot", True), where
            assert csc.get("seccompProfile", {"type": "RuntimeDefault"}) == {"type": "RuntimeDefault"}, where
            assert not any("hostPort" in p for p in container.get("ports", [])), where


def test_k8s_pods_run_as_the_image_user() -> None:
    """The image's user is numeric (kubelet can check runAsNonRoot), exists, owns /data,
    and is the user every pod runs as."""
    text = (DEPLOY / "Dockerfile").read_text()
    (user,) = re.findall(r"^USER (\S+)", text, re.M)
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and gid.isdigit() and int(uid) >= 10000, user
    assert f"useradd --system --uid {uid}" in text and f"groupadd --system --gid {gid}" in text
    assert re.search(r"chown -R atelier:atelier /data\b", text)
    assert re.search(r"mkdir -p /data/media /data/drives", text)
    for name, _, pod in pod_templates():
        security = pod["securityContext"]
        assert str(security["runAsUser"]) == uid, name
        assert str(security["runAsGroup"]) == gid, name
        assert str(security.get("fsGroup", gid)) == gid, name
        for container in all_containers(pod):
            for key in ("runAsUser", "runAsGroup"):
                assert key not in container.get("securityContext", {}), (name, key)
    # The image's own defaults, for compose and docker run: no bytecode, matplotlib in /tmp.
    env = dockerfile_env()
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["MPLCONFIGDIR"].startswith("/tmp/")
    assert "python -m compileall" in text


def writable_mounts(pod: dict[str, Any], container: dict[str, Any]) -> list[str]:
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    paths = []
    for mount in container.get("volumeMounts", []):
        volume = volumes[mount["name"]]
        if mount.get("readOnly"):
            continue
        if "emptyDir" in volume or "persistentVolumeClaim" in volume:
            paths.append(mount["mountPath"].rstrip("/") + "/")
    return paths


def on_writable_volume(path: str, mounts: list[str]) -> bool:
    return any((path.rstrip("/") + "/").startswith(m) for m in mounts)


def test_k8s_every_written_path_is_a_volume() -> None:
    """With a read-only root, whatever a process writes must be on a volume."""
    for name, meta, pod in pod_templates():
        component = meta["labels"]["app.kubernetes.io/component"]
        for container in all_containers(pod):
            where = (name, container["name"])
            mounts = writable_mounts(pod, container)
            env = container_env(container)
            # Temporary files (uploads, spin videos, matplotlib's cache).
            assert on_writable_volume(env.get("TMPDIR", "/tmp"), mounts), where
            # No bytecode next to the code; matplotlib (imported by mediapipe) needs a
            # writable config dir or it warns and makes a new one on every start.
            assert env.get("PYTHONDONTWRITEBYTECODE") == "1", where
            assert on_writable_volume(env["MPLCONFIGDIR"], mounts), where
            if container in pod.get("initContainers", []):
                continue
            if component == "beat":
                schedule = env["BEAT_SCHEDULE_FILE"]
                assert on_writable_volume(schedule.rsplit("/", 1)[0], mounts), where
            if component == "flower":
                db = env["FLOWER_DB"]
                volume = next(v for v in pod["volumes"] for m in container["volumeMounts"]
                              if m["name"] == v["name"] and db.startswith(m["mountPath"]))
                assert "persistentVolumeClaim" in volume, "Flower's history must persist"
            if component in ("web", "worker"):
                assert on_writable_volume(env["DRIVES_ROOT"], mounts), where
    # gunicorn's worker heartbeat files: /dev/shm (tmpfs) instead of the image's /tmp.
    entrypoint = (DEPLOY / "docker" / "entrypoint.sh").read_text()
    assert '--worker-tmp-dir "${WEB_WORKER_TMP_DIR:-/dev/shm}"' in entrypoint
    # gunicorn >= 25.1 puts a control socket under $XDG_RUNTIME_DIR, else $HOME (read-only).
    assert 'export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}"' in entrypoint


def test_k8s_namespace_enforces_pod_security_restricted() -> None:
    (namespace,) = k8s_by_kind("Namespace").values()
    labels = namespace["metadata"]["labels"]
    for mode in ("enforce", "warn", "audit"):
        assert labels[f"pod-security.kubernetes.io/{mode}"] == "restricted", mode


def test_k8s_web_has_a_disruption_budget() -> None:
    web = k8s_by_kind("Deployment")["atelier-web"]
    budgets = [b for b in k8s_by_kind("PodDisruptionBudget").values()
               if selects(b["spec"]["selector"], web["spec"]["template"]["metadata"]["labels"])]
    assert len(budgets) == 1
    spec = budgets[0]["spec"]
    replicas = web["spec"]["replicas"]
    if "minAvailable" in spec:
        assert 1 <= int(spec["minAvailable"]) < replicas, "a drain must be able to move one pod"
    else:
        assert 1 <= int(spec["maxUnavailable"]) < replicas


def policies_for(labels: dict[str, str], kind: str) -> list[dict[str, Any]]:
    return [p for p in k8s_by_kind("NetworkPolicy").values()
            if kind in p["spec"].get("policyTypes", ["Ingress"])
            and selects(p["spec"]["podSelector"], labels)]


def test_k8s_network_policies_deny_ingress_but_from_the_ingress_controller() -> None:
    policies = k8s_by_kind("NetworkPolicy").values()
    assert any(p["spec"]["podSelector"] == {} and p["spec"]["policyTypes"] == ["Ingress"]
               and not p["spec"].get("ingress") for p in policies), "no default-deny ingress"
    controller_peers = None
    for name, meta, pod in pod_templates():
        component = meta["labels"]["app.kubernetes.io/component"]
        rules = [r for p in policies_for(meta["labels"], "Ingress") for r in p["spec"].get("ingress", [])]
        if component not in ("web", "flower"):
            assert rules == [], f"{name} must accept no connection"
            continue
        ports = {c["name"]: c["ports"] for c in pod["containers"]}[component]
        assert rules, name
        for rule in rules:
            # Only the ingress controller: a namespace (and pod) selector, never everyone.
            assert rule["from"], name
            for peer in rule["from"]:
                assert "ipBlock" not in peer and peer.get("namespaceSelector"), name
            if controller_peers is None:
                controller_peers = rule["from"]
            assert rule["from"] == controller_peers, "web and Flower: the same controller"
            assert {p["port"] for p in rule["ports"]} == {p["containerPort"] for p in ports}


def test_k8s_network_policies_keep_dns_redis_and_postgres_reachable() -> None:
    def allows(rules: list[dict[str, Any]], port: int, protocol: str = "TCP") -> bool:
        for rule in rules:
            rule_ports = rule.get("ports")
            if not rule_ports or any(p.get("port") == port and p.get("protocol", "TCP") == protocol
                                     for p in rule_ports):
                if not rule.get("to") or any("namespaceSelector" in t or t.get("ipBlock", {})
                                             .get("cidr") == "0.0.0.0/0" for t in rule["to"]):
                    return True
        return False

    for name, meta, _ in pod_templates():
        policies = policies_for(meta["labels"], "Egress")
        if not policies:
            continue  # egress open
        rules = [r for p in policies for r in p["spec"].get("egress", [])]
        assert allows(rules, 53, "UDP") and allows(rules, 53, "TCP"), f"{name}: DNS"
        assert allows(rules, 5432), f"{name}: PostgreSQL"
        assert allows(rules, 6379), f"{name}: Redis"
        if meta["labels"]["app.kubernetes.io/component"] in ("web", "worker"):
            # Partner webhooks, image URLs, Drive, OIDC, S3, providers: any host, any port.
            assert allows(rules, 443) and allows(rules, 8443), f"{name}: outbound calls"
