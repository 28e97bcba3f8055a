#!/usr/bin/env bash
# Obtains the UCI handwritten digits (1,797 8x8 images, 64 pixel columns + label) from
# Debian's python3-sklearn package without installing it: the .deb is downloaded with
# apt-get, the one CSV extracted, and its content checked against a known SHA-256.
# Usage: scripts/fetch-digits.sh DEST/digits.csv   (writes the uncompressed CSV)
set -euo pipefail
dest=${1:?usage: fetch-digits.sh DEST/digits.csv}
expected=6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8  # of the uncompressed CSV
verify() { [[ -s "$1" ]] && [[ "$(sha256sum < "$1" | cut -d' ' -f1)" == "$expected" ]]; }

if [[ -f "$dest" ]] && verify "$dest"; then exit 0; fi
mkdir -p "$(dirname "$dest")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetch-digits: downloading Debian's python3-sklearn package to extract digits.csv.gz"
if ! (cd "$work" && apt-get download python3-sklearn >/dev/null 2>&1); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -q >/dev/null
  (cd "$work" && apt-get download python3-sklearn >/dev/null)
fi
dpkg-deb --fsys-tarfile "$work"/python3-sklearn_*.deb |
  tar -xO ./usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz | zcat > "$work/digits.csv"
if ! verify "$work/digits.csv"; then
  echo "fetch-digits: the extracted digits.csv does not have the expected content" >&2
  exit 1
fi
mv "$work/digits.csv" "$dest"
echo "fetch-digits: wrote $dest"
