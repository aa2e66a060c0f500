# 5. Power cut, second half: systemd starts the sentinel by itself, its outbox opens and drains.
# 6. Upgrade in place while scanning: outbox and config kept, scanning resumes.
BOOT=after
. /mnt/field/guest/lib.sh
mark "boot after the power cut"
modprobe hci_vhci
tag "$MAJOR" "$MINOR" -59 -60 "$BIKES"
radio_start
advertiser_start
wait_metric bikebeacon_outbox_depth 0 60 || fail "the sentinel did not come back by itself within 60 s of boot"
systemctl show bikebeacon-sentinel -p ActiveState -p NRestarts -p ExecMainStartTimestampMonotonic >"$out/after-unit.txt"
mark "sentinel up: outbox $(depth)"
integrity=$(sqlite3 -readonly /var/lib/bikebeacon/outbox.sqlite 'pragma integrity_check' 2>&1)
[ "$integrity" = ok ] || fail "outbox integrity_check: $integrity"
mark "outbox: integrity ok"
wait_metric bikebeacon_advertisements_total 1 60 || problem "no advertisement counted within 60 s of the sentinel's restart after the power cut"
mark "scanning after the power cut"
# Back to the shipped D-Bus backend and the default present interval for the rest.
rm -f /etc/systemd/system/bikebeacon-sentinel.service.d/hci.conf
systemctl daemon-reload
sentinel_config 300
systemctl restart bikebeacon-sentinel
wait_metric bikebeacon_outbox_depth 0 60 || fail "the sentinel did not start again on the D-Bus backend"
drained "the outbox did not drain within 60 s of the server being reachable"
mark "outbox: drained"
# SD card: status and metrics on the tmpfs, nothing but the outbox and the missing list on the card.
[ "$(findmnt -n -o FSTYPE --target /run/bikebeacon)" = tmpfs ] || fail "/run/bikebeacon is not a tmpfs"
[ -s /run/bikebeacon/status.json ] || fail "no status.json in /run/bikebeacon"
extra=$(ls /var/lib/bikebeacon | grep -Ev '^(outbox\.sqlite(-wal|-shm)?|missing-list\.json|visits\.json)$' || true)
[ -z "$extra" ] || fail "unexpected files in /var/lib/bikebeacon: $extra"
mark "sd card: status on tmpfs; state directory holds only the outbox, the list and the open visits"

## 6. Upgrade in place
ip route add prohibit "${SERVER_HOST}/32"
# Sightings to carry across the upgrade: a 1 s present interval queues them while the server is out
# of reach (the arrivals after the last restart may all have been delivered already); then the
# shipped interval again, so the upgrade keeps that config.
sentinel_config 1
systemctl restart bikebeacon-sentinel
wait_metric bikebeacon_outbox_depth 5 120 || fail "the outbox did not fill before the upgrade (server blocked, 1 s present interval)"
sentinel_config 300
systemctl restart bikebeacon-sentinel
wait_metric bikebeacon_outbox_depth 5 60 || fail "the sentinel did not start again with its outbox before the upgrade"
config_before=$(md5sum /etc/bikebeacon/sentinel.yaml)
depth_before=$(depth)
cursor
mark "upgrade: from $(dpkg-query -W -f='${Version}' bikebeacon-sentinel) with $depth_before sightings queued"
apt-get install -y --no-install-recommends "/mnt/field/debs/$DEB_NEW" >"$out/apt-upgrade.log" 2>&1 ||
  fail "apt install ./$DEB_NEW failed (apt-upgrade.log)"
mark "upgrade: to $(dpkg-query -W -f='${Version}' bikebeacon-sentinel)"
[ "$(dpkg-query -W -f='${Version}' bikebeacon-sentinel)" = "$VERSION_NEW" ] || fail "the upgrade did not install $VERSION_NEW"
[ "$(md5sum /etc/bikebeacon/sentinel.yaml)" = "$config_before" ] || fail "the upgrade changed /etc/bikebeacon/sentinel.yaml"
systemctl is-active bikebeacon-sentinel >/dev/null || fail "the sentinel is not running after the upgrade"
resumed "the upgrade"
depth_after=$(depth)
[ "${depth_after:-0}" -ge "${depth_before:-0}" ] || fail "the outbox lost sightings in the upgrade ($depth_before before, $depth_after after)"
mark "upgrade: outbox kept ($depth_before before, $depth_after after), config unchanged"
ip route del prohibit "${SERVER_HOST}/32"
drained "the outbox did not drain within 60 s after the upgrade"
mark "upgrade: outbox drained"
save_journal after
mark "done"
