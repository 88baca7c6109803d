#!/usr/bin/env bash
# System packages the references and test ROMs need. Installs only what is missing.
set -euo pipefail
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v node >/dev/null || need+=(nodejs npm)
command -v cargo >/dev/null || { echo "cargo (Rust) is required: https://rustup.rs" >&2; exit 1; }
if [ "${#need[@]}" -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
