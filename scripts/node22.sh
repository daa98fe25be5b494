#!/usr/bin/env bash
# Installs Node 22 into .tools/node22 from the npm registry (idempotent) and prints the
# directory to put on PATH. The machine's Node 20 cannot run the conformance suite
# (fs.globSync) nor current oidc-provider releases.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_DIR="$PWD/.tools/node22"
if [ ! -x "$NODE_DIR/node_modules/.bin/node" ]; then
  echo "== installing node@22 into $NODE_DIR" >&2
  npm install --silent --prefix "$NODE_DIR" node@22 >&2
fi
echo "$NODE_DIR/node_modules/.bin"
