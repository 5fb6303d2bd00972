// shapes.cc: a C++ method inlined into another and a function template,
// for the DWARF test that names C++ frames by their demangled linkage
// names (tests/unit/test_dwinfo.c); make builds it with c++ -O2 -g.
namespace shapes {
struct Circle {
	double r;
	__attribute__((always_inline)) inline double squared(int k) const { return r * r * k; }
	__attribute__((noinline)) double area(int k) const;
};
double Circle::area(int k) const { return squared(k) * 3.14159; }
template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }
}
volatile int sink;
int main(int argc, char **) {
	shapes::Circle c{(double)argc};
	sink = (int)c.area(sink) + shapes::twice<int>(sink);
	return 0;
}
