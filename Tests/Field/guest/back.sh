# 7. Health, second half: booted again after the power-off the server called silent; the sentinel,
# started by systemd, heartbeats and the server records it listening (the host counts the recovery mail).
BOOT=back
. /mnt/field/guest/lib.sh
mark "boot after the power-off"
listening_again
mark "back: the server says listening at $(true_now)"
save_journal back
mark "done"
