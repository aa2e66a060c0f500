# The guest's half of `scripts/bench-server --city --guest` (run by the field image's agent as
# /mnt/field/guest/city.sh, `sh -eu`, as root): bikebeacon-server installed as an operator installs it (its
# user, the shipped unit, /etc/bikebeacon/server.env) on the database seeded on the host, started by systemd on
# core 1; the streams (and any load levels) from core 0. Results in /mnt/field/out/city-{memory,load}.txt, as `--city` writes them.
share=/mnt/field
. "$share/env"
out=$share/out
state=/var/lib/bikebeacon-server

# The kernel's defaults are a desktop's: a port range of 28 000 for the generator's 50 000 connections and
# more, and a listen queue of 4 096.
sysctl -q -w net.ipv4.ip_local_port_range="1024 65535" net.core.somaxconn=65535 net.ipv4.tcp_max_syn_backlog=65535

useradd --system --home-dir "$state" --no-create-home --shell /usr/sbin/nologin bikebeacon-server
# Where the package puts it: the executable finds its resources (dashboard, OpenAPI document) beside itself.
mkdir -p /usr/lib/bikebeacon-server
install -m755 "$share/bin/bikebeacon-server" /usr/lib/bikebeacon-server/bikebeacon-server
cp -R "$share/bin/bikebeacon_Server.resources" /usr/lib/bikebeacon-server/
chmod -R u=rwX,go=rX /usr/lib/bikebeacon-server
ln -s ../lib/bikebeacon-server/bikebeacon-server /usr/bin/bikebeacon-server
install -m644 "$share/bikebeacon-server.service" /etc/systemd/system/bikebeacon-server.service
mkdir -p /etc/bikebeacon /etc/systemd/system/bikebeacon-server.service.d "$state"
# As `--city` runs it: no per-address limits (the generator's 10 000 sentinels come from four addresses).
echo "BIKEBEACON_OPTIONS=--sentinel-rate 1000000000 --signups-per-hour 1000000 --bcrypt-cost 4 --new-tag-hold 0" \
  >/etc/bikebeacon/server.env
printf '[Service]\nCPUAffinity=1\n' >/etc/systemd/system/bikebeacon-server.service.d/bench-core.conf
cp "$share/bikebeacon.sqlite" "$state/bikebeacon.sqlite"
chown -R bikebeacon-server:bikebeacon-server "$state"
systemctl daemon-reload
systemctl start bikebeacon-server
healthy=no
for _ in $(seq 300); do
  if curl -fs http://127.0.0.1:8080/healthz >/dev/null 2>&1; then healthy=yes; break; fi
  sleep 0.1
done
if [ "$healthy" = no ]; then
  echo "FAIL: the server did not come up under systemd"
  journalctl -u bikebeacon-server --no-pager | tail -20
  exit 1
fi
pid=$(systemctl show -p MainPID --value bikebeacon-server)
echo "server pid $pid under systemd: $(grep 'Max open files' "/proc/$pid/limits" | tr -s ' ')"
echo "guest: $(nproc) cores, $(free -m | awk '/^Mem:/ { print $2 }') MB, $(uname -r)"

# The generator holds a descriptor for every stream and request; root in the guest may raise its own limit.
prlimit --pid $$ --nofile=1048576:1048576
steps=$STREAMS
[ "$STREAMS" -le 10000 ] || steps="10000,$STREAMS"
taskset -c 0 python3 "$share/city.py" memory --port 8080 --server-pid "$pid" --state "$share/city.json" \
  --steps "$steps" --stream-rate "$STREAM_RATE" --idle-seconds 16 | sed "s/^/sqlite-guest /" >"$out/city-memory.txt"
echo "memory steps done"
: >"$out/city-load.txt"
for level in $LEVELS; do
  sleep 20
  IFS=: read -r sentinels streams rate <<LEVEL
$level
LEVEL
  echo "level: $sentinels sentinels, $streams streams, $rate sightings/s for $DURATION s"
  taskset -c 0 python3 "$share/city.py" load --port 8080 --server-pid "$pid" --state "$share/city.json" \
    --tokens "$share/tokens.txt" --etag "$ETAG" --heartbeat --sentinels "$sentinels" --streams "$streams" \
    --stream-rate "$STREAM_RATE" --sighting-rate "$rate" --bike-pages "$PAGES" --share-pages "$PAGES" --duration "$DURATION" |
    sed "s/^/sqlite-guest /" >>"$out/city-load.txt"
done
systemctl is-active --quiet bikebeacon-server || { echo "FAIL: the server died"; journalctl -u bikebeacon-server --no-pager | tail -20; exit 1; }
echo "the server's log during the run, by message:"
journalctl -u bikebeacon-server --no-pager -o cat | sed -E 's/^[0-9T:.+-]+ //; s/hb\.request\.id=[0-9a-f]+ //; s/[0-9a-f-]{36}/ID/g' |
  sort | uniq -c | sort -rn | sed -n 1,8p
