#!/bin/bash
# Undoes avahi-netns-up.sh: stops the daemons and buses it started, removes both namespaces
# (and with them the veth pair) and the state folder.
# Usage: avahi-netns-down.sh [STATE_DIR [PREFIX]]   (default /tmp/baton-avahi, baton)
state=${1:-/tmp/baton-avahi}
prefix=${2:-baton}
for ns in a b; do
    for pidfile in "$state/$ns/avahi.pid" "$state/$ns/bus.pid"; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    done
done
# Anything else still running inside the namespaces (clients started by a test).
for ns in a b; do
    pids=$(ip netns pids $prefix-$ns 2>/dev/null)
    [ -n "$pids" ] && kill $pids 2>/dev/null
done
sleep 0.2
for ns in a b; do
    ip netns delete $prefix-$ns 2>/dev/null
done
ip link delete $prefix-va 2>/dev/null
rm -rf "$state"
true
