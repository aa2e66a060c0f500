# 5. Power cut, first half: the sentinel (enabled by the first boot) fills its outbox while the
# server is out of reach; then it is restarted on the HCI backend, which hears twenty missing
# bikes within two seconds and goes on with their open visits (no second arrival): they are
# reported present together at the region monitor's first report, a minute after the restart,
# and the host pulls the plug (qemu quit) as soon as the first of those sightings is logged: in
# the middle of their writes.
BOOT=powercut
. /mnt/field/guest/lib.sh
mark "boot"
modprobe hci_vhci
# Twenty missing bikes in range at once (the tag takes their minors in turn, 100 ms each).
tag "$MAJOR" "$MINOR" -59 -60 "$BIKES"
radio_start
advertiser_start
# The server out of reach: sightings stay in the outbox.
ip route add prohibit "${SERVER_HOST}/32"
sentinel_config 1
systemctl restart bikebeacon-sentinel
wait_metric bikebeacon_outbox_depth 15 180 || fail "the outbox did not fill while the server was out of reach"
# What the outbox has committed (synchronous=FULL): the cut must lose none of it.
sqlite3 -readonly /var/lib/bikebeacon/outbox.sqlite 'SELECT id FROM outbox ORDER BY seq' >"$out/powercut-outbox.txt" ||
  fail "cannot read the outbox before the power cut"
mark "outbox: $(depth) sightings; restarting on the HCI backend, then the plug"
install -D -m644 /usr/share/bikebeacon/bikebeacon-sentinel-hci.conf /etc/systemd/system/bikebeacon-sentinel.service.d/hci.conf
systemctl daemon-reload
# The journal of this boot dies with it (journald syncs every few minutes): stream it to the host,
# which watches it for the moment to cut.
journalctl -f -n 0 -u bikebeacon-sentinel -o short-iso-precise --no-pager >"$out/powercut-journal.txt" 2>&1 &
sleep 1
touch "$out/powercut.ready"
systemctl restart bikebeacon-sentinel
sleep 600
fail "the host did not cut the power"
