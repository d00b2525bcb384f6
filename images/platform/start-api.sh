#!/bin/sh
# The platform image's entry point: starts the api in the foreground (no watch or reload mode).
# API_WORKERS, when unset, becomes the number of CPUs the container may use (cpu-count: the CPU
# quota, cgroup aware). Without DATABASE_URL and CACHE_URL it stays 1: the embedded database and the
# in-process cache belong to one process, and the api refuses more workers there.
set -eu

if [ -z "${API_WORKERS:-}" ]; then
  if [ -n "${DATABASE_URL:-}" ] && [ -n "${CACHE_URL:-}" ]; then
    API_WORKERS=$(cpu-count)
  else
    API_WORKERS=1
  fi
  export API_WORKERS
fi

exec node services/api/src/main.ts
