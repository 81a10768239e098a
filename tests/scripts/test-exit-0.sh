#!/usr/bin/env bash
# Simulates a successful tool call (a passing test run).
echo "3 passed in 0.01s"
exit 0
