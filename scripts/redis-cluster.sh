#!/usr/bin/env bash
# A local Redis Cluster for tests: 3 masters + 3 replicas on loopback, each node in its own data
# dir with AOF (appendonly, fsync every second), the query engine and JSON modules loaded, and the
# failover settings docs/deployment.md recommends.
#
#   REDIS_SERVER=/path/redis-server SEARCH_MODULE=/path/redisearch.so JSON_MODULE=/path/rejson.so \
#     scripts/redis-cluster.sh start      start the nodes, create the cluster (or rejoin the one
#                                         CLUSTER_DIR holds), wait for cluster_state:ok and the replicas
#   scripts/redis-cluster.sh check        wait until every master's replicas are online, then on every
#                                         master: FT._LIST, and JSON.SET/GET/DEL of a key it owns
#   scripts/redis-cluster.sh status       the nodes (CLUSTER NODES) and their PIDs
#   scripts/redis-cluster.sh stop         stop exactly the processes `start` started (by PID file)
#
# Environment:
#   REDIS_SERVER   redis-server binary (required for start; Redis 8, or 7.2/7.4 with module builds)
#   REDIS_CLI      redis-cli binary (default: the one next to REDIS_SERVER, else redis-cli on PATH)
#   SEARCH_MODULE  RediSearch module (.so) and JSON_MODULE RedisJSON module (.so); required for
#                  start unless MODULES=builtin (a server that loads them itself)
#   CLUSTER_DIR    where the node dirs, PID files and logs go (default ${TMPDIR:-/tmp}/engram-redis-cluster)
#   CLUSTER_PORT   first port; the nodes use 6 consecutive ports (default 7001: 7001-7006)
#   CLUSTER_HOST   address every node binds and announces (default 127.0.0.1)
#   REDIS_EXTRA    more server settings, one "name value" per line, appended to every node's config;
#                  set but empty: none. Unset: by the server's version (redis-server --version), the
#                  raw doc-id encoding on Redis 8 as docs/deployment.md recommends, nothing before 8
#                  (the setting does not exist there, and such a server refuses to start with it)
#   READY_TIMEOUT  seconds to wait for the nodes, the cluster state and the replicas (default 60)
# Prints the seed URL for REDIS_URL and the PIDs. Exits 1 on a failure, with what to do next.
set -euo pipefail

CLUSTER_DIR=${CLUSTER_DIR:-${TMPDIR:-/tmp}/engram-redis-cluster}
CLUSTER_PORT=${CLUSTER_PORT:-7001}
CLUSTER_HOST=${CLUSTER_HOST:-127.0.0.1}
NODES=6
READY_TIMEOUT=${READY_TIMEOUT:-60}

die() { echo "redis-cluster: $*" >&2; exit 1; }
ports() { seq "$CLUSTER_PORT" $((CLUSTER_PORT + NODES - 1)); }
pidfile() { echo "$CLUSTER_DIR/$1/redis.pid"; }

find_cli() {
  if [[ -n ${REDIS_CLI:-} ]]; then echo "$REDIS_CLI"
  elif [[ -n ${REDIS_SERVER:-} && -x $(dirname "$REDIS_SERVER")/redis-cli ]]; then echo "$(dirname "$REDIS_SERVER")/redis-cli"
  elif command -v redis-cli >/dev/null; then command -v redis-cli
  else die "no redis-cli: set REDIS_CLI=/path/to/redis-cli"; fi
}

cli() { local port=$1; shift; "$CLI" -h "$CLUSTER_HOST" -p "$port" "$@"; }

# The PID in a node's PID file, only while that process is still this node's redis-server (a PID
# file left by a crash may name a PID the system has since given to another process).
live_pid() {
  local port=$1 file pid
  file=$(pidfile "$port")
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "redis-server.*:$port" || return 1
  echo "$pid"
}

write_config() {
  local port=$1 dir=$CLUSTER_DIR/$1
  mkdir -p "$dir"
  {
    echo "port $port"
    echo "bind $CLUSTER_HOST"
    echo "protected-mode yes"
    echo "dir $dir"
    echo "daemonize yes"
    echo "pidfile $(pidfile "$port")"
    echo "logfile $dir/redis.log"
    echo "cluster-enabled yes"
    echo "cluster-config-file nodes.conf"
    echo "cluster-node-timeout 5000"
    echo "cluster-announce-ip $CLUSTER_HOST"
    echo "appendonly yes"
    echo "appendfsync everysec"
    echo "maxmemory-policy noeviction"
    # While a master fails over, the others keep serving their slots (the default refuses every
    # command cluster-wide until the promotion), and a node rejoining as a replica is synced at once
    # (the default waits 5 s for more replicas; REDIS_WAIT_REPLICAS writes wait for it).
    # Measured with scripts/bench/failover.ts: docs/performance.md › Failover on Redis Cluster.
    echo "cluster-require-full-coverage no"
    echo "repl-diskless-sync-delay 0"
    if [[ ${MODULES:-} != builtin ]]; then
      echo "loadmodule $SEARCH_MODULE"
      echo "loadmodule $JSON_MODULE"
    fi
    if [[ -n $EXTRA ]]; then printf '%s\n' "$EXTRA"; fi
  } >"$dir/redis.conf"
}

