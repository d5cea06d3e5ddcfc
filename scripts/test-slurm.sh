#!/usr/bin/env bash
# The third way of tests/sweep.rs: the small sweep run as a real Slurm job
# array on a single-node Slurm started here (munge, slurmctld, slurmd on
# localhost, configuration in a temporary directory), merged and compared
# with the same sweep run in one process. Skips, saying why, when Slurm is
# not installed or its daemons cannot start; .ci/run installs slurm-wlm and munge.
# Usage: scripts/test-slurm.sh [path/to/schedlab]   (default target/release/schedlab)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/release/schedlab}")
skip() { echo "SKIPPED (Slurm job-array sweep test): $*"; exit 0; }

for cmd in munged slurmctld slurmd sbatch sinfo scontrol; do
  command -v "$cmd" >/dev/null 2>&1 || skip "'$cmd' is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "starting the Slurm daemons here needs root"

T=$(mktemp -d /tmp/schedlab-slurm.XXXXXX)
chmod 755 "$T"
HOST=$(hostname -s)
CONF="$T/slurm.conf"
cleanup() {
  local pids=() p alive
  for d in slurmd slurmctld munged; do
    [ -f "$T/$d.pid" ] && pids+=("$(cat "$T/$d.pid")")
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # The daemons write their state while shutting down: wait for them (up to
  # 10 s) before removing the folder, or rm races with slurmctld's last write.
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.2
  done
  rm -rf "$T" 2>/dev/null || { sleep 1; rm -rf "$T" 2>/dev/null || true; }
}
trap cleanup EXIT

# munge: a private key and socket, so nothing system-wide is touched.
mkdir -p "$T/munge" "$T/munge-run"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1 count=128 status=none
chown -R munge:munge "$T/munge" "$T/munge-run"
chmod 700 "$T/munge" && chmod 400 "$T/munge/munge.key" && chmod 755 "$T/munge-run"
SOCKET="$T/munge-run/munge.socket"
runuser -u munge -- munged --key-file="$T/munge/munge.key" --socket="$SOCKET" \
  --pid-file="$T/munge-run/munged.pid" --log-file="$T/munge/munged.log" --seed-file="$T/munge/seed" \
  || skip "munged did not start: $(tail -3 "$T/munge/munged.log" 2>/dev/null)"
cp "$T/munge-run/munged.pid" "$T/munged.pid" 2>/dev/null || true

CPUS=$(nproc)
mkdir -p "$T/state" "$T/spool"
cat > "$CONF" <<CONF
ClusterName=schedlab-test
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=$HOST CPUs=$CPUS State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$CONF"
slurmctld -f "$CONF" || skip "slurmctld did not start: $(tail -3 "$T/slurmctld.log" 2>/dev/null)"
slurmd -f "$CONF" || skip "slurmd did not start: $(tail -3 "$T/slurmd.log" 2>/dev/null)"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t 2>/dev/null | grep -q idle \
  || skip "the Slurm node did not become idle: $(tail -3 "$T/slurmd.log" 2>/dev/null)"

SPEC=tests/data/sweep-small.toml
"$BIN" sweep plan "$SPEC" --out "$T/local" 2>/dev/null
"$BIN" sweep run "$T/local" --quiet 2>/dev/null
"$BIN" sweep plan "$SPEC" --out "$T/array" 2>/dev/null
"$BIN" sweep slurm "$T/array" --array-size 3 2>/dev/null
echo "submitting a 3-task job array to the local Slurm"
sbatch --wait "$T/array/sweep.sbatch" >/dev/null || {
  cat "$T"/array/logs/* 2>/dev/null | tail -20; echo "FAILED: the Slurm job array failed"; exit 1; }
"$BIN" sweep status "$T/array"
"$BIN" sweep merge "$T/local" > "$T/local.csv"
"$BIN" sweep merge "$T/array" > "$T/array.csv"
if ! cmp -s "$T/local.csv" "$T/array.csv"; then
  diff "$T/local.csv" "$T/array.csv" | head -20
  echo "FAILED: the Slurm job array's merged table differs from the one-process run"
  exit 1
fi
tasks=$(ls "$T/array/logs" | wc -l)
[ "$tasks" = 3 ] || { echo "FAILED: expected 3 array-task logs, found $tasks"; exit 1; }
echo "ok: Slurm job array (3 tasks) == one process ($(($(wc -l < "$T/local.csv") - 1)) runs)"
