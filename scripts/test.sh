#!/usr/bin/env bash
# `npm test`, the README's test command and CI's: every test on SQLite, then the end-to-end suite of generated
# servers again on PostgreSQL, with the tests that need PostgreSQL and Redis (two instances, shared rate limits),
# against throwaway servers started here (scripts/services.sh). Arguments go to both vitest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build --silent
npx vitest run "$@"
# shellcheck source=scripts/services.sh
source scripts/services.sh
RESTSMITH_TEST_DB=postgres npx vitest run --config vitest.postgres.config.ts "$@"
