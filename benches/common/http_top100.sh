# Sourced by the bench scripts: the HTTP API's top-100 query with 3 percentiles (as benches/e2e.sh
# polls it), timed by curl 20 times a second until bash's $SECONDS reaches END; one `time_total`
# (seconds) a line on stdout.  Usage: http_top100 URL END
http_top100() {
  while [ "$SECONDS" -lt "$2" ]; do
    curl -s -o /dev/null -w '%{time_total}\n' \
      "$1/api/v1/reports/report_by_hostname_and_script?limit=100&percentiles=50,95,99" || true
    sleep 0.05
  done
}
