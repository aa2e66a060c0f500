# 7. Health as the server judges it, first half: the sentinel, started by systemd at boot, listening;
# bluetoothd stopped (the sentinel never starts it again after a stop) → degraded; started again →
# listening. Then the guest powers off, and the host waits for the server to call it silent.
BOOT=health
. /mnt/field/guest/lib.sh
mark "boot for the health scenario"
listening_again
mark "health: the server says listening"
stopped=$(true_now)
systemctl stop bluetooth
mark "health: bluetoothd stopped at $stopped"
if server_state degraded 150 "" "$stopped"; then
  mark "health: the server says degraded at $(true_now)"
else
  problem "health: the server did not record the sentinel degraded within 150 s of bluetoothd's stop (it says: $(cat /mnt/field/server-state))"
fi
started=$(true_now)
systemctl start bluetooth
mark "health: bluetoothd started at $started"
if server_state listening 150 settled "$started"; then
  mark "health: the server says listening again at $(true_now)"
else
  problem "health: the server did not record the sentinel listening within 150 s of bluetoothd's start (it says: $(cat /mnt/field/server-state))"
fi
save_journal health
mark "done"
