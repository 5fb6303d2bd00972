#!/bin/sh
# mk/setup.sh: install what prof needs to build and test, and nothing that is
# already there. The one list of dependencies: each line is a check, then the
# Debian package that satisfies it. Run by make through a stamp file.
set -eu

need=""
have_pc()  { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
have_deb() { dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

check() { # check KIND WHAT PACKAGE
	if ! "have_$1" "$2"; then need="$need $3"; fi
}

# macOS: the build's libraries from Homebrew (the tests run on Linux).
if [ "$(uname -s)" = Darwin ]; then
	check cmd  pkg-config           pkg-config
	check pc   libzstd              zstd
	check pc   libdwarf             libdwarf
	check pc   libxxhash            xxhash
	check pc   criterion            criterion
	check cmd  mandoc               mandoc
	[ -d "$(brew --prefix binutils 2>/dev/null)/lib" ] || need="$need binutils"
	if [ -n "$need" ]; then
		echo "setup: installing with Homebrew:$need"
		brew install $need
	fi
	exit 0
fi

check cmd  pkg-config               pkg-config
check pc   libzstd                  libzstd-dev
check file /usr/include/libdwarf/libdwarf.h libdwarf-dev
check pc   libxxhash                libxxhash-dev
check pc   zlib                     zlib1g-dev
check pc   criterion                libcriterion-dev
check file /usr/include/libiberty/demangle.h libiberty-dev
check cmd  mandoc                   mandoc
check cmd  man                      man-db
check cmd  xmllint                  libxml2-utils
check deb  libc6-dbg                libc6-dbg
check cmd  chromium                 chromium
check cmd  npm                      npm
check cmd  go                       golang-go
check cmd  protoc                   protobuf-compiler
check deb  libclang-rt-14-dev       libclang-rt-14-dev
check cmd  strace                   strace
check cmd  node                     nodejs
check cmd  perf                     linux-perf
check file /usr/bin/time            time

if [ -n "$need" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages:$need" >&2
		echo "setup: run 'sudo apt-get install$need' or run make as root" >&2
		exit 1
	fi
	echo "setup: installing$need"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi

# playwright-core drives Chromium in the browser tests, and speedscope is
# the viewer that the speedscope export is opened in. They come from npm
# into the build directory (never a global install), once, in one install
# (npm would drop a package that a later --no-save install does not name).
pw=build/node/node_modules/playwright-core/package.json
ss=build/node/node_modules/speedscope/package.json
if { ! [ -f "$pw" ] || ! [ -f "$ss" ]; } && have_cmd npm; then
	echo "setup: installing playwright-core and speedscope into build/node"
	mkdir -p build/node
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix build/node \
		playwright-core@1.65.1 speedscope@1.25.0 ||
		echo "setup: cannot install playwright-core and speedscope; the browser tests will be skipped" >&2
fi
