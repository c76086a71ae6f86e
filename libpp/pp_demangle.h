/*
 * C++ symbol names for display: none (as in the binary), normal
 * (libiberty's cplus_demangle with parameters), smart (normal, then the
 * standard library's default template arguments and basic_* spellings
 * shortened: "std::vector<int, std::allocator<int> >" -> "std::vector<int>",
 * "std::__cxx11::basic_string<char, std::char_traits<char>,
 * std::allocator<char> >" -> "std::string"), then OProfile's final rules:
 * "std::" and anonymous namespaces dropped, "vector<double>&").
 */
#ifndef PP_DEMANGLE_H
#define PP_DEMANGLE_H

enum pp_demangle {
	PP_DEMANGLE_NONE,
	PP_DEMANGLE_NORMAL,
	PP_DEMANGLE_SMART,
};

/* "none", "normal", "smart". 0, or -1 for anything else. */
int pp_demangle_parse(char const *text, enum pp_demangle *d);

/* The display form of name (malloc'd; name itself when not C++). */
char *pp_demangle(char const *name, enum pp_demangle d);

/* The smart shortening alone, on an already demangled name (malloc'd). */
char *pp_demangle_shorten(char const *demangled);

/* In place, after the shortening: OProfile's final smart rules, "std::"
 * and anonymous namespaces dropped, "> >" written ">>". */
void pp_demangle_oprofile_rules(char *s);

#endif /* PP_DEMANGLE_H */
