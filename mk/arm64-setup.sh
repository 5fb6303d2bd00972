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
# Exits 1, saying why, when something cannot be had. Where this machine
# cannot have it at all, the message begins "arm64-setup: unavailable:",
# and the arm64 tests skip with it: not root and a host package missing
# (the apt-get line to run is printed), a host package that the system's
# apt sources do not offer, or no arm64 package list reachable from them.
# Anything else (an installation or a download that fails, lists that name
# no kernel) is a failure of the set-up, and of the tests.
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

# unavailable WHY FIX: this machine cannot have what the set-up needs.
unavailable() {
	echo "arm64-setup: unavailable: $1" >&2
	echo "arm64-setup: $2" >&2
	exit 1
}

if [ -n "$need" ]; then
	[ "$(id -u)" = 0 ] ||
		unavailable "missing Debian packages:$need" \
			"run 'sudo apt-get install --no-install-recommends$need' or run make as root"
	echo "arm64-setup: installing$need"
	apt-get update -qq || echo "arm64-setup: 'apt-get update' failed; installing from the lists there are" >&2
	for p in $need; do
		apt-cache policy "$p" 2>/dev/null | grep -q '^ *Candidate: [^(]' ||
			unavailable "the system's apt sources offer no $p" \
				"add a Debian source that has it (deb.debian.org's main does) and run make again"
	done
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need ||
		{ echo "arm64-setup: cannot install$need" >&2; exit 1; }
fi

# Lists of our own from this run only, so that none fetched before stands
# for an archive that cannot be reached now.
rm -rf "$out/apt/lists"
mkdir -p "$out/apt/lists/partial" "$out/apt/cache/archives/partial"
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
if ! apt_arm64 apt-get update -qq > "$apt/update.log" 2>&1; then
	# apt-get fails when any source fails; the lists that came are used.
	sed 's/^/  /' "$apt/update.log" >&2
fi
if ! ls "$apt"/lists/*_binary-arm64_Packages* > /dev/null 2>&1; then
	unavailable "no arm64 package list could be fetched from the system's apt sources ($(grep -m1 -e '^E:' -e '^W:' "$apt/update.log" || echo 'apt-get update said nothing'))" \
		"give apt a reachable source that carries arm64, such as deb.debian.org (Ubuntu's is ports.ubuntu.com)"
fi
# linux-image-arm64 only depends on the current kernel's package.
kernel=$(apt_arm64 apt-cache depends linux-image-arm64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*-arm64\)$/\1/p' | head -1)
if [ -z "$kernel" ]; then
	echo "arm64-setup: the arm64 lists name no kernel package (linux-image-arm64)" >&2
	exit 1
fi
set -- libzstd-dev libxxhash-dev busybox-static "$kernel"
# Into a directory of their own: a download that fails leaves the
# packages of the last one that worked, and what was unpacked from them.
rm -rf "$out/debs.new"
mkdir "$out/debs.new"
echo "arm64-setup: downloading $*"
(cd "$out/debs.new" && apt_arm64 apt-get download -qq "$@") || {
	rm -rf "$out/debs.new"
	echo "arm64-setup: cannot download the arm64 packages $* (those fetched before, if any, are kept in $out/debs)" >&2
	exit 1
}
rm -rf "$out/debs"
mv "$out/debs.new" "$out/debs"

rm -rf "$out/pkg"
mkdir -p "$out/pkg"
: > "$out/packages.tmp"
for deb in "$out"/debs/*.deb; do
	case ${deb##*/} in linux-image-*) ;; *) dpkg-deb -x "$deb" "$out/pkg" ;; esac
	dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >> "$out/packages.tmp"
done
mv "$out/packages.tmp" "$out/packages"
echo "arm64-setup: fetched into $out/debs: $(tr '\n' ',' < "$out/packages" | sed 's/,$//; s/,/, /g')"
