#!/bin/sh
# Builds the engram image and checks it the way a user would run it, with docker or podman:
#   scripts/container-check.sh            (from anywhere; it works in the repository root)
# Checks: the build, GET /health = 200 on a loopback port, a signed store + recall round trip
# (scripts/container-roundtrip.ts, run with bun on the host), the process's uid is not 0, the
# memory survives `restart` and re-creating the container on the same named volume, the image's
# HEALTHCHECK passes, and the size of the layers above the base image (`history`). Prints a
# PASS/FAIL table, removes the container and volume it made, exits 1 if a check failed (2 when it
# cannot start: no engine, no bun).
#
# Environment (all optional):
#   CONTAINER_ENGINE  docker or podman (default: docker if its daemon answers, else podman)
#   IMAGE             tag to build (default engram:container-check)
#   BUILD_CA          a CA file passed as the build secret `ca` (TLS-intercepting proxies; default
#                     $NODE_EXTRA_CA_CERTS when that is a file; BUILD_CA=none passes none)
#   BUILD_TIMEOUT     seconds for the build (default 1200); READY_TIMEOUT for /health (default 60)
#   SIZE_LIMIT_MB     most MB the layers above the base may add (default 200)
#   HOST_PORT         loopback port to publish on (default: a free one)
#   REMOVE_IMAGE=1    also remove the built image at the end (default: kept, for the build cache)
#   SKIP_BUILD=1      check an already built $IMAGE
set -u

cd "$(dirname "$0")/.." || exit 2
IMAGE=${IMAGE:-engram:container-check}
BUILD_TIMEOUT=${BUILD_TIMEOUT:-1200}
READY_TIMEOUT=${READY_TIMEOUT:-60}
SIZE_LIMIT_MB=${SIZE_LIMIT_MB:-200}
NAME=engram-check-$$
VOLUME=engram-check-$$-data
CHECK_NAME=container-check
# shellcheck source=scripts/check-report.sh
. "$(dirname "$0")/check-report.sh"

# --- engine and tools ---------------------------------------------------------------------------
if [ -n "${CONTAINER_ENGINE:-}" ]; then
  ENGINE=$CONTAINER_ENGINE
  command -v "$ENGINE" >/dev/null 2>&1 || die "CONTAINER_ENGINE=$ENGINE is not on PATH: install it or unset CONTAINER_ENGINE"
elif command -v docker >/dev/null 2>&1 && timeout 10 docker info >/dev/null 2>&1; then
  ENGINE=docker
elif command -v podman >/dev/null 2>&1; then
  ENGINE=podman
elif command -v docker >/dev/null 2>&1; then
  die "docker is installed but its daemon does not answer (docker info failed): start it (e.g. systemctl start docker) or install podman"
else
  die "no container engine: install podman (apt-get install podman) or docker"
fi
command -v bun >/dev/null 2>&1 || die "bun is needed on the host for the HTTP checks: npm i -g bun"
[ -d node_modules/viem ] || die "node_modules/viem is missing: run bun install --frozen-lockfile first"
export DOCKER_BUILDKIT=1 # --secret and RUN --mount need BuildKit with docker
RT="bun scripts/container-roundtrip.ts"
E() { t=$1; shift; timeout "$t" "$ENGINE" "$@"; } # E <seconds> <engine arguments>

