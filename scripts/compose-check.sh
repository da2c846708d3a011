#!/bin/sh
# Runs docker-compose.yml the way a user would and checks it, with Docker Compose (v2 plugin or
# docker-compose v1) against Docker or `podman system service`:
#   scripts/compose-check.sh            (from anywhere; it works in the repository root)
# Checks: the file validates; `up -d --build` on the default Redis image brings every service to
# healthy; /health answers 200 through the published port; a signed store + recall round trip
# through it; /metrics answers the request counters with METRICS_TOKEN (401 without it) through the
# proxy; the memory survives `restart` and `down` + `up` (volumes kept); `--scale engram=N`
# (SCALE, default 2) starts without a host-port clash, a session token made on one replica works
# on another and a memory stored on one is recalled on the other, the proxy spreads requests over
# every replica and keeps answering when scaled back to 1; while Redis loads a large dataset
# (LOADING) its health check fails and engram's /health is 503, and both recover with the data
# kept. Prints a PASS/FAIL table, removes the project with its volumes, exits 1 if a check failed
# (2 when it cannot start). It cannot run in CI here (no image registry): docs/deployment.md.
#
# Environment (all optional):
#   COMPOSE          the compose command (default: `docker compose` if it answers, else docker-compose)
#   CONTAINER_ENGINE docker or podman, for inspect/exec (default: docker if its daemon answers, else podman)
#   HEALTHCHECKS_BY_HAND  1: run every container's health check with `podman healthcheck run` every
#                    3 s (Podman without systemd never runs them; default: 1 when the engine is
#                    Podman and /run/systemd/system is missing)
#   ENV_FILE         the env file compose reads (default .env.example: every default; your .env is not read)
#   ENGRAM_IMAGE     tag to build (default engram:compose-check); REMOVE_IMAGE=1 removes it at the end
#   PROJECT          compose project name (default engram-compose-check-<pid>)
#   HOST_PORT        host port the proxy publishes (ENGRAM_PORT; default: a free one)
#   SCALE            replicas for the scale check (default 2); READY_TIMEOUT seconds per wait (default 180)
#   BUILD_TIMEOUT    seconds for `up --build` (default 1500)
#   LOADING_KEYS     keys written for the LOADING check (default 6000000, several seconds of loading on
#                    2 cores; 0 skips the check)
#   SKIP_BUILD=1     `up -d` without --build: ENGRAM_IMAGE must exist (e.g. behind a TLS-intercepting
#                    proxy, build it first with the CA as a build secret: docs/deployment.md)
set -u

cd "$(dirname "$0")/.." || exit 2
PROJECT=${PROJECT:-engram-compose-check-$$}
ENV_FILE=${ENV_FILE:-.env.example}
SCALE=${SCALE:-2}
READY_TIMEOUT=${READY_TIMEOUT:-180}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-1500}
LOADING_KEYS=${LOADING_KEYS:-6000000}
export ENGRAM_IMAGE=${ENGRAM_IMAGE:-engram:compose-check}
# /metrics answers only loopback clients without a token; behind the proxy it needs one
export METRICS_TOKEN=${METRICS_TOKEN:-compose-check-$$-$(date +%s)-metrics}
CHECK_NAME=compose-check
# shellcheck source=scripts/check-report.sh
. "$(dirname "$0")/check-report.sh"
HEALTH_LOOP=

# --- tools ------------------------------------------------------------------------------------
if [ -n "${COMPOSE:-}" ]; then
  :
elif docker compose version >/dev/null 2>&1; then
  COMPOSE="docker compose"
elif command -v docker-compose >/dev/null 2>&1; then
  COMPOSE=docker-compose
else
  die "no compose: install the Docker Compose plugin or docker-compose (apt-get install docker-compose), or set COMPOSE"
fi
if [ -n "${CONTAINER_ENGINE:-}" ]; then
  ENGINE=$CONTAINER_ENGINE
elif command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; then
  ENGINE=docker
elif command -v podman >/dev/null 2>&1; then
  ENGINE=podman
else
  die "no container engine answers: start Docker, or run \`podman system service --time=0 unix:///run/podman/podman.sock &\` and export DOCKER_HOST=unix:///run/podman/podman.sock"
