#!/bin/bash
# Two network namespaces, PREFIX-a (10.77.0.1) and PREFIX-b (10.77.0.2), joined by a veth pair,
# each with a private system bus and its own avahi-daemon. Needs root, dbus-daemon,
# avahi-daemon, avahi-utils, iproute2, util-linux.
# Usage: avahi-netns-up.sh [STATE_DIR [PREFIX]]   (default /tmp/baton-avahi, baton; PREFIX at most 8
# characters: the veth ends are PREFIX-va and PREFIX-vb)
# Then, for namespace X in a b:
#   DBUS_SYSTEM_BUS_ADDRESS=unix:path=STATE_DIR/X/bus.sock ip netns exec PREFIX-X COMMAND
set -euo pipefail
state=${1:-/tmp/baton-avahi}
prefix=${2:-baton}
mkdir -p "$state" /run/avahi-daemon

ip netns add $prefix-a
ip netns add $prefix-b
ip link add $prefix-va type veth peer name $prefix-vb
ip link set $prefix-va netns $prefix-a
ip link set $prefix-vb netns $prefix-b

declare -A address=([a]=10.77.0.1/24 [b]=10.77.0.2/24)
for ns in a b; do
    dir="$state/$ns"
    mkdir -p "$dir"
    ip -n $prefix-$ns link set lo up
    ip -n $prefix-$ns addr add "${address[$ns]}" dev $prefix-v$ns
    ip -n $prefix-$ns link set $prefix-v$ns multicast on up

    cat > "$dir/bus.conf" <<CONF
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

    cat > "$dir/avahi-daemon.conf" <<CONF
[server]
host-name=$prefix-$ns
use-ipv4=yes
use-ipv6=yes
allow-interfaces=$prefix-v$ns
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
    # daemon's pid file and socket (always /run/avahi-daemon) from the other one.
    DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/bus.sock" ip netns exec $prefix-$ns sh -c \
        'mount -t tmpfs tmpfs /run/avahi-daemon && exec avahi-daemon -f "$1" --no-drop-root --no-chroot --no-rlimits --no-proc-title' \
        sh "$dir/avahi-daemon.conf" >"$dir/avahi.log" 2>&1 &
    echo $! >"$dir/avahi.pid"
done

# Wait until both daemons own org.freedesktop.Avahi and have finished registering.
for ns in a b; do
    for _ in $(seq 100); do
        state_reply=$(DBUS_SYSTEM_BUS_ADDRESS="unix:path=$state/$ns/bus.sock" gdbus call --system \
            --dest org.freedesktop.Avahi --object-path / --method org.freedesktop.Avahi.Server.GetState 2>/dev/null || true)
        [ "$state_reply" = "(2,)" ] && break
        sleep 0.1
    done
    [ "$state_reply" = "(2,)" ] || { echo "avahi-daemon in $prefix-$ns did not start:" >&2; cat "$state/$ns/avahi.log" >&2; exit 1; }
done
