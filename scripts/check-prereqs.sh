#!/usr/bin/env bash
# Usage: scripts/check-prereqs.sh   (run first by `make build` / `make install`)
# Checks, before cargo starts, every tool and library the build needs, and names in one message
# all those missing with the command that installs them on Debian/Ubuntu. Without it a fresh
# machine fails minutes into the build, inside a cargo backtrace ("is `cmake` not installed?").
#
# Why each is needed:
#   cargo, rustc   the build itself; rustc 1.92 or newer (Cargo.toml's rust-version: the newest
#                  std API the crate uses is 1.92's `Box::new_zeroed`, and clippy flags any
#                  newer one); Debian's own rustc is older, hence rustup
#   cc             the bundled codecs (lz4, zstd, zlib-ng, zfp) are C, compiled by the cc crate
#                  and by CMake (no C++ compiler is needed to build; the C tests of .ci/run use
#                  one, and install it themselves)
#   make, cmake    libz-sys builds zlib-ng with CMake; make drives this Makefile
#   pkg-config     `make example` and the installed blosc2.pc
#   libclang       zfp-sys-cc generates its bindings with bindgen, which loads libclang (and
#                  its builtin headers, hence libclang-dev)
# Honours CARGO, RUSTC and CC as the Makefile and cargo do, and LIBCLANG_PATH as
# clang-sys does.
set -uo pipefail

CARGO=${CARGO:-cargo}
RUSTC=${RUSTC:-rustc}
CC=${CC:-cc}
MIN_RUST=1.92

missing=()   # what is missing, for the message
apt=()       # the Debian packages that provide it
rust_hint=

have() { command -v "$1" >/dev/null 2>&1; }

if ! have "$CARGO" || ! have "$RUSTC"; then
  have "$CARGO" || missing+=("$CARGO")
  have "$RUSTC" || missing+=("$RUSTC")
  rust_hint=1
else
  version=$("$RUSTC" --version 2>/dev/null | awk '{print $2}')
  if [ -z "$version" ] ||
    [ "$(printf '%s\n%s\n' "$MIN_RUST" "${version%%-*}" | sort -V | head -n 1)" != "$MIN_RUST" ]; then
    missing+=("rustc >= $MIN_RUST (found ${version:-none})")
    rust_hint=1
  fi
fi
have "$CC" || { missing+=("$CC (C compiler)"); apt+=(gcc); }
have make || { missing+=(make); apt+=(make); }
have cmake || { missing+=(cmake); apt+=(cmake); }
have pkg-config || { missing+=(pkg-config); apt+=(pkg-config); }

# Where clang-sys looks for libclang: LIBCLANG_PATH, llvm-config's libdir, the usual places.
libclang_found() {
  local dirs=()
  [ -n "${LIBCLANG_PATH:-}" ] && dirs+=("$LIBCLANG_PATH")
  have llvm-config && dirs+=("$(llvm-config --libdir 2>/dev/null)")
  dirs+=(/usr/lib/llvm-*/lib /usr/lib/*-linux-gnu /usr/lib64 /usr/lib /usr/local/lib)
  local d
  for d in "${dirs[@]}"; do
    compgen -G "$d/libclang.so*" >/dev/null && return 0
    compgen -G "$d/libclang-[0-9]*.so*" >/dev/null && return 0
  done
  return 1
}
libclang_found || { missing+=("libclang (for bindgen)"); apt+=(libclang-dev); }

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

{
  echo "check-prereqs: cannot build rblosc2, missing: $(printf '%s, ' "${missing[@]}" | sed 's/, $//')"
  if [ ${#apt[@]} -gt 0 ]; then
    echo "  install on Debian/Ubuntu:  sudo apt-get install ${apt[*]}"
  fi
  if [ -n "$rust_hint" ]; then
    have curl || echo "  (rustup's installer needs curl:  sudo apt-get install curl ca-certificates)"
    echo "  install Rust $MIN_RUST or newer with rustup (Debian's rustc is too old):"
    echo "    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh"
  fi
} >&2
exit 1
