#!/usr/bin/env bash
# Fails on the first call and succeeds on the second (a retry / fix pattern).
# State lives in the file named by STATE_FILE (default: ./.test-stateful.state).
state="${STATE_FILE:-./.test-stateful.state}"
if [ -f "$state" ]; then
  rm -f "$state"
  echo "1 passed in 0.01s"
  exit 0
fi
touch "$state"
echo "FAILED tests/test_retry.py::test_flaky - first call fails"
echo "1 failed in 0.01s"
exit 1