# The major version of REDIS_SERVER ("Redis server v=8.0.2 sha=…" → 8).
server_major() { "$REDIS_SERVER" --version 2>/dev/null | sed -n 's/.* v=\([0-9][0-9]*\)\..*/\1/p'; }

# REDIS_EXTRA's default: search-raw-docid-encoding is a setting of Redis 8's query engine only; a
# Redis 7.x server refuses to start with it, and RediSearch 2.10's own raw encoding
# (RAW_DOCID_ENCODING) breaks the engine (docs/deployment.md › Redis).
default_extra() {
  local major
  major=$(server_major)
  [[ -n $major ]] || die "cannot read the version of $REDIS_SERVER ($REDIS_SERVER --version); set REDIS_EXTRA (empty for none)"
  if ((major >= 8)); then echo "search-raw-docid-encoding yes"; fi
}

wait_until() { # seconds, description, command...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out after ${READY_TIMEOUT}s waiting for $what; see $CLUSTER_DIR/*/redis.log"
    sleep 0.5
  done
}

cluster_ok() { for p in $(ports); do cli "$p" CLUSTER INFO | grep -q '^cluster_state:ok' || return 1; done; }
answers_ping() { [[ $(cli "$1" PING 2>/dev/null) == PONG ]]; }

# The masters that hold slots (a node being attached as a replica is a master without slots for a while).
masters() { cli "$CLUSTER_PORT" CLUSTER NODES | awk '$3 ~ /master/ && $3 !~ /fail/ && NF >= 9 { split($2, a, "[:@]"); print a[2] }'; }

# "port id replicas" for every master holding slots: the replicas CLUSTER NODES gives it (not failed).
masters_and_replicas() {
  awk '{ split($2, a, "[:@]"); port[$1] = a[2]; flags[$1] = $3; of[$1] = $4; slotted[$1] = NF >= 9 }
    END {
      for (id in port) {
        if (flags[id] !~ /master/ || flags[id] ~ /fail/ || !slotted[id]) continue
        n = 0
        for (r in port) if (of[r] == id && flags[r] ~ /slave/ && flags[r] !~ /fail/) n++
        print port[id], id, n
      }
    }'
}

