"""Validate the Kubernetes manifests against the API's schemas (kubernetes-validate, strict:
unknown fields, i.e. typos, fail too). `make lint` runs it, and the manifest tests use it.

    python deploy/local/k8s_validate.py deploy/k8s/*.yaml

Custom resources have no bundled schema (KEDA's ScaledObject, kustomize's Kustomization, the
Prometheus Operator's ServiceMonitor and PodMonitor in k8s/monitoring/): they are skipped here
and checked structurally by tests/deploy/test_manifests.py and tests/test_metrics.py. Any other
kind without a schema is an error, so a misspelt kind cannot pass as "unknown".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

# API groups whose kinds are custom resources (no schema in kubernetes-validate).
CUSTOM_GROUPS = ("keda.sh/", "kustomize.config.k8s.io/", "monitoring.coreos.com/")
DEFAULT_DIR = Path(__file__).resolve().parents[1] / "k8s"


def documents(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    """Every YAML document of the files, with the file's name."""
    docs = []
    for path in paths:
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                docs.append((path.name, doc))
    return docs


def validate(paths: list[Path]) -> tuple[list[str], list[str], list[str]]:
    """The names of the resources checked, of those skipped (custom resources), and the
    errors found (empty when every manifest is valid)."""
    import kubernetes_validate as kv

    version = kv.utils.latest_version()
    checked: list[str] = []
    skipped: list[str] = []
    errors: list[str] = []
    for filename, doc in documents(paths):
        name = f"{filename}: {doc.get('kind')}/{doc.get('metadata', {}).get('name', '?')}"
        if str(doc.get("apiVersion", "")).startswith(CUSTOM_GROUPS):
            skipped.append(name)
            continue
        try:
            kv.validate(doc, version, strict=True)
        except (kv.utils.ValidationError, kv.utils.SchemaNotFoundError) as exc:
            errors.append(f"{name}: {exc}")
        else:
            checked.append(name)
    return checked, skipped, errors


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(DEFAULT_DIR.glob("*.yaml"))
    checked, skipped, errors = validate(paths)
    for error in errors:
        print(f"invalid: {error}", file=sys.stderr)
    print(f"kubernetes-validate: {len(checked)} resources valid, {len(errors)} invalid, "
          f"{len(skipped)} custom resources skipped ({', '.join(skipped) or 'none'})")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
