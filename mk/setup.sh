#!/bin/sh
# mk/setup.sh SET [install]: the one list of what prof needs, in sets, and
# nothing installed that is already there. Each line is a check, then the
# Debian package that satisfies it.
#
#   build  a C compiler and the libraries prof is built with: all `make`
#          needs (libdebuginfod's header only: prof-report loads the
#          library when it first fetches). Missing, it stops with one line
#          that names the packages and the command that installs them.
#   test   what `make check` adds: Criterion, the oracles (llvm, readelf,
#          xmllint, go tool pprof, protoc, headless Chromium with
#          playwright-core and speedscope from npm), the Mach-O
#          cross-tools, libc's debug file, mandoc, strace, perf, ESLint
#          (npm) for the flame graph's script, go, which also builds
#          the Go fixture (tests/e2e/test_go.sh), and nginx and ab, a
#          real server under load (tests/e2e/test_real_stacks.sh), and
#          python3-jsonschema, which validates the --json outputs
#          (tests/e2e/test_json.sh), and debuginfod, the server that
#          tests/e2e/test_debuginfod.sh fetches from. Missing,
#          as a user who is not root, each is named with the command that
#          installs it, and the tests that need it are skipped.
#   bench  what `make bench` adds: perf, GNU time, node.
#
# With install, as root, apt-get installs what a set lacks; make passes it
# for demo (build), check (build, test), bench (build, bench) and deps
# (all). Exits 0 when the set is complete (make then leaves a stamp, and
# later runs skip the set), 3 when what is missing was only named, 1 when
# the build cannot go on.
set -eu
set=${1:?usage: mk/setup.sh build|test|bench [install]}
mode=${2:-check}

need=""
incomplete=0
have_pc()  { pkg-config --exists "$1" 2>/dev/null; }
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_file() { [ -e "$1" ]; }
have_deb() { dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
# An LLVM tool, on PATH or in LLVM's own directory (ld64.lld often is
# only there).
have_llvm() { have_cmd "$1" || [ -x "$(llvm-config --bindir 2>/dev/null)/$1" ]; }

check() { # check KIND WHAT PACKAGE
	if ! "have_$1" "$2"; then need="$need $3"; fi
}

# macOS: Homebrew's packages for the build (the tests run on Linux).
if [ "$(uname -s)" = Darwin ]; then
	case $set in
	build)
		check cmd  pkg-config           pkg-config
		check pc   libzstd              zstd
		check pc   libdeflate           libdeflate
		check pc   libxxhash            xxhash
		check pc   capstone             capstone
		[ -d "$(brew --prefix binutils 2>/dev/null)/lib" ] || need="$need binutils"
		;;
	test)
		check pc   criterion            criterion
		check cmd  mandoc               mandoc
		;;
	esac
	if [ -n "$need" ] && [ "$mode" = install ]; then
		echo "setup: installing with Homebrew:$need"
		brew install $need
	elif [ -n "$need" ]; then
		echo "setup: missing Homebrew packages:$need; run 'brew install$need'" >&2
		[ "$set" != build ] || exit 1
		exit 3
	fi
	exit 0
fi

case $set in
build)
	check cmd  cc                       gcc
	check file /usr/include/stdio.h     libc6-dev
	check cmd  pkg-config               pkg-config
	check pc   libzstd                  libzstd-dev
	check pc   libdeflate               libdeflate-dev
	check pc   libxxhash                libxxhash-dev
	check pc   zlib                     zlib1g-dev
	check file /usr/include/libiberty/demangle.h libiberty-dev
	check pc   libdebuginfod            libdebuginfod-dev
	check pc   capstone                 libcapstone-dev
	;;
test)
	check pc   criterion                libcriterion-dev
	check cmd  c++                      g++
	check cmd  mandoc                   mandoc
	check cmd  man                      man-db
	check cmd  xmllint                  libxml2-utils
	check deb  libc6-dbg                libc6-dbg
	check cmd  clang                    clang
	check llvm ld64.lld                 lld
	check llvm llvm-symbolizer          llvm
	check deb  libclang-rt-14-dev       libclang-rt-14-dev
	check cmd  chromium                 chromium
	check cmd  node                     nodejs
	check cmd  npm                      npm
	check cmd  go                       golang-go
	check cmd  protoc                   protobuf-compiler
	check cmd  strace                   strace
	check cmd  perf                     linux-perf
	check file /usr/bin/time            time
	check file /usr/sbin/nginx          nginx-light
	check cmd  ab                       apache2-utils
	check deb  python3-jsonschema       python3-jsonschema
	check cmd  debuginfod               debuginfod
	;;
bench)
	check cmd  perf                     linux-perf
	check file /usr/bin/time            time
	check cmd  node                     nodejs
	;;
*)
	echo "setup: no set '$set' (build, test or bench)" >&2
	exit 2
	;;
esac

if [ -n "$need" ]; then
	if [ "$mode" = install ] && [ "$(id -u)" = 0 ]; then
		echo "setup: installing$need"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
	elif [ "$set" = build ]; then
		echo "setup: the build needs the Debian packages$need: run 'sudo apt-get install$need' (or 'make demo' as root)" >&2
		exit 1
	else
		echo "setup: not installed, so their tests are skipped:$need (run 'sudo apt-get install$need', or 'make deps' as root)" >&2
		incomplete=1
	fi
fi

# playwright-core drives Chromium in the browser tests, speedscope is the
# viewer that the speedscope export is opened in, and ESLint lints the
# flame graph's script. They come from npm into the build directory (never
# a global install), once, in one install (npm would drop a package that a
# later --no-save install does not name).
npm_have() { [ -f "build/node/node_modules/$1/package.json" ]; }
if [ "$set" = test ] && { ! npm_have playwright-core || ! npm_have speedscope || ! npm_have eslint; } &&
   have_cmd npm; then
	echo "setup: installing playwright-core, speedscope and eslint into build/node"
	mkdir -p build/node
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix build/node \
		playwright-core@1.65.1 speedscope@1.25.0 eslint@9.39.5 || {
		echo "setup: cannot install playwright-core, speedscope and eslint; their tests will be skipped" >&2
		incomplete=1
	}
fi
# 3: incomplete, what is missing was said, and the build goes on.
[ $incomplete = 0 ] || exit 3
exit 0