# Prints where replication stands; succeeds once every master holding slots has each replica
# CLUSTER NODES gives it online (synced: INFO replication state=online) and no node is a master
# without slots (a replica not attached yet).
replication_settled() {
  local nodes port id expected online bare settled=0 states=()
  nodes=$(cli "$CLUSTER_PORT" CLUSTER NODES 2>/dev/null) || { echo "no answer from $CLUSTER_HOST:$CLUSTER_PORT"; return 1; }
  while read -r port id expected; do
    online=$(cli "$port" INFO replication 2>/dev/null | grep -c '^slave[0-9]*:.*state=online' || true)
    states+=("master $port $online/$expected replicas online")
    ((online >= expected)) || settled=1
  done < <(masters_and_replicas <<<"$nodes" | sort -n)
  bare=$(awk '$3 ~ /master/ && $3 !~ /fail/ && NF < 9 { split($2, a, "[:@]"); printf " %s", a[2] }' <<<"$nodes")
  if [[ -n $bare ]]; then states+=("not attached yet:$bare"); settled=1; fi
  ((${#states[@]} > 0)) || { echo "no master holds slots"; return 1; }
  local joined
  joined=$(printf '%s; ' "${states[@]}")
  echo "${joined%; }"
  return $settled
}

# Waits (READY_TIMEOUT) until replication_settled, printing each new state on the way.
wait_for_replicas() {
  local deadline=$((SECONDS + READY_TIMEOUT)) state last=""
  until state=$(replication_settled); do
    if [[ $state != "$last" ]]; then echo "waiting for the replicas: $state"; last=$state; fi
    ((SECONDS < deadline)) || die "timed out after ${READY_TIMEOUT}s waiting for the replicas ($state); see $CLUSTER_DIR/*/redis.log"
    sleep 0.5
  done
  echo "replicas: $state"
}

start() {
  [[ -n ${REDIS_SERVER:-} ]] || die "set REDIS_SERVER=/path/to/redis-server (Redis 8, or 7.4 with module builds)"
  [[ -x $REDIS_SERVER ]] || die "REDIS_SERVER=$REDIS_SERVER is not an executable file"
  if [[ ${MODULES:-} != builtin ]]; then
    [[ -n ${SEARCH_MODULE:-} && -n ${JSON_MODULE:-} ]] \
      || die "set SEARCH_MODULE=/path/to/redisearch.so and JSON_MODULE=/path/to/rejson.so (or MODULES=builtin if the server loads them itself)"
    [[ -f $SEARCH_MODULE ]] || die "SEARCH_MODULE=$SEARCH_MODULE: no such file"
    [[ -f $JSON_MODULE ]] || die "JSON_MODULE=$JSON_MODULE: no such file"
  fi
  CLI=$(find_cli)
  EXTRA=${REDIS_EXTRA-$(default_extra)}
  local p known=0
  for p in $(ports); do
    if live_pid "$p" >/dev/null; then die "node $p is already running (PID $(live_pid "$p")): run '$0 stop' first"; fi
    [[ -f $CLUSTER_DIR/$p/nodes.conf ]] && known=$((known + 1))
  done
  # Every node knows the cluster (a restart after `stop`): start them, they find each other again.
  ((known == 0 || known == NODES)) \
    || die "only $known of $NODES node dirs in $CLUSTER_DIR hold cluster state: remove $CLUSTER_DIR or set CLUSTER_DIR to a new folder"
  mkdir -p "$CLUSTER_DIR"
  echo "starting $NODES nodes on $CLUSTER_HOST:$CLUSTER_PORT-$((CLUSTER_PORT + NODES - 1)) in $CLUSTER_DIR"
  for p in $(ports); do
    write_config "$p"
    "$REDIS_SERVER" "$CLUSTER_DIR/$p/redis.conf" || die "node $p did not start; see $CLUSTER_DIR/$p/redis.log"
  done
  for p in $(ports); do wait_until "$READY_TIMEOUT" "node $p to answer PING" answers_ping "$p"; done
  if ((known == 0)); then
    local addrs=()
    for p in $(ports); do addrs+=("$CLUSTER_HOST:$p"); done
    echo "creating the cluster (3 masters, 1 replica each)"
    "$CLI" --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >"$CLUSTER_DIR/create.log" 2>&1 \
      || die "redis-cli --cluster create failed; see $CLUSTER_DIR/create.log"
  else
    echo "the nodes hold an existing cluster (nodes.conf): rejoining it"
  fi
  wait_until "$READY_TIMEOUT" "cluster_state:ok on every node" cluster_ok
  echo "cluster_state:ok"
  wait_for_replicas
  status
}

status() {
  local p pid
  CLI=${CLI:-$(find_cli)}
  for p in $(ports); do
    if pid=$(live_pid "$p"); then echo "node $CLUSTER_HOST:$p PID $pid"; else echo "node $CLUSTER_HOST:$p not running"; fi
  done
  if answers_ping "$CLUSTER_PORT"; then
    cli "$CLUSTER_PORT" CLUSTER NODES | awk '{ sub("@.*", "", $2); print "  " $2, $3, $9 }'
    echo "REDIS_URL=redis://$CLUSTER_HOST:$CLUSTER_PORT"
  fi
}

# A key this master owns: hash tags {0}, {1}, ... until CLUSTER KEYSLOT lands in one of its ranges.
owned_key() {
  local port=$1 ranges n slot
  ranges=$(cli "$port" CLUSTER NODES | awk '/myself/ { for (i = 9; i <= NF; i++) print $i }')
  for ((n = 0; n < 100000; n++)); do
    slot=$(cli "$port" CLUSTER KEYSLOT "{$n}")
    while IFS=- read -r lo hi; do
      hi=${hi:-$lo}
      if ((slot >= lo && slot <= hi)); then echo "engram-cluster-check:{$n}"; return; fi
    done <<<"$ranges"
  done
  die "found no key owned by node $port"
}

check() {
  CLI=${CLI:-$(find_cli)}
  answers_ping "$CLUSTER_PORT" || die "no node answers on $CLUSTER_HOST:$CLUSTER_PORT: run '$0 start' first"
  wait_for_replicas
  local failed=0 p key got list
  for p in $(masters); do
    key=$(owned_key "$p")
    # redis-cli exits 0 on an error reply too: read the reply
    list=$(cli "$p" FT._LIST 2>&1)
    if [[ $list == ERR* || $list == *"unknown command"* ]]; then
      echo "master $p: FT._LIST answered: $list"; failed=1; continue
    fi
    cli "$p" JSON.SET "$key" '$' '{"ok":1}' >/dev/null
    got=$(cli "$p" JSON.GET "$key" '$.ok')
    cli "$p" DEL "$key" >/dev/null
    if [[ $got == '[1]' ]]; then echo "master $p: FT._LIST ok, JSON.SET/GET $key ok"
    else echo "master $p: JSON.GET $key answered '$got', expected [1]"; failed=1; fi
  done
  ((failed == 0)) || die "a master lacks a module: check SEARCH_MODULE/JSON_MODULE and $CLUSTER_DIR/*/redis.log"
}

stop() {
  local p pid stopped=0
  for p in $(ports); do
    if pid=$(live_pid "$p"); then
      kill -TERM "$pid"
      for _ in $(seq 100); do [[ -e /proc/$pid ]] || break; sleep 0.1; done
      if [[ -e /proc/$pid ]]; then echo "node $p (PID $pid) did not stop in 10 s; sending SIGKILL"; kill -KILL "$pid"; fi
      echo "stopped node $p (PID $pid)"; stopped=$((stopped + 1))
    fi
  done
  echo "$stopped node(s) stopped; data kept in $CLUSTER_DIR (remove it for a fresh cluster)"
}

case ${1:-} in
  start) start ;;
  check) check ;;
  status) status ;;
  stop) stop ;;
  *) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
