# The first boot, with the clock hours behind (no RTC): install, D-Bus scanning (scenario 1),
# faults (3), the clock set by "NTP" and stepped back (4), the HCI backend with record (2).
BOOT=main
. /mnt/field/guest/lib.sh
mark "boot: guest clock $(date -u +%FT%TZ)"
modprobe hci_vhci
tag "$MAJOR" "$MINOR" -59 -60
radio_start
advertiser_start

## 1. D-Bus backend, packaged
apt-get install -y --no-install-recommends "/mnt/field/debs/$DEB_OLD" >"$out/apt-install.log" 2>&1 ||
  fail "apt install ./$DEB_OLD failed (apt-install.log)"
mark "installed $DEB_OLD"
systemctl is-enabled bikebeacon-sentinel >/dev/null 2>&1 && fail "the package enabled the sentinel before it had a token"
# Enrolled as on a Pi: the one-time code from `sentinels add`; enroll checks the radio, exchanges the code
# for the token, writes the config and starts the unit. The followed tag advertises another major until
# the sentinel runs with the test's settings below, so the bike's first arrival is made under them.
tag $((MAJOR + 1)) "$MINOR" -59 -60
bikebeacon enroll "$SERVER" "$CODE" --adapter hci0 >"$out/enroll.log" 2>&1 ||
  fail "bikebeacon enroll failed (enroll.log): $(tail -1 "$out/enroll.log")"
stat -c '%a %U %G' /etc/bikebeacon/sentinel.yaml >"$out/enroll-config.txt"
systemctl is-enabled bikebeacon-sentinel >>"$out/enroll-config.txt" 2>&1 || true
systemctl is-active bikebeacon-sentinel >>"$out/enroll-config.txt" 2>&1 || true
mark "enrolled with the one-time code"
# The code works once: a second exchange is refused and writes nothing.
if bikebeacon enroll "$SERVER" "$CODE" --config /run/field-second.yaml --skip-radio-check --no-start >"$out/enroll-again.log" 2>&1; then
  problem "the enrolment code worked a second time"
fi
[ ! -e /run/field-second.yaml ] || problem "a refused enrolment wrote /run/field-second.yaml"
# The test's intervals and metrics endpoint, the enrolled token kept.
sentinel_config 15
systemctl restart bikebeacon-sentinel
tag "$MAJOR" "$MINOR" -59 -60
wait_metric bikebeacon_sightings_delivered_total 1 90 || fail "no sighting delivered within 90 s of starting the sentinel"
mark "arrived: delivered"
hardening dbus
bikebeacon scan --adapter hci0 --json --duration 6 >"$out/scan-59-60.jsonl" 2>"$out/scan-59-60.log" || fail "bikebeacon scan failed (scan-59-60.log)"
tag "$MAJOR" "$MINOR" -65 -72
sleep 2
bikebeacon scan --adapter hci0 --json --duration 6 >"$out/scan-65-72.jsonl" 2>"$out/scan-65-72.log" || fail "bikebeacon scan failed (scan-65-72.log)"
# Another tag's major and minor, for a moment (short of any absence timeout). The scan starts first:
# on a loaded host the guest's bluetoothd once took over 5 s to answer its StartDiscovery (NoReply),
# and a scan started after the change then ended before it heard anything.
bikebeacon scan --adapter hci0 --json --duration 9 >"$out/scan-minor.jsonl" 2>"$out/scan-minor.log" &
scan=$!
sleep 2
tag "$MAJOR" $((MINOR + 1)) -59 -60
sleep 6
tag "$MAJOR" "$MINOR" -59 -60
wait "$scan" || fail "bikebeacon scan failed (scan-minor.log)"
mark "scanned"
# How often BlueZ hands the sentinel an unchanged tag, beside what the controller reports.
rate D-Bus 20

