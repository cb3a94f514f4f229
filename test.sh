#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run):
#   1. the Rust workspace's tests;
#   2. the Python package: `pip install ./python` into a fresh virtual
#      environment (the command a user runs: pip fetches maturin and builds
#      the extension in release mode), then its pytest suite, which compares
#      the binding with the robocc CLI built in step 1 and, when Scrapy is
#      installed, runs a real crawl against a server on 127.0.0.1;
#   3. the npm package (js/): `npm run build` (the .wasm, by cargo for
#      wasm32-unknown-unknown; it runs beside step 2's pytest, as does
#      web/'s `npm ci`), then `npm test`, which compares it with the
#      CLI built in step 1;
#   4. the tester page (web/): `npm ci` (playwright-core), `npm run build`,
#      then `npm test`, which drives it in headless Chromium (skipped
#      without /usr/bin/chromium unless ROBOCC_REQUIRE_BROWSER=1).
# Needs a Rust toolchain with the wasm32-unknown-unknown target, Node.js
# >= 18 with npm, and Python >= 3.9 with pip and venv. pytest, Scrapy
# and Protego are taken from the Python that runs this script when it has
# them (.ci/run installs them); pytest is installed into the environment if
# not. PYTHON=... chooses the interpreter.
set -euo pipefail
cd "$(dirname "$0")"
# Each step says when it starts (seconds since this script began), so that a
# slow suite shows where its time goes.
step() { echo "== test.sh: $1 (at ${SECONDS}s)" >&2; }

step "cargo test --workspace"
cargo test --workspace --locked
# Where cargo built (CARGO_TARGET_DIR when set), as an absolute path.
target=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)

python=${PYTHON:-python3}
venv=$target/python-test-venv
rm -rf "$venv"
step "pip install ./python"
"$python" -m venv --system-site-packages "$venv"
# A release build of the extension, as a user's. (The test profile would not
# reuse step 1's crates: built alone, robocc-python unifies fewer features of
# serde, syn and either, so every crate above them is built again.)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python
if ! "$venv/bin/python" -c "import pytest" 2>/dev/null; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest
fi
# The CLI the differential tests compare with: step 1 built it (the test
# profile, which optimises the compiler).
if [ ! -x "$target/debug/robocc" ]; then
  cargo build --locked --profile test -p robocc-cli --bin robocc
fi
# pytest keeps about one core busy: the npm package's build (cargo, mostly
# one codegen unit) and the tester page's `npm ci` run beside it, their
# output kept in a log that is printed once pytest is done. Nothing else
# uses cargo meanwhile. A failure of either is reported with its step name
# after pytest; if pytest fails first, the script still waits for them.
builds_log=$target/js-web-builds.log
step "js/: npm run build; web/: npm ci (in the background, beside pytest)"
(
  set -e
  (cd js && npm run --silent build)
  (cd web && npm ci --no-audit --no-fund --loglevel=error)
) >"$builds_log" 2>&1 &
builds=$!
trap 'wait "$builds" 2>/dev/null || true' EXIT
step "pytest python/tests"
# Run from outside the checkout so that `import robocc` is the installed
# package, not the source folder.
(cd "$venv" && ROBOCC_BIN="$target/debug/robocc" ROBOCC_REQUIRE_CLI=1 \
  bin/python -m pytest "$OLDPWD/python/tests" -q -p no:cacheprovider)

step "js/: npm run build; web/: npm ci (waiting for the background step)"
builds_status=0
wait "$builds" || builds_status=$?
trap - EXIT
cat "$builds_log" >&2
if [ "$builds_status" != 0 ]; then
  echo "== test.sh: FAILED: js/: npm run build; web/: npm ci (exit $builds_status, output above)" >&2
  exit "$builds_status"
fi
step "js/: npm test"
(cd js && ROBOCC_BIN="$target/debug/robocc" ROBOCC_REQUIRE_CLI=1 npm test)
step "web/: npm run build, npm test"
(cd web && npm run --silent build && npm test)
step "done"
