// names.cc: C++ functions of every shape a name can take, for the test
// of C++ frame names against llvm-symbolizer and c++filt
// (tests/e2e/test_cxx_names.sh): function templates in a namespace,
// std::sort's instances, methods and operators of classes, a class
// template's method, functions inlined into others, a lambda, a function
// in an anonymous namespace, and functions whose DWARF has no linkage
// name (main, an extern "C" function in a namespace). mk/dwarf.mk builds
// it with GCC's and clang's full DWARF, and clang's line tables only,
// whose DWARF names no namespace or class at all.
#include <algorithm>
#include <cstdlib>
#include <vector>

namespace geo {
struct Vec {
	double x, y;
	__attribute__((noinline)) Vec operator+(const Vec &o) const { return {x + o.x, y * o.y + 1}; }
	__attribute__((always_inline)) inline double dot(const Vec &o) const { return x * o.x + y * o.y; }
	__attribute__((noinline)) double norm2() const;
};
double Vec::norm2() const { return dot(*this); }

template <typename T> __attribute__((noinline)) T scale(T v, int k)
{
	for (int i = 0; i < k; i++)
		v = v + v;
	return v;
}

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T twice() const { return v + v; }
};

namespace detail {
extern "C" __attribute__((noinline)) long plain_c_spin(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}
}
}

namespace {
__attribute__((noinline)) int hidden(int x) { return x * 7 + 1; }
}

volatile long sink;

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200;
	std::vector<int> v(20000);
	auto fill = [&](int seed) __attribute__((noinline)) {
		for (size_t i = 0; i < v.size(); i++)
			v[i] = (int)((i * 2654435761u) ^ seed);
	};

	for (long r = 0; r < rounds; r++) {
		fill((int)r);
		std::sort(v.begin(), v.end());
		geo::Vec a{1, 2};
		for (int i = 0; i < 2000; i++)
			a = a + geo::Vec{(double)i, 0.5};
		geo::Box<long> b{r};
		sink = (long)a.norm2() + (long)geo::scale<double>(1.5, 100) +
		       geo::detail::plain_c_spin(20000) + b.twice() + hidden((int)r);
	}
	return 0;
}
