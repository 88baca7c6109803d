#!/usr/bin/env bash
# System packages the references and test ROMs need. Installs only what is missing.
set -euo pipefail
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v node >/dev/null || need+=(nodejs npm)
# emurust's test ROMs are C and assembly built with sdcc's SM83 port (sdcc, sdasgb, makebin).
command -v sdcc >/dev/null && command -v sdasgb >/dev/null && command -v makebin >/dev/null || need+=(sdcc)
command -v cargo >/dev/null || { echo "cargo (Rust) is required: https://rustup.rs" >&2; exit 1; }
if [ "${#need[@]}" -gt 0 ]; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}"
fi
