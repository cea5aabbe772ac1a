#!/usr/bin/env bash
# Builds the Debian package from a finished build tree and checks what a user's machine gets:
# both programs, the examples, the desktop entry (valid), the MIME type for *.fxmem.json (it
# wins over plain JSON), the icon, and Depends found from the binaries' libraries.
set -euo pipefail
build=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd "$out" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >/dev/null 2>&1)
deb=$(ls "$out"/fxmem_*.deb)
contents=$(dpkg-deb -c "$deb")
for f in ./usr/bin/fxmem ./usr/bin/fxmem-cli ./usr/share/applications/io.github.fxmem.fxmem.desktop \
         ./usr/share/mime/packages/fxmem.xml ./usr/share/icons/hicolor/scalable/apps/fxmem.svg \
         ./usr/share/fxmem/examples/gpt.fxmem.json; do
  grep -qF " $f" <<<"$contents" || { echo "missing in $deb: $f"; exit 1; }
done
depends=$(dpkg-deb -f "$deb" Depends)
grep -q 'libqt6widgets6' <<<"$depends" || { echo "Depends lacks Qt 6 Widgets: $depends"; exit 1; }
desktop-file-validate "$src/resources/desktop/io.github.fxmem.fxmem.desktop"
# The MIME database built from our file alone maps a *.fxmem.json name to our type.
mkdir -p "$out/mime/packages"
cp "$src/resources/desktop/fxmem-mime.xml" "$out/mime/packages/fxmem.xml"
update-mime-database "$out/mime" >/dev/null 2>&1
grep -q '^60:application/x-fxmem+json:\*\.fxmem\.json$' "$out/mime/globs2" \
  || { echo "globs2 lacks *.fxmem.json:"; cat "$out/mime/globs2"; exit 1; }
echo "deb ok: $(basename "$deb"), Depends: $depends"
