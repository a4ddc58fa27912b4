#!/bin/bash
# The checks scripts/tests/packages.sh runs inside its Debian 12 root, as root, one step per
# call: `checks.sh STEP [ARGUMENTS]`. Each step prints PASS/FAIL lines with figures and exits
# non-zero when a check failed. The session steps (desktop, pair, paired) run in a PID and
# network namespace of their own, so every bus, batond and X server they start ends with them.
# Not for use outside that root: it makes users, buses and files as it pleases.
set -uo pipefail

# Ours: the packages in /root/baton-debs, which scripts/tests/packages.sh copied there.
packages=()
for deb in /root/baton-debs/*.deb; do packages+=("$(dpkg-deb -f "$deb" Package)"); done
state=/root/baton-checks
mkdir -p "$state"
failures=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
finish() { exit $((failures > 0 ? 1 : 0)); }

# Runs a command as USER in that user's session: their HOME, runtime folder and, once
# start_bus has run, their private session bus.
as_user() {
    local user=$1 uid bus_variable
    shift
    uid=$(id -u "$user")
    bus_variable=bus_$user
    setpriv --reuid="$uid" --regid="$uid" --init-groups \
        env -i PATH=/usr/bin:/bin HOME="/home/$user" USER="$user" LOGNAME="$user" LANG=C.UTF-8 \
        XDG_RUNTIME_DIR="/run/user/$uid" ${!bus_variable:+DBUS_SESSION_BUS_ADDRESS=${!bus_variable}} "$@"
}

# Starts USER's session bus (dbus-daemon --session: it reads /usr/share/dbus-1/services)
# and keeps its address in $bus_USER.
start_bus() {
    local user=$1 uid address
    uid=$(id -u "$user")
    install -d -m 0700 -o "$uid" -g "$uid" "/run/user/$uid"
    address=$(as_user "$user" dbus-daemon --session --fork --print-address=1) || {
        fail "dbus-daemon --session did not start for $user"
        return 1
    }
    printf -v "bus_$user" '%s' "$address"
}

# The PIDs of running batonds (any user): /usr/bin/batond as each process's executable.
batond_pids() {
    local process
    for process in /proc/[0-9]*; do
        [ "$(readlink "$process/exe" 2>/dev/null)" = /usr/bin/batond ] && echo "${process#/proc/}"
    done
}

# Waits up to SECONDS for COMMAND to succeed; prints how long it took (seconds, 0.1 s steps).
wait_for() {
    local limit=$1 tenths=0
    shift
    until "$@" >/dev/null 2>&1; do
        tenths=$((tenths + 1))
        if [ "$tenths" -ge $((limit * 10)) ]; then return 1; fi
        sleep 0.1
    done
    waited="$((tenths / 10)).$((tenths % 10))"
}

step_installed() {
    local version output
    version=$(dpkg-query -W -f='${Version}' baton)
    for program in baton batond; do
        output=$(/usr/bin/$program --version 2>&1)
        if [ "$output" = "$version" ]; then
            pass "$program --version prints $output, the package's version"
        else
            fail "$program --version printed \"$output\"; the package's version is $version"
        fi
    done
    if [ "$(readlink /etc/systemd/user/graphical-session.target.wants/batond.service)" = /usr/lib/systemd/user/batond.service ]; then
        pass "batond.service is enabled for graphical sessions (/etc/systemd/user/graphical-session.target.wants/batond.service)"
    else
        fail "batond.service is not enabled for graphical sessions after the install"
    fi
    finish
}

# ELF files our packages install: ldd resolves every library, to a file a Debian package owns.
step_libraries() {
    local elf_count=0 library_count=0 ours=0 debians=0 file magic output owner
    declare -A owners=()
    if command -v swift >/dev/null || [ -e /opt/swift ]; then fail "a Swift toolchain is in the root"; fi
    if [ -n "$(ls -A /opt 2>/dev/null)" ]; then fail "/opt is not empty: $(ls -A /opt | tr '\n' ' ')"; fi
    while read -r file; do
        [ -f "$file" ] && [ ! -L "$file" ] || continue
        magic=$(head -c 4 "$file" | od -An -c | tr -d ' ')
        [ "$magic" = '177ELF' ] || continue
        elf_count=$((elf_count + 1))
        output=$(ldd "$file" 2>&1) || { fail "ldd $file: $output"; continue; }
        if grep -q 'not found' <<<"$output"; then
            fail "$file: not found: $(awk '/not found/ { print $1 }' <<<"$output" | sort -u | paste -sd ' ')"
        fi
        while read -r library; do
            if [ -z "${owners[$library]+set}" ]; then
                owner=""
                for candidate in "$library" "$(readlink -f "$library")"; do
                    for spelling in "$candidate" "${candidate#/usr}" "/usr$candidate"; do
                        owner=$(dpkg -S "$spelling" 2>/dev/null | head -n 1 | cut -d: -f1) && [ -n "$owner" ] && break 2
                    done
                done
                owners[$library]=$owner
                if [ -z "$owner" ]; then
                    fail "$library (loaded by $file) belongs to no package"
                elif [[ "$library" == /opt/* || "$(readlink -f "$library")" == /opt/* ]]; then
                    fail "$library (loaded by $file) is under /opt"
                elif [[ " ${packages[*]} " == *" $owner "* ]]; then
                    ours=$((ours + 1))
                else
                    debians=$((debians + 1))
                fi
            fi
            library_count=$((library_count + 1))
        done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' <<<"$output")
    done < <(for package in "${packages[@]}"; do dpkg -L "$package"; done | sort -u)
    if [ "$elf_count" -lt 8 ]; then fail "only $elf_count ELF files found in the packages"; fi
    if [ "$failures" -eq 0 ]; then
        pass "ldd: $elf_count ELF files, $library_count library loads, ${#owners[@]} distinct libraries, all found: $ours ours (the Swift runtime in baton, libbaton-1-0), $debians Debian's; none under /opt, no Swift toolchain"
    fi
    finish
}

# D-Bus activation and baton doctor, then MailComposer's draft, as "person" on a private bus.
step_desktop() {
    local output status pids
    [ -z "$(batond_pids)" ] || fail "a batond runs before the session started: $(batond_pids)"
    start_bus person || finish
    output=$(as_user person baton status 2>&1)
    status=$?
    pids=$(batond_pids)
    if [ "$status" -eq 0 ] && [ -n "$pids" ]; then
        pass "baton status started batond by D-Bus activation (pid $pids, /usr/bin/batond, uid $(stat -c %u "/proc/$pids"))"
        echo "$output" | sed 's/^/    /'
    else
        fail "D-Bus activation: baton status exited with $status, batond processes: ${pids:-none}; output: $output"
        finish
    fi

    output=$(as_user person baton doctor 2>&1)
    status=$?
    echo "$output" | sed 's/^/    /'
    if [ "$status" -eq 0 ] && grep -q '^All [0-9]* checks passed\.$' <<<"$output"; then
        pass "baton doctor ran and exited 0: all its checks passed"
    elif [ "$status" -eq 1 ] && grep -q '^[0-9]* of [0-9]* checks failed\.$' <<<"$output" \
        && head -n 1 <<<"$output" | grep -q '^✔'; then
        pass "baton doctor ran, found batond running, and exited 1 as designed: $(tail -n 1 <<<"$output") ($(grep '^✘' <<<"$output" | cut -d: -f1 | sed 's/^✘ //' | paste -sd, -))"
    else
        fail "baton doctor exited with $status, which its output does not explain"
    fi

    as_user person xvfb-run -a -s "-screen 0 1280x1024x24" /usr/bin/MailComposer \
        --to bob@example.org --subject "Packaged lunch" --body "Noon?" >"$state/mailcomposer.log" 2>&1 &
    if wait_for 20 draft_is_current; then
        pass "MailComposer under Xvfb: its draft is the current activity after ${waited} s: $(as_user person baton status | grep '^current activity: ')"
        output=$(as_user person baton inspect 2>&1)
        echo "$output" | sed 's/^/    /'
        if grep -q 'bob@example.org' <<<"$output" && grep -q 'Noon?' <<<"$output"; then
            pass "baton inspect shows the draft's recipient and body"
        else
            fail "baton inspect does not show the draft's recipient (bob@example.org) and body (Noon?)"
        fi
    else
        fail "MailComposer's draft never became the current activity in 20 s; baton status: $(as_user person baton status 2>&1 | tail -n 7); MailComposer's output: $(tail -n 20 "$state/mailcomposer.log")"
    fi
    finish
}

draft_is_current() { as_user person baton status | grep -q '^current activity: .*Packaged lunch'; }

# Starts USER's bus and a batond named NAME listening on 127.0.0.1:PORT (more arguments
# after), and waits until it owns its name.
start_device() {
    local user=$1 name=$2 port=$3
    shift 3
    start_bus "$user" || return 1
    as_user "$user" batond --no-discovery --no-tailnet --name "$name" --listen "127.0.0.1:$port" "$@" \
        >"$state/batond-$user.log" 2>&1 &
    wait_for 15 grep -q 'is org.baton.Daemon' "$state/batond-$user.log" || {
        fail "batond of $user did not start: $(tail -n 20 "$state/batond-$user.log")"
        return 1
    }
}

# Two devices: person (alpha, 127.0.0.1:48201) and friend (beta, dialing alpha).
start_two_devices() {
    start_device person alpha 48201 || return 1
    start_device friend beta 48202 --peer 127.0.0.1:48201 || return 1
    id_person=$(as_user person baton status --json | jq -r '."device-id"')
    id_friend=$(as_user friend baton status --json | jq -r '."device-id"')
    wait_for 15 device_is friend "$id_person" .connected || {
        fail "the two batonds never linked: $(tail -n 20 "$state/batond-friend.log")"
        return 1
    }
}

# Whether USER's `baton devices --json` lists device ID with FILTER (a jq test) true.
device_is() {
    as_user "$1" baton devices --json | jq -e --arg id "$2" "any(.[]; .id == \$id and ($3 == true))" >/dev/null
}

no_batond() { [ -z "$(batond_pids)" ]; }

# Stops every batond with SIGTERM and waits for them to end.
stop_batonds() {
    local pids
    pids=$(batond_pids)
    [ -z "$pids" ] && return
    kill -TERM $pids
    wait_for 10 no_batond || fail "batond did not stop on SIGTERM"
}

pairing_files() {
    (cd /home && sha256sum person/.config/baton/paired-devices.json person/.config/baton/identity.pem \
        friend/.config/baton/paired-devices.json friend/.config/baton/identity.pem)
}

# Pairs person's and friend's devices as PairCommandTests does, then stops both batonds and
# keeps the pairing files' hashes.
step_pair() {
    local request code_friend code_person confirm
    start_two_devices || finish
    request=$(as_user friend baton pair alpha 2>&1) || { fail "baton pair alpha: $request"; finish; }
    code_friend=$(sed -n 's/^Verification code: //p' <<<"$request")
    wait_for 5 device_is person "$id_friend" '(."pairing-code" != null)' \
        || { fail "alpha never showed a pairing code for beta"; finish; }
    code_person=$(as_user person baton devices --json | jq -r --arg id "$id_friend" '.[] | select(.id == $id) | ."pairing-code"')
    confirm=$(as_user person baton pair --confirm beta "$code_friend" 2>&1) || { fail "confirming on alpha: $confirm"; finish; }
    confirm=$(as_user friend baton pair --confirm alpha "$code_person" 2>&1)
    if grep -q 'Paired with alpha' <<<"$confirm" && device_is person "$id_friend" .paired && device_is friend "$id_person" .paired; then
        pass "person's alpha and friend's beta paired (codes $code_friend and $code_person) with baton pair and baton pair --confirm"
    else
        fail "pairing: $confirm"
        finish
    fi
    echo "$id_person $id_friend" >"$state/device-ids"
    stop_batonds
    pairing_files >"$state/pairing.sha256" || fail "the pairing files are missing: $(ls -la /home/*/.config/baton)"
    sed 's/^/    /' "$state/pairing.sha256"
    finish
}

