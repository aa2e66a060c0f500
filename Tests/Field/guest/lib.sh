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

# resumed WHAT: after a fault, how long until the sentinel scans again (its log says so) and until it
# counts an advertisement again; marks both. Over BlueZ the first report can take one discovery
# cycle more: with the controller's duplicate filter on, the kernel reports a tag once per cycle.
resumed() {
  start=$(cut -d' ' -f1 /proc/uptime)
  before=$(metric bikebeacon_advertisements_total)
  before=${before:-0}
  scanning="" counted=""
  while [ -z "$counted" ] || [ -z "$scanning" ]; do
    now=$(cut -d' ' -f1 /proc/uptime)
    took=$(awk -v a="$now" -v b="$start" 'BEGIN { printf "%.1f", a - b }')
    if [ -z "$scanning" ] && journalctl -u bikebeacon-sentinel --after-cursor="$CURSOR" -o cat --no-pager 2>/dev/null |
      grep -Eq 'scanning for iBeacons|scanning.*source=live|\[Sentinel\] scanning|raw HCI scan started'; then
      scanning=$took
    fi
    value=$(metric bikebeacon_advertisements_total)
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

# sentinel_config PRESENT_INTERVAL: /etc/bikebeacon/sentinel.yaml for the host's server.
sentinel_config() {
  cat >/etc/bikebeacon/sentinel.yaml <<CONFIG
server:
  url: $SERVER
  token: $TOKEN
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
