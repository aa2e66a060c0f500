# Shared by the field guest's boot scripts (sourced; POSIX sh, run with -eu by the agent).
. /mnt/field/env
out=/mnt/field/out
metrics=http://127.0.0.1:9105/metrics

# mark WHAT: a line in the boot's log and in out/marks, with the wall clock and the time since boot.
mark() {
  echo "$(date +%s.%N) $(cut -d' ' -f1 /proc/uptime) $*" >>"$out/marks"
  echo "field: $*"
}

# fail WHY: ends the boot's script, its journal saved; the host reads the reason from its log.
fail() {
  echo "field: FAIL: $*"
  save_journal "$BOOT"
  exit 1
}

# problem WHY: a failed check that the rest of the boot can go on after; the host counts these.
problem() {
  echo "field: FAIL: $*"
  echo "$*" >>"$out/problems"
}

# The radio: BlueZ's emulator with two LE controllers, hci0 (the sentinel's) and hci1 (the tag's),
# with the RSSI the test sets in /run/field-rssi written into hci0's reports (radio-shim.c).
radio_start() {
  # Boot done first: under software emulation a busy guest answers the kernel's HCI Reset late.
  timeout 90 systemctl is-system-running --wait >/dev/null 2>&1 || true
  # Under load (software emulation on a busy host) the kernel's first HCI Reset can time out
  # before the emulator answers; a Pi's controller would be reset again, and so is this one.
  for attempt in 1 2 3; do
    FIELD_RSSI_FILE=/run/field-rssi LD_PRELOAD=/mnt/field/radio-shim.so btvirt -L -l2 >>"$out/btvirt.log" 2>&1 &
    echo $! >/run/field-btvirt.pid
    resets=$(dmesg | grep -c 'Opcode 0x0c03 failed' || true)
    for _ in $(seq 100); do
      powered hci0 && powered hci1 && return 0
      [ "$(dmesg | grep -c 'Opcode 0x0c03 failed' || true)" = "$resets" ] || break
      sleep 0.2
    done
    mark "radio: controllers not up (attempt $attempt): $(dmesg | grep -i 'bluetooth: hci' | tail -1)"
    radio_stop
  done
  fail "the emulator's controllers did not come up powered (see btvirt.log and dmesg)"
}

radio_stop() {
  kill "$(cat /run/field-btvirt.pid)" 2>/dev/null || true
  for _ in $(seq 50); do [ -e /sys/class/bluetooth/hci0 ] || return 0; sleep 0.1; done
  fail "hci0 did not go away when the emulator stopped"
}

powered() {
  busctl --timeout=2 get-property org.bluez "/org/bluez/$1" org.bluez.Adapter1 Powered 2>/dev/null | grep -q true
}

# tag MAJOR MINOR POWER RSSI [COUNT]: what the tag on hci1 advertises (COUNT tags from MINOR on, in
# turn), and the RSSI hci0 hears it with.
tag() {
  echo "$1 $2 $3 $(printf '%s' "$UUID" | tr -d '-') ${5:-1}" >/run/field-tag.new
  mv /run/field-tag.new /run/field-tag
  echo "$4" >/run/field-rssi
}

# The tag (tag.c) advertises on hci1 about ten times a second, whatever happens to bluetoothd or
# the controllers.
advertiser_start() {
  /mnt/field/tag hci1 /run/field-tag >>"$out/tag.log" 2>&1 &
  echo $! >/run/field-advertiser.pid
}

# metric NAME: the sentinel's counter now, from its metrics endpoint (empty if it does not answer).
metric() {
  curl -fsS --max-time 2 "$metrics" 2>/dev/null | awk -v name="$1" '$1 == name { print $2 }'
}

# depth: sightings in the outbox now, a whole number (empty if the sentinel does not answer).
depth() {
  value=$(metric bikebeacon_outbox_depth)
  echo "${value%.*}"
}

# drained WHY: waits up to 60 s for an empty outbox; fails with WHY if it is not.
drained() {
  i=0
  until [ "$(depth)" = 0 ]; do
    i=$((i + 1))
    [ "$i" -lt 300 ] || fail "$1"
    sleep 0.2
  done
}

# wait_metric NAME AT_LEAST SECONDS
wait_metric() {
  i=0
  while [ "$i" -lt $(($3 * 5)) ]; do
    value=$(metric "$1")
    [ -n "$value" ] && [ "${value%.*}" -ge "$2" ] && return 0
    sleep 0.2
    i=$((i + 1))
  done
  return 1
}

# uptime: seconds since boot, the clock that does not step.
uptime() { cut -d' ' -f1 /proc/uptime; }