fi
command -v bun >/dev/null 2>&1 || die "bun is needed on the host for the HTTP checks: npm i -g bun"
[ -d node_modules/viem ] || die "node_modules/viem is missing: run bun install --frozen-lockfile first"
[ -f "$ENV_FILE" ] || die "ENV_FILE=$ENV_FILE not found"
RT="bun scripts/container-roundtrip.ts"
E() { t=$1; shift; timeout "$t" "$ENGINE" "$@"; } # E <seconds> <engine arguments>
PORT=${HOST_PORT:-$($RT port)} || die "could not find a free loopback port: set HOST_PORT"
export ENGRAM_PORT=$PORT
URL=http://127.0.0.1:$PORT
C() { t=$1; shift; timeout "$t" $COMPOSE --env-file "$ENV_FILE" -p "$PROJECT" "$@"; } # C <seconds> <compose arguments>
C 60 ps >/dev/null 2>"$WORK/ps.err" ||
  die "$COMPOSE cannot reach a container engine ($(tail -n 1 "$WORK/ps.err")): start Docker, or run \`podman system service --time=0 unix:///run/podman/podman.sock &\` and export DOCKER_HOST=unix:///run/podman/podman.sock"

# "Podman Engine 4.3.1" or "Engine 28.2.2" (the server side: with DOCKER_HOST, the docker CLI may talk to Podman)
server=$(timeout 10 docker version --format '{{range .Server.Components}}{{if or (eq .Name "Podman Engine") (eq .Name "Engine")}}{{.Name}} {{.Version}}|{{end}}{{end}}' 2>/dev/null | cut -d'|' -f1)
[ -n "$server" ] || server=$("$ENGINE" --version 2>/dev/null | head -1)
if [ -z "${HEALTHCHECKS_BY_HAND:-}" ]; then
  HEALTHCHECKS_BY_HAND=0
  if [ "$ENGINE" = podman ] || printf '%s' "$server" | grep -qi podman; then
    [ -d /run/systemd/system ] || HEALTHCHECKS_BY_HAND=1
  fi
fi
if [ "$HEALTHCHECKS_BY_HAND" = 1 ]; then
  command -v podman >/dev/null 2>&1 || die "HEALTHCHECKS_BY_HAND=1 needs the podman command"
fi

