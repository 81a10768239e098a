#!/usr/bin/env bash
# Simulates a failed test run.
echo "FAILED tests/test_calc.py::test_add - assert 3 == 4"
echo "1 failed, 2 passed in 0.02s"
exit 1
