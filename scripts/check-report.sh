# Shared by container-check.sh and compose-check.sh (sourced, not run): the work folder, the
# progress lines, the PASS/FAIL records and the summary table. Set CHECK_NAME before sourcing.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/engram-$CHECK_NAME.XXXXXX") || exit 2
STATE=$WORK/state.json
START=$(date +%s)
RESULTS=$WORK/results
: >"$RESULTS"
FAILED=0

progress() { printf '[%4ss] %s\n' "$(($(date +%s) - START))" "$*"; }
# record <PASS|FAIL|SKIP|INFO> <check> <detail>
record() {
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$RESULTS"
  [ "$1" = FAIL ] && FAILED=1
  progress "$1 $2: $3"
}
die() { echo "$CHECK_NAME: $*" >&2; rm -rf "$WORK"; exit 2; }

# summary <what ran, for the heading> <detail width> <where to look on failure>: prints the table, exits with FAILED
summary() {
  echo
  echo "$CHECK_NAME summary ($1, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - START)) s)"
  printf '%-6s  %-26s  %s\n' RESULT CHECK DETAIL
  printf '%-6s  %-26s  %s\n' ------ -------------------------- ------
  while IFS="$(printf '\t')" read -r result check detail; do
    printf '%-6s  %-26s  %s\n' "$result" "$check" "$(printf '%s' "$detail" | cut -c1-"$2")"
  done <"$RESULTS"
  if [ "$FAILED" = 0 ]; then
    echo "PASS: every check passed"
  else
    echo "FAIL: see the FAIL rows above ($3)"
  fi
  exit "$FAILED"
}
