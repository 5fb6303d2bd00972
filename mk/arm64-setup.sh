#!/bin/sh
# mk/arm64-setup.sh: what the arm64 build and its emulated machine need, and
# nothing that is already there. Run by `make arm64` and the arm64 tests
# through a stamp, apart from mk/setup.sh: the plain build needs none of it.
#
# On the host, from Debian: the cross compiler, its C library, qemu's arm64
# machine and cpio (which packs the machine's initramfs). For the arm64
# side, Debian's arm64 packages, fetched with `apt-get download` through an
# apt configuration of our own under build/arm64/apt (the sources are the
# system's, the lists, cache and package state ours), so the system's apt
# configuration and its dpkg state are never changed:
#   libzstd-dev, libxxhash-dev   the static libraries prof-record links
#   linux-image-*-arm64          the kernel the machine boots, and modules
#   busybox-static               the machine's userland
# They are kept in build/arm64/debs, and all but the kernel (whose few
# files the machine needs tests/vm/build-image takes from its package)
# unpacked with dpkg-deb into build/arm64/pkg. build/arm64/packages lists
# what was fetched, name and version.
#
# Exits 1, saying why, when something cannot be had: not root and a host
# package missing (the apt-get line to run is printed), or a download failed.
set -eu

out=${1:-build/arm64}
need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
check() { # check KIND WHAT PACKAGE
	if ! "have_$1" "$2"; then need="$need $3"; fi
}

check cmd  aarch64-linux-gnu-gcc    gcc-aarch64-linux-gnu
check file /usr/aarch64-linux-gnu/include/stdio.h libc6-dev-arm64-cross
check cmd  qemu-system-aarch64      qemu-system-arm
check cmd  cpio                     cpio

if [ -n "$need" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "arm64-setup: missing Debian packages:$need" >&2
		echo "arm64-setup: run 'sudo apt-get install --no-install-recommends$need' or run make as root" >&2
		exit 1
	fi
	echo "arm64-setup: installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need ||
		{ echo "arm64-setup: cannot install$need" >&2; exit 1; }
fi

mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial" "$out/debs"
apt=$(cd "$out/apt" && pwd)
: > "$apt/status"
apt_arm64() { # apt_arm64 COMMAND ARGS...: apt-get or apt-cache for arm64, in our own state
	tool=$1
	shift
	"$tool" -q -o APT::Architecture=arm64 -o APT::Architectures=arm64 \
		-o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" \
		-o Dir::Cache="$apt/cache" \
		-o APT::Sandbox::User="$(id -un)" "$@"
}

echo "arm64-setup: fetching Debian's arm64 lists"
apt_arm64 apt-get update -qq ||
	{ echo "arm64-setup: 'apt-get update' for arm64 failed" >&2; exit 1; }
# linux-image-arm64 only depends on the current kernel's package.
kernel=$(apt_arm64 apt-cache depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*-arm64\)$/\1/p' | head -1)
if [ -z "$kernel" ]; then
	echo "arm64-setup: the arm64 lists name no kernel package (linux-image-arm64)" >&2
	exit 1
fi
set -- libzstd-dev libxxhash-dev busybox-static "$kernel"
rm -f "$out"/debs/*.deb
echo "arm64-setup: downloading $*"
(cd "$out/debs" && apt_arm64 apt-get download -qq "$@") ||
	{ echo "arm64-setup: cannot download the arm64 packages $*" >&2; exit 1; }

rm -rf "$out/pkg"
mkdir -p "$out/pkg"
: > "$out/packages.tmp"
for deb in "$out"/debs/*.deb; do
	case ${deb##*/} in linux-image-*) ;; *) dpkg-deb -x "$deb" "$out/pkg" ;; esac
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$out/packages.tmp"
done
mv "$out/packages.tmp" "$out/packages"
echo "arm64-setup: fetched into $out/debs: $(tr '\n' ',' < "$out/packages" | sed 's/,$//; s/,/, /g')"