## 3. bluetoothd restarted, adapter powered off and on, controllers removed and re-added
sleep 5
cursor
mark "fault: bluetoothd restart"
systemctl restart bluetooth
resumed "bluetoothd restart"
sleep 5
cursor
mark "fault: power off"
busctl --timeout=5 set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Powered b false
sleep 3
powered hci0 && problem "hci0 still powered after setting Powered false"
busctl --timeout=5 set-property org.bluez /org/bluez/hci0 org.bluez.Adapter1 Powered b true
mark "fault: power on"
resumed "power off and on"
sleep 5
cursor
mark "fault: controllers removed"
radio_stop
sleep 3
radio_start
mark "fault: controllers re-added"
resumed "controller removed and re-added"
sleep 5

## 3b. bluetoothd killed by SIGKILL just after a discovery start, the dead daemon's discovery still
## running in the kernel; systemd restarts it (the package's bluetooth.service drop-in)
grep -q '^Restart=on-failure$' /lib/systemd/system/bluetooth.service.d/bikebeacon-sentinel.conf ||
  problem "the package did not install its bluetooth.service drop-in"
sigkill_bluetoothd "bluetoothd SIGKILL"
sleep 20
mark "after bluetoothd SIGKILL: $(systemctl show bluetooth -p NRestarts)"

## 3c. The same on stock Debian: bluetooth.service with Restart=no; the sentinel asks D-Bus to start it
mv /lib/systemd/system/bluetooth.service.d/bikebeacon-sentinel.conf /run/field-bluetooth-dropin.conf
systemctl daemon-reload
sigkill_bluetoothd "bluetoothd SIGKILL under stock Restart=no"
sleep 20
mv /run/field-bluetooth-dropin.conf /lib/systemd/system/bluetooth.service.d/bikebeacon-sentinel.conf
systemctl daemon-reload
mark "steady: the tag in range through both kills"

## 4. The clock set as NTP does after boot, then stepped back a minute
mark "clock: set forward from $(date -u +%FT%TZ)"
date -s "@$(cat /mnt/field/now)" >/dev/null
mark "clock: set to $(date -u +%FT%TZ)"
# Long enough for a present sighting to be made under each clock: one came every 60 s in the
# field runs, with BlueZ handing over the unchanged tag every 20 s or so.
sleep 75
date -s "@$(($(date +%s) - 60))" >/dev/null
mark "clock: stepped back a minute to $(date -u +%FT%TZ)"
sleep 50
departure D-Bus
sleep 20

## 2. HCI backend, packaged drop-in; record beside btmon
install -D -m644 /usr/share/bikebeacon/bikebeacon-sentinel-hci.conf /etc/systemd/system/bikebeacon-sentinel.service.d/hci.conf
systemctl daemon-reload
cursor
systemctl restart bikebeacon-sentinel
mark "backend: hci"
resumed "switch to the HCI backend"
hardening hci
rate HCI 20
btmon -i hci0 -w "$out/btmon.btsnoop" >/dev/null 2>&1 &
btmon_pid=$!
sleep 1
bikebeacon record "$out/record.btsnoop" --adapter hci0 --duration 10 >"$out/record.log" 2>&1 || problem "bikebeacon record failed (record.log)"
sleep 1
kill "$btmon_pid"
mark "recorded"
# record turned the controller's scan off as it ended, under the sentinel's feet: its watchdog must notice.
sleep 8
before=$(metric bikebeacon_advertisements_total)
sleep 5
after=$(metric bikebeacon_advertisements_total)
if [ "${after%.*}" -gt "${before%.*}" ]; then mark "hci: reporting"; else problem "the HCI backend heard nothing in the 5 s from 8 s after bikebeacon record ended"; fi
sleep 15
departure HCI
sleep 10
rm /etc/systemd/system/bikebeacon-sentinel.service.d/hci.conf
systemctl daemon-reload
cursor
systemctl restart bikebeacon-sentinel
resumed "back to the D-Bus backend"
systemctl show bikebeacon-sentinel -p NRestarts -p ActiveState >"$out/main-unit.txt"
save_journal main
mark "done"