cleanup() {
  progress "cleanup: removing container $NAME and volume $VOLUME$( [ "${REMOVE_IMAGE:-0}" = 1 ] && echo " and image $IMAGE")"
  E 60 rm -f "$NAME" >/dev/null 2>&1
  E 60 volume rm -f "$VOLUME" >/dev/null 2>&1
  if [ "${REMOVE_IMAGE:-0}" = 1 ]; then E 60 rmi "$IMAGE" >/dev/null 2>&1; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "container-check: interrupted" >&2; exit 130' INT TERM

progress "engine: $ENGINE ($("$ENGINE" --version 2>/dev/null | head -1)); image $IMAGE; container $NAME; volume $VOLUME"

# --- build ------------------------------------------------------------------------------------
BUN_VERSION=$(sed -n 's/^ARG BUN_VERSION=//p' Dockerfile | head -1)
BASE="oven/bun:${BUN_VERSION}-slim"
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  record SKIP build "SKIP_BUILD=1: checking the existing $IMAGE"
else
  set -- build -t "$IMAGE"
  # Podman's default OCI format drops HEALTHCHECK; the docker format keeps it.
  [ "$ENGINE" = podman ] && set -- "$@" --format docker
  CA=${BUILD_CA:-${NODE_EXTRA_CA_CERTS:-}}
  if [ -n "$CA" ] && [ "$CA" != none ]; then
    [ -f "$CA" ] || die "BUILD_CA=$CA is not a file: point it at the proxy's CA (PEM) or set BUILD_CA=none"
    set -- "$@" --secret "id=ca,src=$CA"
    progress "build: passing $CA as the build secret ca"
  fi
  progress "build: $ENGINE $* . (log: $WORK/build.log; up to ${BUILD_TIMEOUT} s)"
  b0=$(date +%s)
  if E $BUILD_TIMEOUT "$@" . >"$WORK/build.log" 2>&1; then
    record PASS build "$(($(date +%s) - b0)) s"
  else
    rc=$?
    echo "--- last lines of the build log ---" >&2
    tail -n 25 "$WORK/build.log" >&2
    hint="see the log above"
    [ "$rc" = 124 ] && hint="timed out after ${BUILD_TIMEOUT} s: raise BUILD_TIMEOUT"
    grep -q SELF_SIGNED_CERT_IN_CHAIN "$WORK/build.log" && hint="TLS proxy: set BUILD_CA=/path/to/proxy-ca.pem"
    grep -qiE "pull|manifest unknown|repository.*not found|requested access" "$WORK/build.log" &&
      hint="the base image $BASE could not be pulled: check registry access, or load/tag an equivalent image locally"
    record FAIL build "exit $rc; $hint"
  fi
fi
if ! E 30 image inspect "$IMAGE" >/dev/null 2>&1; then
  record FAIL image "no image $IMAGE to run: fix the build first"
  FAILED=1
fi

# --- run --------------------------------------------------------------------------------------
PORT=${HOST_PORT:-$($RT port)} || die "could not find a free loopback port: set HOST_PORT"
URL=http://127.0.0.1:$PORT
run_container() {
  E 60 run -d --name "$NAME" -p "127.0.0.1:$PORT:8787" -v "$VOLUME:/data" "$IMAGE" >"$WORK/run.out" 2>&1
}
logs_hint() { echo "--- container logs ---" >&2; E 30 logs --tail 20 "$NAME" >&2 2>&1; }
wait_health() { # <check name>
  if out=$($RT health "$URL" "$READY_TIMEOUT"); then
    record PASS "$1" "$out"
  else
    record FAIL "$1" "$out"
    logs_hint
    return 1
  fi
}
roundtrip() { # <check name> <store|recall>
  if out=$($RT "$2" "$URL" "$STATE" 2>&1); then record PASS "$1" "$out"; else record FAIL "$1" "$out"; return 1; fi
}

if [ "$FAILED" = 0 ]; then
  progress "run: $NAME on $URL with volume $VOLUME"
  if run_container; then
    if wait_health health; then
      roundtrip "store + recall" store || true

      uid=$(E 30 exec "$NAME" id -u 2>&1)
      if [ "$uid" = 0 ]; then
        record FAIL "non-root" "the service runs as uid 0: keep USER bun in the Dockerfile"
      elif [ -n "$uid" ] && [ "$uid" -eq "$uid" ] 2>/dev/null; then
        record PASS "non-root" "exec id: $(E 30 exec "$NAME" id 2>&1)"
      else
        record FAIL "non-root" "exec id -u failed: $uid"
      fi

      progress "restart: $ENGINE restart $NAME"
      r0=$(date +%s)
      if E 90 restart "$NAME" >/dev/null 2>&1 && wait_health "health after restart"; then
        roundtrip "kept after restart ($(($(date +%s) - r0)) s)" recall || true
      else
        record FAIL "kept after restart" "$ENGINE restart $NAME failed or /health did not come back"
      fi

      progress "re-create: remove $NAME, run it again on $VOLUME"
      if E 60 rm -f "$NAME" >/dev/null 2>&1 && run_container && wait_health "health after re-create"; then
        roundtrip "kept after re-create" recall || true
      else
        record FAIL "kept after re-create" "could not re-create $NAME on $VOLUME: $(cat "$WORK/run.out")"
      fi

      hc=$(E 30 image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE" 2>/dev/null)
      if [ -z "$hc" ] || [ "$hc" = null ] || [ "$hc" = "{}" ]; then
        hint="keep the HEALTHCHECK in the Dockerfile"
        [ "$ENGINE" = podman ] && hint="$hint and build with --format docker"
        record FAIL HEALTHCHECK "the image has none: $hint"
      elif [ "$ENGINE" = podman ]; then
        # No systemd timers here, so run the check once by hand (0 = healthy).
        if out=$(E 30 healthcheck run "$NAME" 2>&1); then
          record PASS HEALTHCHECK "podman healthcheck run: healthy ${out}"
        else
          record FAIL HEALTHCHECK "podman healthcheck run: ${out:-unhealthy}"
        fi
      else
        # Docker runs it every --interval; wait for the first verdict (start period 30 s).
        status=starting
        i=0
        while [ "$i" -lt 90 ]; do
          status=$(E 30 inspect --format '{{.State.Health.Status}}' "$NAME" 2>/dev/null)
          [ "$status" = healthy ] || [ "$status" = unhealthy ] && break
          sleep 1
          i=$((i + 1))
        done
        if [ "$status" = healthy ]; then record PASS HEALTHCHECK "healthy after ${i} s"; else record FAIL HEALTHCHECK "status: $status after ${i} s"; fi
      fi
    fi
  else
    record FAIL run "$(cat "$WORK/run.out")"
  fi

  # --- size ----------------------------------------------------------------------------------
  if E 30 image inspect "$BASE" >/dev/null 2>&1; then
    img=$(E 30 image inspect --format '{{.Size}}' "$IMAGE")
    base=$(E 30 image inspect --format '{{.Size}}' "$BASE")
    above=$(((img - base) / 1000000))
    rows=$(($(E 30 history -q "$IMAGE" | wc -l) - $(E 30 history -q "$BASE" | wc -l)))
    progress "layers above $BASE ($rows history rows; sizes as $ENGINE prints them):"
    E 30 history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | head -n "$rows" | cut -c1-110 | sed 's/^/         /'
    detail="${above} MB above $BASE (image $((img / 1000000)) MB, base $((base / 1000000)) MB); limit ${SIZE_LIMIT_MB} MB"
    if [ "$above" -le "$SIZE_LIMIT_MB" ]; then record PASS "image size" "$detail"; else record FAIL "image size" "$detail"; fi
  else
    record FAIL "image size" "base image $BASE not found locally, cannot tell what the build added"
  fi
fi

# --- summary ----------------------------------------------------------------------------------
summary "$ENGINE, $IMAGE" 150 "and the build log or container logs printed where a step failed"
