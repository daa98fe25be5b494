#!/usr/bin/env bash
# Creates .venv with the Python MCP SDK the interop tests talk to (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
SDK_VERSION="2.3.0"
if [ -x .venv/bin/python ] && .venv/bin/python -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$SDK_VERSION')" 2>/dev/null; then
  echo ".venv already has mcp==$SDK_VERSION"
  exit 0
fi
python3 -m venv .venv
.venv/bin/pip install --quiet --disable-pip-version-check "mcp==$SDK_VERSION"
echo ".venv ready with mcp==$SDK_VERSION"