# since START: seconds from the uptime START to now, one decimal.
since() { awk -v a="$(uptime)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }

# resumed WHAT: after a fault, how long until the sentinel scans again (its log says so) and until it
# counts a report of the followed tag again (a missing bike's advertisement: bikebeacon_matches_total);
# marks both. "Resumed" is that report, not the log line.
resumed() {
  start=$(cut -d' ' -f1 /proc/uptime)
  before=$(metric bikebeacon_matches_total)
  before=${before:-0}
  scanning="" counted=""
  while [ -z "$counted" ] || [ -z "$scanning" ]; do
    now=$(cut -d' ' -f1 /proc/uptime)
    took=$(awk -v a="$now" -v b="$start" 'BEGIN { printf "%.1f", a - b }')
    if [ -z "$scanning" ] && journalctl -u bikebeacon-sentinel --after-cursor="$CURSOR" -o cat --no-pager 2>/dev/null |
      grep -Eq 'scanning for iBeacons|scanning.*source=live|\[Sentinel\] scanning|raw HCI scan started'; then
      scanning=$took
    fi
    value=$(metric bikebeacon_matches_total)
    # A restarted sentinel counts from zero.
    [ -z "$value" ] || [ "${value%.*}" -ge "${before%.*}" ] 2>/dev/null || before=0
    if [ -z "$counted" ] && [ -n "$value" ] && [ "${value%.*}" -gt "${before%.*}" ] 2>/dev/null; then counted=$took; fi
    if [ "${took%.*}" -ge 60 ]; then
      problem "$1: the sentinel did not scan again within 60 s (scanning: ${scanning:-never}, first advertisement: ${counted:-never})"
      return 0
    fi
    sleep 0.2
  done
  mark "resumed after $1: scanning in ${scanning}s, first advertisement in ${counted}s"
}

# cursor: remembers where the sentinel's journal is now, for resumed.
cursor() {
  CURSOR=$(journalctl -u bikebeacon-sentinel -n 0 --show-cursor --no-pager 2>/dev/null | sed -n 's/^-- cursor: //p')
}

# sentinel_config PRESENT_INTERVAL: /etc/bikebeacon/sentinel.yaml for the host's server, with the test's
# intervals and metrics; the token is the one `bikebeacon enroll` wrote there (the test never sees it).
sentinel_config() {
  token=$(sed -n 's/^ *token: *"\{0,1\}\([A-Za-z0-9_-]*\)"\{0,1\} *$/\1/p' /etc/bikebeacon/sentinel.yaml | head -1)
  [ -n "$token" ] || fail "no token in /etc/bikebeacon/sentinel.yaml (was the sentinel enrolled?)"
  cat >/etc/bikebeacon/sentinel.yaml <<CONFIG
server:
  url: $SERVER
  token: $token
  timeout: 5
stateDirectory: /var/lib/bikebeacon
scanner:
  backend: dbus
  adapter: hci0
intervals:
  listRefresh: 10
  present: $1
metrics:
  host: 127.0.0.1
  port: 9105
CONFIG
}

# journal: the sentinel's log since this boot, for the host to check.
save_journal() {
  journalctl -b -u bikebeacon-sentinel -o short-iso-precise --no-pager >"$out/$1-journal.txt" 2>&1 || true
  # The same lines on the clock that does not step (seconds since boot, as the marks' uptime).
  journalctl -b -u bikebeacon-sentinel -o short-monotonic --no-pager >"$out/$1-journal-monotonic.txt" 2>&1 || true
}

# hardening NAME: the running sentinel's credentials and sandbox as the kernel and systemd see them,
# for the host to assert (NAME-status.txt from /proc/PID/status, NAME-unit.txt from systemctl show).
hardening() {
  pid=$(systemctl show -p MainPID --value bikebeacon-sentinel)
  [ "${pid:-0}" -gt 0 ] || { problem "hardening $1: the sentinel is not running"; return 0; }
  grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapInh|CapPrm|CapEff|CapBnd|CapAmb):' "/proc/$pid/status" >"$out/hardening-$1-status.txt"
  echo "User=$(id -u bikebeacon)" >>"$out/hardening-$1-status.txt"
  systemctl show bikebeacon-sentinel -p User -p NoNewPrivileges -p ProtectSystem -p ProtectHome -p PrivateDevices \
    -p RestrictAddressFamilies -p CapabilityBoundingSet -p AmbientCapabilities -p SystemCallFilter >"$out/hardening-$1-unit.txt"
}

# rate WHAT SECONDS: reports of the followed tag the sentinel counted per second over SECONDS, beside
# the LE advertising reports the controller gave the host (btmon on hci0) in the same window.
rate() {
  btmon -i hci0 >"/run/field-rate.txt" 2>/dev/null &
  monitor_pid=$!
  sleep 1
  first=$(metric bikebeacon_matches_total)
  start=$(uptime)
  sleep "$2"
  last=$(metric bikebeacon_matches_total)
  took=$(since "$start")
  kill "$monitor_pid" 2>/dev/null || true
  wait "$monitor_pid" 2>/dev/null || true
  seen=$(grep -cE 'LE (Extended )?Advertising Report' /run/field-rate.txt || true)
  mark "rate over $1: $(awk -v n="$((${last%.*} - ${first%.*}))" -v t="$took" 'BEGIN { printf "%.1f", n / t }') reports/s counted by the sentinel, $(awk -v n="$seen" -v t="$took" 'BEGIN { printf "%.1f", n / t }') LE advertising reports/s on hci0 (btmon), over ${took}s"
}