# After the reinstalls: the pairing files are unchanged and, restarted, each batond lists the
# other as paired.
step_paired() {
    local now
    now=$(pairing_files 2>&1)
    if [ "$now" = "$(cat "$state/pairing.sha256")" ]; then
        pass "the pairing files (paired-devices.json, identity.pem of both users) are byte-identical after the reinstalls"
    else
        fail "the pairing files changed in the reinstalls: before: $(cat "$state/pairing.sha256"); now: $now"
    fi
    read -r id_person id_friend <"$state/device-ids"
    start_two_devices || finish
    if wait_for 15 device_is person "$id_friend" .paired && device_is friend "$id_person" .paired; then
        pass "restarted, alpha lists beta as paired and beta alpha ($(as_user friend baton devices | grep alpha | tr -s ' ' | head -n 1))"
    else
        fail "after the reinstall the devices are not paired: $(as_user person baton devices 2>&1); $(as_user friend baton devices 2>&1)"
    fi
    stop_batonds
    now=$(pairing_files 2>&1)
    [ "$now" = "$(cat "$state/pairing.sha256")" ] \
        || echo "note: batond rewrote a pairing file when it ran again: $now"
    finish
}

# What the system holds, for comparing before and after: type, mode, owner, size of files
# (not of folders, which ext4 never shrinks), path.
step_snapshot() {
    find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /run -o -path /var/cache \
        -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log -o -path /home -o -path /root \) -prune \
        -o -printf '%y %m %u:%g %s %p\n' | awk '$1 != "f" { $4 = "-" } { print }' | sort -k5 >"$state/$1.snapshot"
    wc -l <"$state/$1.snapshot"
}

