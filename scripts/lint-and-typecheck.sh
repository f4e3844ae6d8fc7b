#!/usr/bin/env bash
# Lint and type check at once (each is single-threaded; the machine has 2 cores or more). The type
# check of the Node code emits into dist/check/ and then writes its exit code to dist/check.exit;
# `npm test` runs this beside the suite (test/runner/run.ts --beside) and hands dist/check to
# test/build.test.ts (FLOTILLA_COMPILED_DIR), which waits for dist/check.exit, so the suite
# compiles once. Fails when either fails; prints both times.
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf dist/check dist/check.exit dist/check.exit.tmp
start=$(date +%s)
npx eslint . & lint=$!
( tsc -p tsconfig.json --outDir dist/check; rc=$?; echo "$rc" > dist/check.exit.tmp && mv dist/check.exit.tmp dist/check.exit; ((rc == 0)) && tsc -p control-plane/dashboard/web/tsconfig.json ) & check=$!
wait $lint; lint_rc=$?
echo "lint: exit $lint_rc after $(($(date +%s) - start)) s" >&2
wait $check; check_rc=$?
echo "type check: exit $check_rc after $(($(date +%s) - start)) s" >&2
((lint_rc == 0 && check_rc == 0))
