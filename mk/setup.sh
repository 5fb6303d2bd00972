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

check cmd  pkg-config               pkg-config
check pc   libzstd                  libzstd-dev
check file /usr/include/libdwarf/libdwarf.h libdwarf-dev
check pc   libxxhash                libxxhash-dev
check pc   zlib                     zlib1g-dev
check pc   criterion                libcriterion-dev
check file /usr/include/libiberty/demangle.h libiberty-dev
check cmd  mandoc                   mandoc
check cmd  xmllint                  libxml2-utils
check deb  libc6-dbg                libc6-dbg
check cmd  chromium                 chromium
check cmd  npm                      npm
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

# playwright-core drives Chromium in the flame graph's browser test. It comes
# from npm into the build directory (never a global install), once.
pw=build/node/node_modules/playwright-core/package.json
if ! [ -f "$pw" ] && have_cmd npm; then
	echo "setup: installing playwright-core into build/node"
	mkdir -p build/node
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix build/node playwright-core@1.65.1 ||
		echo "setup: cannot install playwright-core; the browser test will be skipped" >&2
fi
