#!/bin/bash
# Undoes office-netns-up.sh: stops the daemons and buses it started, removes the namespaces
# (and with them the veth pairs and the bridge) and the state folder.
# Usage: office-netns-down.sh [STATE_DIR]   (default /tmp/baton-office)
state=${1:-/tmp/baton-office}
count=$(cat "$state/count" 2>/dev/null || echo 0)
for n in $(seq "$count"); do
    for pidfile in "$state/$n/avahi.pid" "$state/$n/bus.pid"; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
    done
done
# Anything else still running inside the namespaces (clients started by a test).
for n in $(seq "$count"); do
    pids=$(ip netns pids "baton-o$n" 2>/dev/null)
    [ -n "$pids" ] && kill $pids 2>/dev/null
done
sleep 0.2
for n in $(seq "$count"); do
    ip netns delete "baton-o$n" 2>/dev/null
done
ip netns delete baton-obr 2>/dev/null
rm -rf "$state"
true
