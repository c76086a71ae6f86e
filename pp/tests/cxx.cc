// A C++ test binary for demangling: functions whose names carry standard
// library templates, so -D smart has something to shorten.
#include <map>
#include <string>
#include <vector>

namespace ns {

__attribute__((noinline)) std::vector<int> make(std::string const &s)
{
	std::vector<int> v;
	for (char c : s)
		v.push_back(c * 3);
	return v;
}

__attribute__((noinline)) int count(std::map<std::string, std::vector<int> > const &m)
{
	int n = 0;
	for (auto const &kv : m)
		n += (int)kv.second.size();
	return n;
}

}

int main(int argc, char **argv)
{
	std::map<std::string, std::vector<int> > m;
	m[argv[0]] = ns::make(argc > 1 ? argv[1] : "abc");
	return ns::count(m) == 42;
}
