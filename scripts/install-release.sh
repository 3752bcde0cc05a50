#!/usr/bin/env sh
# Installs a Chorus release archive as a release folder (docs/guide/running.md, "Install from a
# release"), without git:
#   sh install-release.sh chorus-0.1.0.tar.gz [/opt/chorus]
# With SHA256SUMS beside the archive, the archive is checked first. The folder gets
# versions/<v>/ (dependencies installed with npm ci --omit=dev) and current -> versions/<v>;
# chorus.toml, .env and data/ are never touched. Start it with
#   node /opt/chorus/current/bin/chorus.js serve --project-dir /opt/chorus
# CHORUS_INSTALL_SKIP_NPM=1 leaves the dependencies out (the project's tests link them instead).
set -eu

archive=${1:?usage: install-release.sh chorus-<version>.tar.gz [folder]}
target=${2:-/opt/chorus}
name=$(basename "$archive" .tar.gz)
version=${name#chorus-}
case "$name" in
  chorus-web-*|chorus-) echo "install-release: $archive is not a bot archive (chorus-<version>.tar.gz)" >&2; exit 2 ;;
  chorus-*) ;;
  *) echo "install-release: $archive is not named chorus-<version>.tar.gz" >&2; exit 2 ;;
esac

sums="$(dirname "$archive")/SHA256SUMS"
if [ -f "$sums" ]; then
  (cd "$(dirname "$archive")" && grep " $name.tar.gz\$" SHA256SUMS | sha256sum -c -) \
    || { echo "install-release: $archive does not match SHA256SUMS" >&2; exit 1; }
else
  echo "install-release: no SHA256SUMS beside the archive; not checked" >&2
fi

if [ -e "$target/versions/$version" ]; then
  echo "install-release: $target/versions/$version exists already" >&2
  exit 1
fi
mkdir -p "$target/versions"
staging=$(mktemp -d "$target/versions/.install-XXXXXX")
trap 'rm -rf "$staging"' EXIT
tar -xzf "$archive" -C "$staging" --no-same-owner
[ -f "$staging/$name/bin/chorus.js" ] || { echo "install-release: $archive holds no $name/bin/chorus.js" >&2; exit 1; }
if [ "${CHORUS_INSTALL_SKIP_NPM:-}" != 1 ]; then
  (cd "$staging/$name" && npm ci --omit=dev --no-audit --no-fund)
fi
mv "$staging/$name" "$target/versions/$version"

# One rename switches current, as the updater does; the version it replaces becomes previous.
if [ -L "$target/current" ]; then
  ln -sfn "$(readlink "$target/current")" "$target/previous"
fi
ln -sfn "versions/$version" "$target/current.new"
mv -T "$target/current.new" "$target/current"
echo "installed Chorus $version in $target; start it with:"
echo "  node $target/current/bin/chorus.js serve --project-dir $target"
