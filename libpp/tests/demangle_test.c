/*
 * Demangling: none keeps the name, normal is libiberty's, smart shortens
 * the standard library's default template arguments and basic_ names,
 * then drops std:: and anonymous namespaces as OProfile's rules do;
 * suffixes like "@plt" survive; non-C++ names pass through.
 */
#include "config.h"

#include <stdlib.h>

#include "pp_demangle.h"
#include "check.h"

static void test_demangle__styles(void)
{
	static struct { char const *in, *normal, *smart; } const cases[] = {
		{ "main", "main", "main" },
		{ "_Z3fooi", "foo(int)", "foo(int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backEOi@plt",
		  "std::vector<int, std::allocator<int> >::push_back(int&&)@plt",
		  "vector<int>::push_back(int&&)@plt" },
		{ "_ZlsRSoRKSt6vectorIiSaIiEE",
		  "operator<<(std::ostream&, std::vector<int, std::allocator<int> > const&)",
		  "operator<<(ostream&, vector<int> const&)" },
		{ "_ZNKSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEE4sizeEv",
		  "std::__cxx11::basic_string<wchar_t, std::char_traits<wchar_t>, std::allocator<wchar_t> >::size() const",
		  "wstring::size() const" },
		{ "_Z1fRKSt3mapISsSt6vectorIiSaIiEESt4lessISsESaISt4pairIKSsS2_EEE",
		  "f(std::map<std::string, std::vector<int, std::allocator<int> >, std::less<std::string>, std::allocator<std::pair<std::string const, std::vector<int, std::allocator<int> > > > > const&)",
		  "f(map<string, vector<int>> const&)" },
		{ "_Z1gRSt6vectorIdSaIdEE", "g(std::vector<double, std::allocator<double> >&)",
		  "g(vector<double>&)" },
		{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()", "foo()" },
		{ "memcpy@@GLIBC_2.14", "memcpy@@GLIBC_2.14", "memcpy@@GLIBC_2.14" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *none = pp_demangle(cases[i].in, PP_DEMANGLE_NONE);
		char *normal = pp_demangle(cases[i].in, PP_DEMANGLE_NORMAL);
		char *smart = pp_demangle(cases[i].in, PP_DEMANGLE_SMART);

		check_str(none, cases[i].in, "none keeps the name");
		check_str(normal, cases[i].normal, "normal demangling");
		check_str(smart, cases[i].smart, "smart demangling");
		free(none);
		free(normal);
		free(smart);
	}
}

static void test_demangle__shorten(void)
{
	static struct { char const *in, *out; } const cases[] = {
		{ "std::unique_ptr<int, std::default_delete<int> >", "std::unique_ptr<int>" },
		{ "std::unordered_map<int, long, std::hash<int>, std::equal_to<int>, std::allocator<std::pair<int const, long> > >",
		  "std::unordered_map<int, long>" },
		{ "std::basic_ostream<char, std::char_traits<char> >&", "std::ostream&" },
		{ "bool operator< <int>(a<int> const&, a<int> const&)",
		  "bool operator< <int>(a<int> const&, a<int> const&)" },
		{ "operator>>(std::istream&, int&)", "operator>>(std::istream&, int&)" },
		{ "std::function<void (int, std::allocator<int>)>",
		  "std::function<void (int, std::allocator<int>)>" },
		{ "unbalanced<int", "unbalanced<int" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = pp_demangle_shorten(cases[i].in);

		check_str(s, cases[i].out, "%s", cases[i].in);
		free(s);
	}
}

/* OProfile's final rules alone: std:: only where a word starts */
static void test_demangle__oprofile_rules(void)
{
	char s[] = "mystd::a(std::b<std::c<int> >, (anonymous namespace)::d)";

	pp_demangle_oprofile_rules(s);
	check_str(s, "mystd::a(b<c<int>>, d)", "std::, anonymous namespace, > >");
}

int main(void)
{
	enum pp_demangle d;

	test_demangle__styles();
	test_demangle__shorten();
	test_demangle__oprofile_rules();
	check(!pp_demangle_parse("smart", &d) && d == PP_DEMANGLE_SMART &&
	      pp_demangle_parse("fancy", &d) == -1, "-D values: smart yes, fancy no");
	return check_done();
}
