# Sourced by scripts/install-service.sh and scripts/package.sh: whether $1 can be a Firefox
# extension id that goes into a host manifest and an extension's manifest as it is: a {UUID}
# or name@domain, at most 80 characters, nothing that needs quoting in JSON or sed.
firefox_extension_id_is_valid() {
    [[ "$1" =~ ^(\{[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}|[A-Za-z0-9._+-]+@[A-Za-z0-9.-]+)$ ]] \
        && [ "${#1}" -le 80 ]
}
