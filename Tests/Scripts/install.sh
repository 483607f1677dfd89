#!/bin/sh
# Builds the `understudy` binary and copies it to a directory on PATH, so the README's
# `understudy ...` examples run as written.
#
#   Tests/Scripts/install.sh [-c release|debug] [DIR]
#
# DIR defaults to $PREFIX/bin, else ~/.local/bin. The build configuration defaults to release.
set -eu

configuration=release
if [ "${1:-}" = "-c" ]; then
  configuration="${2:?-c takes release or debug}"
  shift 2
fi
case "$configuration" in
  release|debug) ;;
  *) echo "install.sh: -c takes release or debug, got '$configuration'" >&2; exit 64 ;;
esac
dir="${1:-${PREFIX:-$HOME/.local}/bin}"

cd "$(dirname "$0")/../.."
swift build -c "$configuration" --product understudy
bin="$(swift build -c "$configuration" --show-bin-path)/understudy"
mkdir -p "$dir"
# Copy then rename, so a running `understudy` is never overwritten in place.
cp "$bin" "$dir/.understudy.tmp.$$"
chmod 0755 "$dir/.understudy.tmp.$$"
mv -f "$dir/.understudy.tmp.$$" "$dir/understudy"
echo "installed $dir/understudy ($("$dir/understudy" --version))"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "install.sh: $dir is not on PATH; add it with: export PATH=\"$dir:\$PATH\"" >&2 ;;
esac
