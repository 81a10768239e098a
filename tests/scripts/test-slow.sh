#!/usr/bin/env bash
# Sleeps for a configurable time (first argument or SLOW_SECONDS, default 1) to test timeouts.
sleep "${1:-${SLOW_SECONDS:-1}}"
echo "slept ${1:-${SLOW_SECONDS:-1}}s"
exit 0
