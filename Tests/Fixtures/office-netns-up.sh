#!/bin/bash
# An office LAN: COUNT network namespaces, baton-o1 … baton-oCOUNT (10.78.0.1 … 10.78.0.COUNT,
# one /24), each joined by a veth pair to one bridge in a namespace of its own (baton-obr), and
# each with a private system bus and its own avahi-daemon (IPv4 only). Needs root, dbus-daemon,
# avahi-daemon, iproute2, util-linux, gdbus.
# Usage: office-netns-up.sh COUNT [STATE_DIR]   (default /tmp/baton-office)
# Then, for device N:
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=STATE_DIR/N/bus.sock ip netns exec baton-oN COMMAND
# office-netns-down.sh STATE_DIR undoes it.
set -euo pipefail
count=${1:?usage: office-netns-up.sh COUNT [STATE_DIR]}
state=${2:-/tmp/baton-office}
((count >= 1 && count <= 250)) || { echo "COUNT must be 1 to 250" >&2; exit 1; }
mkdir -p "$state" /run/avahi-daemon
echo "$count" >"$state/count"

ip netns add baton-obr
ip -n baton-obr link set lo up
ip -n baton-obr link add baton-br type bridge
# Every port gets every multicast packet (mDNS), whatever IGMP snooping would have learnt.
ip -n baton-obr link set baton-br type bridge mcast_snooping 0
ip -n baton-obr link set baton-br up

for n in $(seq "$count"); do
    dir="$state/$n"
    mkdir -p "$dir"
    ip netns add "baton-o$n"
    ip -n "baton-o$n" link set lo up
    ip link add "baton-op$n" netns baton-obr type veth peer name eth0 netns "baton-o$n"
    ip -n baton-obr link set "baton-op$n" master baton-br up
    ip -n "baton-o$n" addr add "10.78.0.$n/24" dev eth0
    ip -n "baton-o$n" link set eth0 multicast on up

    cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
CONF
    dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid=3 3>"$dir/bus.pid"

    cat >"$dir/avahi-daemon.conf" <<CONF
[server]
host-name=baton-o$n
use-ipv4=yes
use-ipv6=no
allow-interfaces=eth0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
CONF
    # ip netns exec gives the command its own mount namespace: the tmpfs hides this
    # daemon's pid file and socket (always /run/avahi-daemon) from the others.
    DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus.sock" ip netns exec "baton-o$n" sh -c \
        'mount -t tmpfs tmpfs /run/avahi-daemon && exec avahi-daemon -f "$1" --no-drop-root --no-chroot --no-rlimits --no-proc-title' \
        sh "$dir/avahi-daemon.conf" >"$dir/avahi.log" 2>&1 &
    echo $! >"$dir/avahi.pid"
done

# Wait until every daemon owns org.freedesktop.Avahi and has finished registering.
for n in $(seq "$count"); do
    reply=""
    for _ in $(seq 200); do
        reply=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$state/$n/bus.sock" gdbus call --system \
            --dest org.freedesktop.Avahi --object-path / --method org.freedesktop.Avahi.Server.GetState 2>/dev/null || true)
        [ "$reply" = "(2,)" ] && break
        sleep 0.1
    done
    [ "$reply" = "(2,)" ] || { echo "avahi-daemon in baton-o$n did not start:" >&2; cat "$state/$n/avahi.log" >&2; exit 1; }
done
