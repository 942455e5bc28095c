#!/usr/bin/env bash
# Runs a command with CPython 3.14 and 3.15 at hand, which this machine's own packages lack:
# inside a minimal Debian root filesystem from the `forky` suite (python3.14 and python3.15
# with their venv and dev packages, gcc, libc6-dev), made by debootstrap on first use and
# reused after. The repository is bind-mounted at its own path, and the host's Rust
# toolchain (~/.cargo, ~/.rustup) at /root, so the command runs in the same folder and can
# build the extension.
#
#   tools/newer_pythons.sh python3.15 -V
#   tools/newer_pythons.sh nox -s "matrix(python='3.14', numpy='2.5')"   # what noxfile.py does
#   tools/newer_pythons.sh bash                                            # a shell inside
#
# Needs root (debootstrap, mount, chroot) and the network (Debian's mirror, PyPI). The root
# filesystem lives in .nox/newer-pythons/ (`rm -rf .nox/newer-pythons` makes it again).
# Every mount is made in a mount namespace of the script's own (unshare) and undone on exit
# by a trap, also when the command fails, so nothing stays mounted under the repository.
# Inside, NEWER_PYTHONS=1 is set, and CARGO_TARGET_DIR is target/newer-pythons: what is
# built there links against forky's newer glibc and must not mix with the host's builds.
# Exits with the command's status.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BASE=$REPO/.nox/newer-pythons
ROOTFS=$BASE/root
SUITE=forky
PACKAGES=python3.14,python3.14-venv,python3.14-dev,python3.15,python3.15-venv,python3.15-dev,gcc,libc6-dev,file
CA_BUNDLE=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}

if [ $# -eq 0 ]; then
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
fi

# Re-run this script in a private mount namespace: its mounts are invisible to the host and
# vanish with it, even if it is killed before the trap below can run.
if [ -z "${NEWER_PYTHONS_UNSHARED:-}" ]; then
    exec env NEWER_PYTHONS_UNSHARED=1 unshare --mount --propagation private "$0" "$@"
fi

# The root filesystem, made once: `complete` is written only after every step succeeded.
make_root() {
    if ! command -v debootstrap >/dev/null; then
        apt-get install -y -q debootstrap
    fi
    local mirror script
    # The Debian mirror apt uses here, and debootstrap's script for the testing suites.
    mirror=$(apt-get indextargets --format '$(REPO_URI)' | grep -m1 '/debian/$')
    script=$(dpkg -L debootstrap | grep -m1 '/scripts/sid$')
    rm -rf "$BASE"
    mkdir -p "$BASE"
    echo "newer_pythons: debootstrap $SUITE from $mirror into $ROOTFS" >&2
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$mirror" "$script"
    # The suite's Release file is past its validity date; apt inside would refuse it.
    echo 'Acquire::Check-Valid-Until "false";' >"$ROOTFS/etc/apt/apt.conf.d/99no-valid-until"
    touch "$BASE/complete"
}
[ -f "$BASE/complete" ] || make_root

MOUNTED=()
unmount_all() {
    local i
    for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
        umount --recursive --lazy "${MOUNTED[$i]}" || true
    done
}
trap unmount_all EXIT

bind() { # bind <host path> <path inside the root>
    mkdir -p "$ROOTFS$2"
    mount --rbind "$1" "$ROOTFS$2"
    MOUNTED+=("$ROOTFS$2")
}
mount -t proc proc "$ROOTFS/proc" && MOUNTED+=("$ROOTFS/proc")
bind /dev /dev
bind "$REPO" "$REPO"
for folder in .cargo .rustup; do
    if [ -d "$HOME/$folder" ]; then
        bind "$HOME/$folder" "/root/$folder"
    fi
done

# pip there verifies PyPI with the host's CA bundle; DNS as on the host.
cp "$CA_BUNDLE" "$ROOTFS/etc/host-ca-bundle.pem"
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"

# A clean environment (the host's proxy settings aside), as on a fresh machine.
passed=()
for name in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY TERM; do
    if [ -n "${!name:-}" ]; then
        passed+=("$name=${!name}")
    fi
done
status=0
chroot "$ROOTFS" /usr/bin/env -i "${passed[@]}" \
    HOME=/root \
    LANG=C.UTF-8 \
    PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    SSL_CERT_FILE=/etc/host-ca-bundle.pem \
    PIP_CERT=/etc/host-ca-bundle.pem \
    REQUESTS_CA_BUNDLE=/etc/host-ca-bundle.pem \
    CARGO_TARGET_DIR="$REPO/target/newer-pythons" \
    NEWER_PYTHONS=1 \
    bash -c 'cd "$1" && shift && exec "$@"' newer_pythons "$PWD" "$@" || status=$?
exit $status