# Keeps the paths our packages install, for after their purge.
step_list() {
    for package in "${packages[@]}"; do dpkg -L "$package"; done | grep -v '^/\.$' | sort -u >"$state/installed-paths"
    wc -l <"$state/installed-paths"
}

# After a purge: none of the packages' paths remains, except folders installed packages own.
step_purged() {
    local kept=0 path left=()
    for package in "${packages[@]}"; do
        if dpkg-query -W -f='${db:Status-Abbrev}' "$package" 2>/dev/null | grep -q '^.[^n]'; then
            fail "$package is still known to dpkg after the purge: $(dpkg-query -W -f='${db:Status-Abbrev}' "$package")"
        fi
    done
    while read -r path; do
        [ -e "$path" ] || [ -L "$path" ] || continue
        if [ -d "$path" ] && [ ! -L "$path" ] && dpkg -S "$path" >/dev/null 2>&1; then
            kept=$((kept + 1))
        else
            left+=("$path")
        fi
    done <"$state/installed-paths"
    if [ "${#left[@]}" -eq 0 ]; then
        pass "purge: none of the $(wc -l <"$state/installed-paths") installed paths remains but $kept folders other packages own"
    else
        fail "purge left ${#left[@]} paths: ${left[*]}"
    fi
    finish
}