cleanup() {
  [ -n "$HEALTH_LOOP" ] && kill "$HEALTH_LOOP" 2>/dev/null
  progress "cleanup: $COMPOSE -p $PROJECT down -v (the project's containers, network and volumes)$( [ "${REMOVE_IMAGE:-0}" = 1 ] && echo " and image $ENGRAM_IMAGE")"
  C 180 down -v --remove-orphans >/dev/null 2>&1
  if [ "${REMOVE_IMAGE:-0}" = 1 ]; then E 60 rmi "$ENGRAM_IMAGE" >/dev/null 2>&1; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "compose-check: interrupted" >&2; exit 130' INT TERM

progress "compose: $COMPOSE ($($COMPOSE version --short 2>/dev/null || $COMPOSE version 2>/dev/null | head -1)); engine: ${server:-$ENGINE}; inspect/exec with $ENGINE"
progress "project $PROJECT on $URL; env file $ENV_FILE; image $ENGRAM_IMAGE; health checks $( [ "$HEALTHCHECKS_BY_HAND" = 1 ] && echo "run by hand every 3 s (podman healthcheck run)" || echo "run by the engine")"

if [ "$HEALTHCHECKS_BY_HAND" = 1 ]; then
  (
    while :; do
      for id in $(podman ps -q --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null); do
        timeout 20 podman healthcheck run "$id" >/dev/null 2>&1
      done
      sleep 3
    done
  ) &
  HEALTH_LOOP=$!
fi

# ids <service>: the service's container ids, one per line
ids() { C 60 ps -q "$1" 2>/dev/null | grep -v '^$'; }
status_of() { E 30 inspect --format '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$1" 2>/dev/null; }
# wait_healthy <service> <count>: every container of the service healthy
wait_healthy() {
  i=0
  while [ "$i" -lt "$READY_TIMEOUT" ]; do
    n=0
    list=$(ids "$1")
    for id in $list; do [ "$(status_of "$id")" = healthy ] && n=$((n + 1)); done
    [ "$n" -ge "$2" ] && { echo "$n healthy after ${i} s"; return 0; }
    sleep 2
    i=$((i + 2))
  done
  echo "$n of $2 healthy after ${READY_TIMEOUT} s (statuses: $(for id in $list; do printf '%s ' "$(status_of "$id")"; done))"
  return 1
}
logs_hint() { echo "--- $COMPOSE logs --tail 15 ---" >&2; C 60 logs --tail 15 >&2 2>&1; }
health_url() { # <check name>
  if out=$($RT health "$URL" "$READY_TIMEOUT"); then record PASS "$1" "$out"; else record FAIL "$1" "$out"; logs_hint; return 1; fi
}
roundtrip() { # <check name> <store|recall>
  if out=$($RT "$2" "$URL" "$STATE" 2>&1); then record PASS "$1" "$out"; else record FAIL "$1" "$out"; return 1; fi
}
services_healthy() { # <check name> <engram replicas>
  r=$(wait_healthy redis 1) && e=$(wait_healthy engram "$2")
  if [ $? = 0 ]; then record PASS "$1" "redis: $r; engram: $e"; else record FAIL "$1" "redis: ${r:-?}; engram: ${e:-?}"; logs_hint; return 1; fi
}

# --- config -----------------------------------------------------------------------------------
if out=$(C 60 config -q 2>&1); then
  record PASS config "$COMPOSE config accepts the file; redis image $(C 60 config 2>/dev/null | sed -n 's/^ *image: *\(.*redis.*\)$/\1/p' | head -1)"
else
  record FAIL config "$out"
fi

# --- up ---------------------------------------------------------------------------------------
progress "up: $COMPOSE up -d --build (the first build takes minutes; up to ${BUILD_TIMEOUT} s; log: $WORK/up.log)"
u0=$(date +%s)
if [ "${SKIP_BUILD:-0}" = 1 ]; then set -- up -d; else set -- up -d --build; fi
if C "$BUILD_TIMEOUT" "$@" >"$WORK/up.log" 2>&1; then
  record PASS "up -d" "$(($(date +%s) - u0)) s: $(C 60 ps --services 2>/dev/null | tr '\n' ' ')"
else
  rc=$?
  echo "--- last lines of the up log ---" >&2
  tail -n 25 "$WORK/up.log" >&2
  hint="see the log above"
  [ "$rc" = 124 ] && hint="timed out after ${BUILD_TIMEOUT} s: raise BUILD_TIMEOUT"
  grep -qiE "pull|manifest unknown|no such image|not found" "$WORK/up.log" && hint="an image could not be pulled: check registry access, or load/tag equivalent images locally"
  grep -q SELF_SIGNED_CERT_IN_CHAIN "$WORK/up.log" && hint="TLS proxy: build the image first with the CA as a build secret (docs/deployment.md: The image), then SKIP_BUILD=1"
  record FAIL "up -d" "exit $rc; $hint"
fi

if [ "$FAILED" = 0 ]; then
  services_healthy "services healthy" 1
  redis_id=$(ids redis | head -1)
  version=$(E 30 exec "$redis_id" redis-cli INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^redis_version://p')
  modules=$(E 30 exec "$redis_id" redis-cli MODULE LIST 2>/dev/null | tr -d '\r' |
    awk 'key == "name" { name = $0 } key == "ver" { printf "%s%s %s", sep, name, $0; sep = ", " } { key = $0 }')
  record INFO "redis" "Redis ${version:-?}; modules: ${modules:-none listed}"
  proxy_id=$(ids proxy | head -1)
  [ -n "$proxy_id" ] && record INFO "proxy" "$(E 30 exec "$proxy_id" haproxy -v 2>/dev/null | head -1)"
  health_url "health via the proxy"
  roundtrip "store + recall" store
  if out=$($RT metrics "$URL" "$METRICS_TOKEN" 2>&1); then record PASS "metrics via the proxy" "$out"; else record FAIL "metrics via the proxy" "$out"; fi

  progress "restart: $COMPOSE restart"
  if C 300 restart >/dev/null 2>&1 && services_healthy "healthy after restart" 1 && health_url "health after restart"; then
    roundtrip "kept after restart" recall
  else
    record FAIL "kept after restart" "$COMPOSE restart failed or the services did not come back"
  fi

  progress "down + up: $COMPOSE down (volumes kept), then up -d"
  if C 300 down >/dev/null 2>&1 && C 600 up -d >"$WORK/up2.log" 2>&1 && services_healthy "healthy after down + up" 1 && health_url "health after down + up"; then
    roundtrip "kept after down + up" recall
  else
    record FAIL "kept after down + up" "see $COMPOSE logs above; up log: $(tail -n 3 "$WORK/up2.log")"
  fi

  # --- scale ----------------------------------------------------------------------------------
  progress "scale: $COMPOSE up -d --no-recreate --scale engram=$SCALE"
  if C 600 up -d --no-recreate --scale "engram=$SCALE" >"$WORK/scale.log" 2>&1; then
    record PASS "scale engram=$SCALE" "started without a host-port clash"
  else
    record FAIL "scale engram=$SCALE" "$(tail -n 3 "$WORK/scale.log" | tr '\n' ' ')"
  fi
  if services_healthy "$SCALE replicas healthy" "$SCALE"; then
    urls=
    for id in $(ids engram); do
      ip=$(E 30 inspect --format '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}' "$id" | awk '{print $1}')
      [ -n "$ip" ] && urls="$urls http://$ip:8787"
    done
    set -- $urls
    if [ "$#" -ge 2 ] && $RT health "$1" 5 >/dev/null 2>&1 && $RT health "$2" 5 >/dev/null 2>&1; then
      if out=$($RT replicas "$1" "$2" 2>&1); then record PASS "shared session" "$out"; else record FAIL "shared session" "$out"; fi
    else
      record SKIP "shared session" "the replicas' addresses ($urls) are not reachable from this host (e.g. Docker Desktop); the proxy check below still runs"
    fi
    # Through the proxy: one session, then requests spread by the proxy; its log names the replica.
    if out=$($RT replicas "$URL" "$URL" 2>&1); then record PASS "session via the proxy" "$out"; else record FAIL "session via the proxy" "$out"; fi
    i=0
    while [ "$i" -lt 20 ]; do $RT health "$URL" 5 >/dev/null 2>&1; i=$((i + 1)); done
    spread=$(C 60 logs --no-color proxy 2>/dev/null | grep -o 'engram/engram-[0-9]*' | sort | uniq -c | awk '{printf "%s %s, ", $2, $1}' | sed 's/, $//')
    replicas_seen=$(printf '%s' "$spread" | grep -o 'engram/engram-[0-9]*' | wc -l)
    if [ "$replicas_seen" -ge "$SCALE" ]; then
      record PASS "proxy spreads" "requests per replica in the proxy log: $spread"
    else
      record FAIL "proxy spreads" "only $replicas_seen replica(s) in the proxy log: ${spread:-none} (deploy/haproxy.cfg resolves the service name engram)"
    fi
  fi
  # Back to one replica: the proxy stops sending to the removed ones without a restart.
  progress "scale down: $COMPOSE up -d --no-recreate --scale engram=1, then 30 requests through the proxy at once"
  if C 600 up -d --no-recreate --scale engram=1 >"$WORK/scale1.log" 2>&1; then
    bad=0
    i=0
    while [ "$i" -lt 30 ]; do
      code=$(bun -e "fetch('$URL/health', { signal: AbortSignal.timeout(5000) }).then(r => console.log(r.status), () => console.log(0))" 2>/dev/null)
      [ "$code" = 200 ] || bad=$((bad + 1))
      i=$((i + 1))
    done
    n=$(ids engram | wc -l)
    if [ "$bad" = 0 ] && [ "$n" = 1 ]; then record PASS "scale back to 1" "1 replica left; 30 of 30 requests through the proxy answered 200 right after"; else record FAIL "scale back to 1" "$n replica(s) left; $bad of 30 requests through the proxy did not answer 200"; fi
  else
    record FAIL "scale back to 1" "$(tail -n 3 "$WORK/scale1.log" | tr '\n' ' ')"
  fi

  # --- Redis loading --------------------------------------------------------------------------
  if [ "$LOADING_KEYS" -gt 0 ] 2>/dev/null; then
    redis_id=$(ids redis | head -1)
    progress "loading: $LOADING_KEYS keys into Redis db 9, AOF rewrite, restart redis, poll its health check"
    hc_test=$(E 30 inspect --format '{{json .Config.Healthcheck.Test}}' "$redis_id" 2>/dev/null)
    E 600 exec "$redis_id" redis-cli -n 9 EVAL "for i = 1, tonumber(ARGV[1]) do redis.call('SET', 'compose-check:' .. i, i) end return tonumber(ARGV[1])" 0 "$LOADING_KEYS" >/dev/null 2>&1
    E 30 exec "$redis_id" redis-cli BGREWRITEAOF >/dev/null 2>&1
    i=0
    while [ "$i" -lt 300 ] && E 30 exec "$redis_id" redis-cli INFO persistence 2>/dev/null | grep -q 'aof_rewrite_in_progress:1'; do sleep 1; i=$((i + 1)); done
    keys=$(E 30 exec "$redis_id" redis-cli -n 9 DBSIZE 2>/dev/null | tr -d '\r')
    C 120 restart redis >/dev/null 2>&1
    redis_id=$(ids redis | head -1)
    # A poll counts when Redis answered LOADING both just before and just after the health check
    # ran, so the check saw it loading; a poll around the end of loading counts for neither side.
    loading=0
    failed_while_loading=0
    engram_503=0
    polls=0
    hc=1
    ping_now() { E 10 exec "$redis_id" redis-cli PING 2>&1 | tr -d '\r' | head -1; }
    run_check() {
      if [ "$HEALTHCHECKS_BY_HAND" = 1 ] || [ "$ENGINE" = podman ]; then
        timeout 20 podman healthcheck run "$redis_id" >/dev/null 2>&1
      else
        E 20 exec "$redis_id" sh -c "$(printf '%s' "$hc_test" | sed 's/^\["CMD-SHELL","//; s/"\]$//')" >/dev/null 2>&1
      fi
    }
    p0=$(date +%s)
    while [ "$polls" -lt 2000 ] && [ $(($(date +%s) - p0)) -le "$READY_TIMEOUT" ]; do
      polls=$((polls + 1))
      before=$(ping_now)
      run_check
      hc=$?
      after=$(ping_now)
      case "$before $after" in
        LOADING*LOADING*)
          loading=$((loading + 1))
          [ "$hc" != 0 ] && failed_while_loading=$((failed_while_loading + 1))
          code=$(bun -e "fetch('$URL/health', { signal: AbortSignal.timeout(5000) }).then(r => console.log(r.status), () => console.log(0))" 2>/dev/null)
          [ "$code" = 503 ] && engram_503=$((engram_503 + 1))
          ;;
        "PONG PONG")
          [ "$loading" -gt 0 ] && break
          ;;
      esac
    done
    detail="$keys keys in db 9; for about $(($(date +%s) - p0)) s Redis answered LOADING around $loading health checks: $failed_while_loading failed; engram's /health (via the proxy) was 503 on $engram_503 of them; then PONG and the check exited $hc"
    if [ "$loading" -gt 0 ] && [ "$failed_while_loading" = "$loading" ] && [ "$hc" = 0 ]; then
      record PASS "redis check while LOADING" "$detail"
    elif [ "$loading" = 0 ]; then
      record FAIL "redis check while LOADING" "no poll saw LOADING ($detail): raise LOADING_KEYS"
    else
      record FAIL "redis check while LOADING" "$detail"
    fi
    if services_healthy "healthy after loading" 1 && health_url "health after loading"; then
      roundtrip "kept after loading" recall
    fi
  else
    record SKIP "redis check while LOADING" "LOADING_KEYS=0"
  fi
fi

# --- summary ----------------------------------------------------------------------------------
summary "$COMPOSE, ${server:-$ENGINE}" 220 "and the logs printed where a step failed"
