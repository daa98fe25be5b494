#!/usr/bin/env bash
# Installs the authorization server of the end-to-end OAuth test (tests/oauth_server:
# oidc-provider, pinned by its package-lock.json) and Node 22 to run it (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
PATH="$(scripts/node22.sh):$PATH"
if [ -d tests/oauth_server/node_modules/oidc-provider ] \
  && [ tests/oauth_server/node_modules/.package-lock.json -nt tests/oauth_server/package-lock.json ]; then
  echo "tests/oauth_server already installed"
  exit 0
fi
npm ci --silent --prefix tests/oauth_server
echo "tests/oauth_server ready (node $(node --version))"