# Compares snapshot A with B: identical, or FAIL with the difference. With --new-only, only
# paths that are new in B, unowned by any package and named after Baton count (B holds what
# the dependencies' own maintainer scripts made, too).
step_compare() {
    local mode=exact difference
    if [ "$1" = --new-only ]; then mode=new; shift; fi
    if [ "$mode" = exact ]; then
        difference=$(diff "$state/$1.snapshot" "$state/$2.snapshot")
        if [ -z "$difference" ]; then
            pass "the system after $2 is identical to after $1 ($(wc -l <"$state/$2.snapshot") entries)"
        else
            fail "the system after $2 differs from after $1:"
            echo "$difference" | head -n 40 | sed 's/^/    /'
        fi
    else
        difference=$(comm -13 <(cut -d' ' -f5- "$state/$1.snapshot" | sort) <(cut -d' ' -f5- "$state/$2.snapshot" | sort) \
            | grep -iE 'baton|mailcomposer|texteditor' | while read -r path; do
                dpkg -S "$path" >/dev/null 2>&1 || echo "$path"
            done)
        if [ -z "$difference" ]; then
            pass "nothing named after Baton that no package owns is left after $2 (compared with $1)"
        else
            fail "left after $2, owned by no package:"
            echo "$difference" | sed 's/^/    /'
        fi
    fi
    finish
}

step=${1:-}
shift || true
case "$step" in
    installed | libraries | desktop | pair | paired | snapshot | list | purged | compare) "step_$step" "$@" ;;
    *) echo "checks.sh: unknown step \"$step\"" >&2; exit 2 ;;
esac
