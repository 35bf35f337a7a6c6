#!/usr/bin/env bash
# `npm test`, the README's test command and CI's: every test on SQLite, then the end-to-end suite of generated
# servers again on PostgreSQL, with the tests that need PostgreSQL and Redis (two instances, shared rate limits),
# against throwaway servers started here (scripts/services.sh). Arguments go to both vitest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
# the repo and the runtime it copies into projects (runtime/, with TypeScript 7 as generated projects use)
npm run typecheck --silent
# the docs page is tested in a real browser: Debian's Chromium, installed when missing (as services.sh does for
# PostgreSQL and Redis)
if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "the docs page test needs a Chromium: install Debian's chromium, or set CHROMIUM_PATH" >&2
    exit 1
  fi
  echo "installing Debian's chromium…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
npx vitest run "$@"
# shellcheck source=scripts/services.sh
source scripts/services.sh
RESTSMITH_TEST_DB=postgres npx vitest run --config vitest.postgres.config.ts "$@"
