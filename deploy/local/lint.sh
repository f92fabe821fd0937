#!/usr/bin/env bash
# Static checks and dependency audits (not part of `make test`: the audits ask the package
# indexes' advisory data, which changes from day to day).
source "$(dirname "$0")/lib.sh"
ensure_dev_venv
ensure_node
"$VENV/bin/ruff" check platform workers drivesync tests
"$VENV/bin/mypy"
npm run --silent typecheck
if "$VENV/bin/python" -c "import kubernetes_validate" 2>/dev/null; then
  say "Kubernetes manifests"
  "$VENV/bin/python" deploy/local/k8s_validate.py deploy/k8s/*.yaml
  # The optional monitoring manifests (Prometheus Operator), applied on their own.
  "$VENV/bin/python" deploy/local/k8s_validate.py deploy/k8s/monitoring/*.yaml
else
  echo "kubernetes-validate is not installed: the Kubernetes manifests were not validated"
fi
say "Dependency audits"
# Both need their advisory services; where those cannot be reached the audit says so and
# lint goes on (a found vulnerability still fails it).
"$VENV/bin/pip-audit" --progress-spinner off --skip-editable -r requirements.lock || {
  code=$?; [ "$code" -eq 1 ] && exit 1; echo "pip-audit could not complete (exit $code)"; }
npm audit --omit=dev --audit-level=high || echo "npm audit could not complete here"
