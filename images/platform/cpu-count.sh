#!/bin/sh
# Prints how many CPUs this container may use: its CPU quota rounded up (cgroup v2 cpu.max, or
# cgroup v1 cpu.cfs_quota_us / cpu.cfs_period_us), at most the CPUs it can run on (nproc).
# Usage: cpu-count [CGROUP_DIR], /sys/fs/cgroup by default.
set -eu
cgroup=${1:-/sys/fs/cgroup}
cpus=$(nproc)

if [ -r "$cgroup/cpu.max" ]; then
  read -r quota period < "$cgroup/cpu.max"
elif [ -r "$cgroup/cpu/cpu.cfs_quota_us" ]; then
  read -r quota < "$cgroup/cpu/cpu.cfs_quota_us"
  read -r period < "$cgroup/cpu/cpu.cfs_period_us"
else
  quota=max
fi

case $quota in
  max | -1) ;;
  *)
    limit=$(((quota + period - 1) / period))
    if [ "$limit" -lt "$cpus" ]; then cpus=$limit; fi
    ;;
esac
echo "$cpus"
