#!/usr/bin/env bash
# consumer.installed: install the build into a prefix under it, check what was installed, build
# the out-of-tree consumers against that prefix (C++ through find_package, C11 through
# pkg-config), run the installed Python module, and check that all three print the hashes the
# installed `rung run` prints.
#   consumer_test.sh BUILD SOURCE_DIR CMAKE CC CXX MAKE_PROGRAM
set -euo pipefail
build=$1; src=$2; cmake=$3; cc=$4; cxx=$5; make_program=$6
prefix=$build/install-test
work=$build/consumer-test
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$prefix" "$work"
mkdir -p "$work/home-cli" "$work/home-cpp" "$work/home-c"

"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
libdir=$(cd "$prefix" && ls -d lib*/ | head -1); libdir=${libdir%/}
for f in include/rung.h include/rung/rung.hpp include/rung/dlpack.h include/rung/export.h bin/rung \
         "$libdir/librung.so" "$libdir/librung.so.1" "$libdir/cmake/rung/rungConfig.cmake" \
         "$libdir/cmake/rung/rungConfigVersion.cmake" "$libdir/cmake/rung/rungTargets.cmake" "$libdir/pkgconfig/rung.pc"; do
  [[ -e $prefix/$f ]] || fail "cmake --install did not write $f"
done
# The soname carries the C ABI's major version; only rung_* and rung:: are exported.
readelf -d "$prefix/$libdir/librung.so.1" | grep -q 'SONAME.*\[librung\.so\.1\]' || fail "librung.so.1 has another soname"
nm -D --defined-only "$prefix/$libdir/librung.so.1" | awk '{print $NF}' | c++filt >"$work/exported.txt"
grep -qx 'rung_get_api' "$work/exported.txt" || fail "rung_get_api is not exported"
grep -qx 'rung_version_string' "$work/exported.txt" || fail "rung_version_string is not exported"
grep -q '^rung::Session::run' "$work/exported.txt" || fail "the C++ API (rung::Session::run) is not exported"
others=$(grep -vE '^(rung_|rung::|typeinfo for rung::|typeinfo name for rung::|vtable for rung::)' "$work/exported.txt" || true)
[[ -z $others ]] || { echo "$others" | head -20; fail "librung.so exports symbols outside rung_* and rung::"; }

# The C++ consumer: a CMake project of its own.
"$cmake" -S "$src/tests/consumer/project" -B "$work/cpp" -G Ninja -DCMAKE_MAKE_PROGRAM="$make_program" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$work/cpp.log" 2>&1 &&
  "$cmake" --build "$work/cpp" >>"$work/cpp.log" 2>&1 || { cat "$work/cpp.log"; fail "the C++ consumer does not build"; }
# The C consumer: exactly the documented command line.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
"$cc" -std=c11 -Wall -Werror "$src/tests/consumer/project/consumer.c" $(pkg-config --cflags --libs rung) -o "$work/c_consumer" \
  || fail "the C consumer does not build with pkg-config's flags"

# Inputs the consumers make themselves: x = 0.5 * arange(24) as 3 x 8, w = (arange(32) - 16) / 8 as 8 x 4.
/usr/bin/python3 "$src/tests/consumer/make_inputs.py" "$work"
RUNG_HOME=$work/home-cli "$prefix/bin/rung" run "$src/examples/center.workflow.json" --arg x="$work/x.npy" --arg w="$work/w.npy" \
  >"$work/cli.txt" 2>&1 || { cat "$work/cli.txt"; fail "the installed rung run failed"; }
awk '/^fingerprint/ {print "fingerprint", $2} /^output/ {n = $3; sub(":", "", n); print n, $NF}' "$work/cli.txt" >"$work/expected.txt"
[[ $(wc -l <"$work/expected.txt") == 3 ]] || { cat "$work/cli.txt"; fail "could not read the CLI's fingerprint and two output hashes"; }

# The Python module, from the prefix alone (its RPATH finds librung.so: no LD_LIBRARY_PATH yet).
pydir=$prefix/lib/python3/dist-packages
[[ -e $pydir/rung/__init__.py ]] && ls "$pydir"/rung/_rung*.so >/dev/null || fail "cmake --install did not write the Python package in $pydir/rung"
mkdir -p "$work/home-py"
(cd "$work" && env -u LD_LIBRARY_PATH PYTHONPATH="$pydir" /usr/bin/python3 "$src/tests/consumer/project/consumer.py" \
  "$src/examples/center.workflow.json" "$work/home-py") >"$work/py.txt" || { cat "$work/py.txt"; fail "the Python consumer failed"; }

export LD_LIBRARY_PATH=$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$work/cpp/cpp_consumer" "$src/examples/center.workflow.json" "$work/home-cpp" >"$work/cpp.txt" || fail "the C++ consumer failed"
"$work/c_consumer" "$src/examples/center.workflow.json" "$work/home-c" >"$work/c.txt" || fail "the C consumer failed"
diff "$work/expected.txt" "$work/cpp.txt" || fail "the C++ consumer's hashes differ from rung run's"
diff "$work/expected.txt" "$work/c.txt" || fail "the C consumer's hashes differ from rung run's"
diff "$work/expected.txt" "$work/py.txt" || fail "the Python consumer's hashes differ from rung run's"
cat "$work/expected.txt"
echo "ok: installed into $prefix; the C++ (find_package), C11 (pkg-config) and Python consumers print rung run's hashes"