# departure WHAT: the followed bike's tag goes off the air (the tag advertises another major); how long
# until the sentinel logs it departed. Then the tag comes back.
departure() {
  cursor
  start=$(uptime)
  tag $((MAJOR + 1)) "$MINOR" -59 -60
  mark "departure over $1: tag off"
  i=0
  until journalctl -u bikebeacon-sentinel --after-cursor="$CURSOR" -o cat --no-pager 2>/dev/null | grep -q 'event=departed'; do
    i=$((i + 1))
    [ "$i" -lt 900 ] || break
    sleep 0.2
  done
  # Marked only when the journal has the departed sighting: the host's check reads this mark.
  if [ "$i" -lt 900 ]; then
    mark "departure over $1: departed logged $(since "$start")s after the tag went off"
  else
    problem "departure over $1: no departed sighting within 180 s"
  fi
  tag "$MAJOR" "$MINOR" -59 -60
}

# sigkill_bluetoothd WHAT: kills bluetoothd with SIGKILL within moments of the kernel starting a
# discovery (btmon shows the mgmt Discovering event), so that the dead daemon's discovery outlives
# it; marks when bluetoothd is back (on the bus, hci0 powered) and when the sentinel counts a report
# of the tag after that. btmon's view of the whole stretch is kept as sigkill-N-btmon.txt.
sigkill_bluetoothd() {
  n=$(($(ls "$out"/sigkill-*-btmon.txt 2>/dev/null | wc -l) + 1))
  trace="$out/sigkill-$n-btmon.txt"
  stdbuf -oL btmon -i hci0 >"$trace" 2>/dev/null &
  monitor_pid=$!
  i=0
  # The sentinel's filtered discovery is started again every LE scan period (10.24 s).
  until grep -q 'Discovery: Enabled' "$trace" 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -lt 400 ] || { kill "$monitor_pid"; problem "$1: btmon saw no discovery start within 40 s"; return 0; }
    sleep 0.1
  done
  old=$(pgrep -x bluetoothd || true)
  [ -n "$old" ] || { kill "$monitor_pid"; problem "$1: bluetoothd is not running"; return 0; }
  kill -9 "$old"
  start=$(uptime)
  mark "fault: $1 (bluetoothd $old killed by SIGKILL just after a discovery start)"
  back=""
  i=0
  until [ -n "$back" ]; do
    new=$(pgrep -x bluetoothd || true)
    if [ -n "$new" ] && [ "$new" != "$old" ] && powered hci0; then back=$(uptime); fi
    i=$((i + 1))
    [ "$i" -lt 600 ] || { kill "$monitor_pid"; problem "$1: bluetoothd did not come back within 120 s"; return 0; }
    sleep 0.2
  done
  before=$(metric bikebeacon_matches_total)
  i=0
  until [ "$(metric bikebeacon_matches_total | cut -d. -f1)" -gt "${before%.*}" ] 2>/dev/null; do
    i=$((i + 1))
    [ "$i" -lt 300 ] || { kill "$monitor_pid"; problem "$1: the sentinel heard the tag not within 60 s of bluetoothd's return"; return 0; }
    sleep 0.2
  done
  heard=$(uptime)
  kill "$monitor_pid" 2>/dev/null || true
  mark "resumed after $1: bluetoothd back $(awk -v a="$back" -v b="$start" 'BEGIN { printf "%.1f", a - b }')s after the kill, tag heard $(awk -v a="$heard" -v b="$back" 'BEGIN { printf "%.1f", a - b }')s after its return"
}

# server_state STATE SECONDS [settled] [SINCE]: waits until the server records the sentinel in STATE (the
# host reads it from the server's database into /mnt/field/server-state as "STATE ALERTED RECEIVED"); with
# "settled", also until no problem alert is outstanding (its recovery was told, or none was); with SINCE
# (seconds, the host's clock), on a heartbeat received then or later.
server_state() {
  i=0
  while [ "$i" -lt $(($2 * 5)) ]; do
    state="" alerted="" received=0
    read -r state alerted received 2>/dev/null </mnt/field/server-state || true
    if [ "$state" = "$1" ] && { [ "${3:-}" != settled ] || [ "$alerted" != problem ]; } &&
      [ "${received:-0}" -ge "${4:-0}" ] 2>/dev/null; then
      return 0
    fi
    sleep 0.2
    i=$((i + 1))
  done
  return 1
}

# listening_again: the radio up and the tag on the air; the sentinel (started by systemd at boot) scanning,
# and the server recording it listening on a heartbeat sent since, with any problem alert about the boots
# before told to its end (its recovery mailed).
listening_again() {
  modprobe hci_vhci
  tag "$MAJOR" "$MINOR" -59 -60
  radio_start
  advertiser_start
  wait_metric bikebeacon_advertisements_total 1 60 || fail "the sentinel heard nothing within 60 s of the radio's start"
  scanning=$(true_now)
  server_state listening 240 settled "$scanning" ||
    fail "the server did not record the sentinel listening within 240 s of its scanning (it says: $(cat /mnt/field/server-state 2>/dev/null))"
}

# true_now: the host's clock (the guest's may drift under emulation), to half a second.
true_now() { cat /mnt/field/now; }
