#!/usr/bin/env bash
# Installs what the end-to-end tests need on a fresh machine, and nothing more:
#   - Debian's chromium (playwright-core drives it; playwright's own browser download is blocked here)
#   - code-server 4.100.3 (VS Code 1.100.3, the newest release that runs on Node 20), into a cache
#     folder keyed by version, so a second run skips the ~70 s install.
# code-server's own install scripts download binaries from the internet and refuse to run as root,
# so the steps below do by hand what its postinstall would have done (see shared notes/vscode-e2e.md).
# Usage: bash scripts/e2e-setup.sh     (prints the code-server folder on its last line)
set -euo pipefail

VERSION="4.100.3"
CACHE="${SPOOL_E2E_CACHE:-$HOME/.cache/spool-e2e}"
DEST="$CACHE/code-server-$VERSION"
export npm_config_nodedir="${npm_config_nodedir:-/usr}"

if [ ! -x /usr/bin/chromium ]; then
  echo "== apt-get install chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if [ -f "$DEST/.complete" ]; then
  echo "== code-server $VERSION already installed in $DEST"
  echo "$DEST"
  exit 0
fi

echo "== installing code-server $VERSION into $DEST"
# Build in a scratch folder and move it into place at the end, so an interrupted install never
# leaves a half-built folder that a later run would take for a finished one.
WORK="$CACHE/.building-$VERSION-$$"
# Leftovers of an install that was interrupted earlier are of no use.
rm -rf "$CACHE"/.building-"$VERSION"-*
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
echo '{"name":"spool-e2e-code-server","private":true}' > package.json

npm install --no-audit --no-fund --ignore-scripts "code-server@$VERSION"
npm rebuild argon2

VS="$WORK/node_modules/code-server/lib/vscode"
(
  cd "$VS"
  npm install --no-audit --no-fund --omit=dev --ignore-scripts
  # node-pty's build calls npx, and this machine's npm config says yes=false.
  npm_config_yes=true npm rebuild node-pty @parcel/watcher @vscode/spdlog native-watchdog @vscode/deviceid
  ln -sfn node_modules node_modules.asar
  (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
  (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  (cd extensions && npm install --no-audit --no-fund --omit=dev)
)

touch "$WORK/.complete"
rm -rf "$DEST"
mv "$WORK" "$DEST"
trap - EXIT
echo "== code-server $VERSION ready"
echo "$DEST"
