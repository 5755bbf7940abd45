/*
 * Tests of the include rule (src/runtime/srccheck.c). Each case runs with
 * the source copied to the very end of a page before an unmapped one, so a
 * read past len faults. A temporary include directory stands in for the
 * toolkit's: regular headers, a link inside, links leading out and a
 * dangling one, and a second directory searched after it. The examples and
 * the adversarial corpus are checked against the real toolkit's include
 * directories where they exist.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "krl/srccheck.h"

/* The group's temporary tree:
 *   root/inc/cuda_fp16.h, root/inc/cuda/std/cstdint   regular headers
 *   root/inc/alias.h -> cuda_fp16.h                   a link inside
 *   root/inc/evil.h -> ../outside/secret.h            a link leading out
 *   root/inc/abs.h -> <root>/outside/secret.h         the same, absolute
 *   root/inc/dangling.h -> nowhere.h                  a dangling link
 *   root/inc/cuda                                     a directory
 *   root/inc2/evil.h, root/inc2/only2.h               the second directory
 *   root/outside/secret.h                             not a toolkit header */
typedef struct fixture {
	char root[64];
	char inc[96], inc2[96];
	const char *dirs[2];
} fixture;

static const char k_name[] = "cand.cu";

/* ==== Fixtures ==== */

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int put(const char *root, const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int group_setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	if (!fx)
		return -1;
	snprintf(fx->root, sizeof fx->root, "/tmp/krl-test-srccheck-XXXXXX");
	if (!mkdtemp(fx->root))
		return -1;
	snprintf(fx->inc, sizeof fx->inc, "%s/inc", fx->root);
	snprintf(fx->inc2, sizeof fx->inc2, "%s/inc2", fx->root);
	char p[256], abs_target[256];
	const char *mk[] = { "inc", "inc/cuda", "inc/cuda/std", "inc2",
	                     "outside" };
	for (size_t i = 0; i < sizeof mk / sizeof *mk; i++) {
		snprintf(p, sizeof p, "%s/%s", fx->root, mk[i]);
		if (mkdir(p, 0755) != 0)
			return -1;
	}
	snprintf(abs_target, sizeof abs_target, "%s/outside/secret.h",
	         fx->root);
	int r = put(fx->root, "inc/cuda_fp16.h", "/* fp16 */\n") |
	        put(fx->root, "inc/cuda/std/cstdint", "/* cstdint */\n") |
	        put(fx->root, "inc2/evil.h", "/* not this one */\n") |
	        put(fx->root, "inc2/only2.h", "/* only2 */\n") |
	        put(fx->root, "outside/secret.h", "SECRET\n");
	snprintf(p, sizeof p, "%s/alias.h", fx->inc);
	r |= symlink("cuda_fp16.h", p);
	snprintf(p, sizeof p, "%s/evil.h", fx->inc);
	r |= symlink("../outside/secret.h", p);
	snprintf(p, sizeof p, "%s/abs.h", fx->inc);
	r |= symlink(abs_target, p);
	snprintf(p, sizeof p, "%s/dangling.h", fx->inc);
	r |= symlink("nowhere.h", p);
	fx->dirs[0] = fx->inc;
	fx->dirs[1] = fx->inc2;
	*state = fx;
	return r ? -1 : 0;
}

static int group_teardown(void **state)
{
	fixture *fx = *state;
	int r = nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return r;
}

/* ==== Helpers ==== */

/* Checks src[0..n) at the end of a page; returns the result and fills d. */
static krl_err check_n(const char *src, size_t n, const char *const *dirs,
                       int ndirs, krl_diag *d)
{
	void *base;
	size_t size;
	char *copy = krl_test_at_page_end(src, n, &base, &size);
	memset(d, 0, sizeof *d);
	krl_err r = krl_srccheck(copy, n, k_name, dirs, ndirs, d);
	munmap(base, size);
	return r;
}

/* Asserts that src passes (line: the caller's, for the report). */
static void ok_at(const fixture *fx, const char *src, size_t n, int line)
{
	krl_diag d;
	krl_err r = check_n(src, n, fx->dirs, 2, &d);
	if (r != KRL_OK) {
		char buf[1400];
		print_error("line %d: expected OK for [%s], got %s\n", line, src,
		            krl_diag_format(&d, buf, sizeof buf));
		fail();
	}
}

/* Asserts that src is refused at eline:ecol with a message holding
 * phrase, and that the message is printable ASCII. */
static void bad_at(const fixture *fx, const char *src, size_t n, int eline,
                   int ecol, const char *phrase, int line)
{
	krl_diag d;
	char buf[1400];
	krl_err r = check_n(src, n, fx->dirs, 2, &d);
	if (r != KRL_ECOMPILE || d.pos.file != k_name || d.pos.line != eline ||
	    d.pos.col != ecol || !strstr(d.msg, phrase)) {
		print_error("line %d: for [%s] expected KRL_ECOMPILE at %d:%d "
		            "with \"%s\", got %s: %s\n", line, src, eline, ecol,
		            phrase, krl_strerror(r),
		            krl_diag_format(&d, buf, sizeof buf));
		fail();
	}
	for (const char *m = d.msg; *m; m++)
		assert_true(*m >= 0x20 && *m < 0x7f);
}

#define OK(src) ok_at(fx, (src), strlen(src), __LINE__)
#define OKN(src) ok_at(fx, (src), sizeof(src) - 1, __LINE__)
#define BAD(src, l, c, phrase) \
	bad_at(fx, (src), strlen(src), (l), (c), (phrase), __LINE__)
#define BADN(src, l, c, phrase) \
	bad_at(fx, (src), sizeof(src) - 1, (l), (c), (phrase), __LINE__)

/* ==== #include ==== */

static void test_include_allowed(void **state)
{
	const fixture *fx = *state;
	OK("#include <cuda_fp16.h>\n");
	OK("#  include <cuda/std/cstdint>\n");
	OK("# /*c*/ include <cuda_fp16.h>\n");
	OK("#include<cuda_fp16.h>");
	OK("\t#include <cuda_fp16.h> // half\n");
	OK("#include <cuda_fp16.h> /* half */ /* and\n more */\n");
	OK("#include <cuda_\\\nfp16.h>\n");
	OK("#include <alias.h>\n");    /* a link that stays inside */
	OK("#include <only2.h>\n");    /* found in the second directory */
	OK("#include <cuda_fp16.h>\n#include <cuda_fp16.h>\n"); /* cached */
	OK("");
}

static void test_include_refused(void **state)
{
	const fixture *fx = *state;
	krl_diag d;
	const char *src = "#include \"x.h\"\n";
	assert_int_equal(check_n(src, strlen(src), fx->dirs, 2, &d),
	                 KRL_ECOMPILE);
	assert_string_equal(d.msg, "#include \"x.h\": only <name> includes of "
	                    "CUDA toolkit headers are allowed (a quoted "
	                    "include searches host directories)");
	assert_int_equal(d.pos.line, 1);
	assert_int_equal(d.pos.col, 1);

	BAD("int a;\n#include </etc/passwd>\n", 2, 1, "absolute path");
	BAD("#include <../etc/passwd>\n", 1, 1, "starting with '.'");
	BAD("#include <cuda/../../x>\n", 1, 1, "starting with '.'");
	BAD("#include <./cuda_fp16.h>\n", 1, 1, "starting with '.'");
	BAD("#include <missing.h>\n", 1, 1,
	    "not a header of the CUDA toolkit's include directories");
	BAD("#include <cuda_fp16.h> junk\n", 1, 1,
	    "only blanks and comments may follow the header name");
	BAD("#include <cuda_fp16.h> /*\n*/ junk\n", 1, 1,
	    "only blanks and comments may follow");
	BAD("#define H <cuda_fp16.h>\n#include H\n", 2, 1,
	    "macro-expanded include names are not allowed");
	BAD("#include __FILE__\n", 1, 1, "macro-expanded include names");
	BAD("#inc\\\nlude \"x.h\"\n", 1, 1, "only <name> includes");
	BAD("/* a */ #include \"x\"\n", 1, 9, "only <name> includes");
	BAD("/* a\n b */ #include \"x\"\n", 2, 7, "only <name> includes");
	BAD("%:include \"x\"\n", 1, 1, "only <name> includes");
	BAD("#include u8\"x.h\"\n", 1, 1, "only <name> includes");
	BAD("#include R\"(x.h)\"\n", 1, 1, "only <name> includes");
	BAD("  #include\n", 1, 3, "no header name");
	BAD("#include <cuda_fp16.h\nint a;\n", 1, 1, "no closing '>'");
	BAD("#include <>\n", 1, 1, "empty header name");
	BAD("#include <cuda//std/cstdint>\n", 1, 1, "empty path segment");
	BAD("#include <cuda/>\n", 1, 1, "empty path segment");
	BAD("#include <a b.h>\n", 1, 1, "the character ' ' is not allowed");
	BAD("#include <a\\b.h>\n", 1, 1, "the character '\\' is not allowed");
	BAD("#include <a/*b*/.h>\n", 1, 1, "the character '*'");
	BAD("#include <caf\xc3\xa9.h>\n", 1, 1, "the character '?'");
	/* A link leading out is refused even though the second directory
	 * holds a regular evil.h: the compiler would take the first. */
	BAD("#include <evil.h>\n", 1, 1, "not a regular file inside");
	BAD("#include <abs.h>\n", 1, 1, "not a regular file inside");
	BAD("#include <cuda>\n", 1, 1, "not a regular file inside");
	BAD("#include <dangling.h>\n", 1, 1, "not a header of the CUDA");
	BAD("#include <cuda_fp16.h>/x\n", 1, 1, "only blanks and comments");

	char longname[400] = "#include <";
	memset(longname + 10, 'a', 300);
	strcpy(longname + 310, ">\n");
	BAD(longname, 1, 1, "at most 255 bytes");

	/* Without directories nothing may be included. */
	src = "#include <cuda_fp16.h>\n";
	assert_int_equal(check_n(src, strlen(src), NULL, 0, &d), KRL_ECOMPILE);
	assert_non_null(strstr(d.msg, "none are configured"));
	assert_int_equal(check_n(src, strlen(src), fx->dirs, 0, &d),
	                 KRL_ECOMPILE);
}

/* ==== Other directives ==== */

static void test_directives(void **state)
{
	const fixture *fx = *state;
	OK("#\n# // nothing\n#\n");
	OK("#define X 1\n#undef X\n#if 0\n#elif 1\n#else\n#endif\n"
	   "#ifdef X\n#endif\n#ifndef X\n#elifdef Y\n#elifndef Z\n#endif\n"
	   "#error message\n#warning \"w\"\n");
	OK("#define CAT(a,b) a##b\n#define STR(x) #x\n#define S2(x) %:x\n"
	   "#define P2(a,b) a%:%:b\n#define F(a,b) x = a#b\n");
	OK("#define STR(x) \\\n\t#x\n");  /* a spliced line is one line */
	OK("int f(int a, int b, int c) { return a < b > c; }\n");
	OK("#if defined(X) && X > 2 && 'a' == 97\n#endif\n");

	BAD("#include_next <cuda_fp16.h>\n", 1, 1, "only the directives");
	BAD("#import \"x\"\n", 1, 1, "only the directives define, undef");
	BAD("#embed \"/etc/passwd\"\n", 1, 1, "only the directives");
	BAD("#ident \"x\"\n", 1, 1, "only the directives");
	BAD("#sccs \"x\"\n", 1, 1, "only the directives");
	BAD("#assert machine(x)\n", 1, 1, "only the directives");
	BAD("#unassert machine\n", 1, 1, "only the directives");
	BAD("  # frobnicate\n", 1, 3, "only the directives");
	BAD("#if 0\n#import <x>\n#endif\n", 2, 1, "only the directives");
	BAD("# 1 \"/etc/passwd\"\n", 1, 1, "a directive name must follow #");
	BAD("#\"x\"\n", 1, 1, "a directive name must follow #");
	BAD("%:#line 5\n", 1, 1, "a directive name must follow #");
	BAD("#%:include \"x\"\n", 1, 1, "a directive name must follow #");
	OK("##include \"x\"\n%:%:include \"x\"\n"); /* ## starts no directive */
	BAD("#define unroll 4\n", 1, 1, "may not be named like an allowed "
	    "pragma");
	BAD("#define nv_diag_x(a) a\n", 1, 1, "may not be named like");
	/* A comment holding a line end counts as a line start (GCC and the
	 * standard would say otherwise here; refusing is the safe side). */
	BAD("int a; /*\n*/ #include \"x\"\n", 2, 4, "only <name> includes");
	BAD("#define X 1 /*\n*/ #import\n", 2, 4, "only the directives");
	/* #error is lexed like any line: an apostrophe starts a literal. */
	BAD("#error don't\n", 1, 11, "unterminated character literal");
	OK("#error \"don't\"\n");
}

static void test_line(void **state)
{
	const fixture *fx = *state;
	OK("#line 10\n");
	OK("#line 10 // c\nint a;\n");
	BAD("#line 10 \"/etc/passwd\"\n", 1, 1, "only #line <decimal number>");
	BAD("#line X\n", 1, 1, "only #line <decimal number>");
	BAD("#line 0x10\n", 1, 1, "only #line <decimal number>");
	BAD("#line 1'0\n", 1, 1, "only #line <decimal number>");
	BAD("#line\n", 1, 1, "needs a decimal line number");
}

/* ==== Pragmas ==== */

static void test_pragma(void **state)
{
	const fixture *fx = *state;
	OK("#pragma unroll\n");
	OK("#pragma unroll 4\n");
	OK("#pragma unroll (N * 2)\n");
	OK("#pragma nounroll\n#pragma once\n#pragma pack(push, 1)\n"
	   "#pragma push_macro(\"X\")\n#pragma pop_macro(\"X\")\n"
	   "#pragma message(\"hi\")\n#pragma nv_diag_suppress 177\n"
	   "#pragma nv_diagnostic push\n#pragma diag_suppress 177\n");
	OK("#pragma\n#pragma // nothing\n");
	BAD("#pragma GCC dependency \"/etc/passwd\"\n", 1, 1,
	    "only the pragmas unroll");
	BAD("#pragma include_alias(\"a.h\", \"/etc/passwd\")\n", 1, 1,
	    "only the pragmas");
	BAD("#pragma STDC FP_CONTRACT ON\n", 1, 1, "only the pragmas");
	BAD("#pragma omp parallel\n", 1, 1, "only the pragmas");
	BAD("#pragma \"unroll\"\n", 1, 1, "only the pragmas");
	BAD("x;\n  #  pragma  diag\n", 2, 3, "only the pragmas");
}

static void test_pragma_operator(void **state)
{
	const fixture *fx = *state;
	OK("_Pragma(\"unroll\")\n");
	OK("_Pragma ( \"unroll 4\" ) for (;;) {}\n");
	OK("_Pragma(L\"once\")\n");
	OK("_Pragma(/*c*/\"nv_diag_suppress 177\"/*c*/)\n");
	OK("_Pragma(\"\")\n_Pragma(\"  \")\n");
	OK("_Pragma(\"message(\\\"hi\\\")\")\n");
	OK("#define UNROLL _Pragma(\"unroll\")\n");
	OK("_Pragma(\n\"unroll\"\n)\n");   /* outside a directive */
	BAD("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n", 1, 1,
	    "only the pragmas unroll");
	BAD("int a;\n  _Pragma(\"STDC FENV_ACCESS ON\")\n", 2, 3,
	    "only the pragmas");
	BAD("#define P(x) _Pragma(#x)\n", 1, 14,
	    "_Pragma must be followed by ( \"pragma\" )");
	BAD("_Pragma(X)\n", 1, 1, "_Pragma must be followed by");
	BAD("_Pragma(u8\"unroll\")\n", 1, 1, "_Pragma must be followed by");
	BAD("_Pragma(R\"(unroll)\")\n", 1, 1, "_Pragma must be followed by");
	BAD("_Pragma(\"unroll\" \"x\")\n", 1, 1, "_Pragma must be followed");
	BAD("x _Pragma", 1, 3, "_Pragma must be followed");
	BAD("#define P _Pragma\n", 1, 11, "on the same line of a directive");
	BAD("#define P _Pragma(\n\"unroll\")\n", 1, 11, "on the same line");
	BAD("_Pragma(\n#define X\n\"unroll\")\n", 1, 1,
	    "_Pragma must be followed");
	BAD("_Pragma(\"\\x47CC dependency\")\n", 1, 1, "only the pragmas");
	BAD("_Pragma(\"unroll$\")\n", 1, 1, "only the pragmas");
	BAD("_Pragma(\"message(__has_include(<x>))\")\n", 1, 1,
	    "the pragma names __has_include");
	BAD("_Pragma(\"unroll _CCCL_PRAGMA(x)\")\n", 1, 1,
	    "the pragma names _CCCL_PRAGMA");
	BAD("a$_Pragma(\"GCC x\")\n", 1, 3, "_Pragma must stand alone");
}

/* ==== Identifiers that reach files ==== */

static void test_forbidden_identifiers(void **state)
{
	const fixture *fx = *state;
	OK("const char *s = \"__has_include __pragma\"; // __has_include\n");
	OK("int has_inc, _has_includ, x__has_inc, __pragm_, prag_ma;\n");
	BAD("#if __has_include(<x>)\n#endif\n", 1, 5,
	    "__has_include is not allowed: it probes the host file system");
	BAD("#define H __has_include_next\n", 1, 11, "probes the host file");
	BAD("#if __has_include__(\"x\")\n#endif\n", 1, 5, "probes the host");
	BAD("#if __has_embed(\"x\")\n#endif\n", 1, 5, "probes the host");
	BAD("__pragma(once)\n", 1, 1, "__pragma is not allowed");
	BAD("__has_\\\ninclude\n", 1, 1, "__has_include is not allowed");
	BAD("int a$__has_include;\n", 1, 7, "a name holding "
	    "__has_include is not allowed");
	BAD("x = \xc2\xa0__has_include;\n", 1, 7, "a name holding");
	/* Token pasting could build the names from a prefix. */
	BAD("#define C(a,b) a##b\nC(_Prag, ma)(\"GCC dependency x\")\n", 2, 3,
	    "_Prag is not allowed: it begins _Pragma, which ## could complete");
	BAD("#define H(a,b) a##b\n#if H(__has_, include)(\"x\")\n#endif\n", 2,
	    7, "it begins __has_include");
	/* __pragma is MSVC's alone; __p is a common parameter name. */
	OK("#define P(a) a##ragma_x\nint f(int *__p, int __pr);\n");
	BAD("#define E(a) a##mbed\n#if E(__has_e)(\"x\")\n#endif\n", 2, 7,
	    "begins __has_embed");
	BAD("int _ = 0;\n", 1, 5, "it begins _Pragma");
	/* A compiler may end a number at a non-ASCII byte too. */
	BAD("x = 1'0\xa0_Pragma(\"GCC dependency x\");\n", 1, 9,
	    "a name holding _Pragma is not allowed");
	BAD("x = 0x'R\xa0__has_include(\"q.h\");\n", 1, 10,
	    "a name holding __has_include");
	/* The toolkit's own wrappers (CCCL) of __has_include and _Pragma. */
	BAD("#include <cuda_fp16.h>\n#if _CCCL_HAS_INCLUDE(\"/etc/passwd\")\n"
	    "#endif\n", 2, 5, "wrap _Pragma and __has_include");
	BAD("_CCCL_PRAGMA(GCC dependency \"/etc/passwd\")\n", 1, 1,
	    "a name holding \"pragma\", \"has_include\" or \"has_embed\"");
	BAD("#define U _CCCL_PRAGMA_UNROLL(4)\n", 1, 11, "a name holding");
	BAD("int pragma_count;\n", 1, 5, "a name holding");
	BAD("#define pragma 1\n", 1, 9, "a name holding");
	BAD("x = \"a\"_Has_Embed;\n", 1, 8, "a name holding");
	BAD("int a$_Prag;\n", 1, 7, "a name holding _Prag");
}

/* ==== Comments, literals and numbers ==== */

static void test_lexing(void **state)
{
	const fixture *fx = *state;
	/* Each of these would hide the #include on line 2 if misread. */
	BAD("x = 1'000; /* c */\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("char c = '\"';\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("const char *s = \"/*\";\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("const char *s = \"\\\"/*\";\n#include \"x\"\n", 2, 1,
	    "only <name>");
	BAD("x = R\"(/*)\";\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("x = FOOR\"x(\";\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("x = u8R\"d(a)d\" + '\\'';\n#include \"x\"\n", 2, 1, "only <name>");
	BAD("x = 0x1p-3 + 1.5e+3f + 0b1010'1010 + 1'000'000;\n"
	    "#include \"x\"\n", 2, 1, "only <name>");
	/* ... and these hide it from the compiler too. */
	OK("const char *s = R\"x(\n#include \"x\"\n)x\";\n");
	OK("const char *s = u8R\"(\n#include \"x\"\n)\", *t = LR\"(\n)\", "
	   "*u = uR\"(\n)\", *v = UR\"(\n)\";\n");
	OK("// c \\\n#include \"x\"\n");
	OK("/*\n#include \"x\"\n*/\n");
	OK("#if 0\n/* #include \"x\" */\n#endif\n");
	OK("const char *s = \"ab\\\ncd\", c = '\\'', e = '\\\\';\n");
	OK("auto d = 1.0_km + \"abc\"_s + 1e5 + .5f + 07;\n");

	BAD("int a; /* x", 1, 8, "unterminated comment");
	BAD("s = \"abc\n\";\n", 1, 5, "unterminated string literal \"abc");
	BAD("s = L\"abc\\\\\n", 1, 5, "unterminated string literal");
	BAD("c = 'a;\n", 1, 5, "unterminated character literal");
	BAD("s = \"abc\\", 1, 5, "unterminated string literal");
	BAD("s = R\"x(\n#include \"x\"\n", 1, 5, "unterminated raw string");
	BAD("s = R\"x\n(a)x\"", 1, 5, "invalid raw string delimiter");
	BAD("s = R\"a b(x)a b\";", 1, 5, "invalid raw string delimiter");
	BAD("s = R\"0123456789abcdefg(x)0123456789abcdefg\";", 1, 5,
	    "invalid raw string delimiter");
	BAD("s = R\"abc", 1, 5, "no '(' after its delimiter");
	BAD("x = 1'+';\n", 1, 6, "a digit separator ' must be followed");
	BAD("x = 1'a';\n", 1, 8, "a digit separator");
	BAD("x = a$R\"(\n#include \"x\"\n)\";\n", 1, 5,
	    "'$' or a non-ASCII byte in a name just before a quote");
	BAD("x = \xc3\xa9R\"(\n)\";\n", 1, 5, "just before a quote");
	BAD("\\u0041 = 1;\n", 1, 1, "universal character name");
	BAD("a\\u0041 = 1;\n", 1, 2, "universal character name");
	BAD("x = 1\\u0041;\n", 1, 6, "universal character name");
	OK("const char *s = \"\\u0041\"; /* \\u0041 */\n");
	/* A name right after a literal is its ud-suffix (C++11), so R there
	 * does not start a raw string. */
	OK("auto s = \"abc\"_s + u8\"x\"_u + 'c'_c + R\"(x)\"_r + L\"\"R;\n");
	BAD("x = '1'R\"x(\n#include \"x\"\n)x\";\n", 1, 9,
	    "unterminated string literal \"x(");
	BAD("x = u8\"a\"R\"(\n#include \"x\"\n)\";\n", 1, 11,
	    "unterminated string literal");
	BAD("x = \"a\"\xc3\xa9R\"(\n)\";\n", 1, 8, "just before a quote");
	/* GCC ends a raw string at the end of a directive's line. */
	BAD("#define S R\"x(\n#include \"x\"\n)x\"\n", 1, 11,
	    "a raw string literal in a directive must end on its line");
	BAD("#error R\"(\n#if __has_include(\"x\")\n)\"\n", 1, 8,
	    "must end on its line");
	OK("#define S R\"x(a)x\"\n");
}

/* ==== Characters: phase 1 ==== */

static void test_characters(void **state)
{
	const fixture *fx = *state;
	OK("#include <cuda_fp16.h>\r\nint a;\r\n");
	OK("#define X 1 \\\r\n + 2\r\n");
	OK("\f\v int a;\n");
	BADN("int a;\0int b;\n", 1, 7, "a NUL byte");
	BADN("/* \0 */\n", 1, 4, "a NUL byte");
	BAD("int a;\rint b;\n", 1, 7, "a carriage return not followed by");
	BAD("int a;\r\n#include \"x\"\r\n", 2, 1, "only <name>");
	BAD("#define X 1 \\ \n+ 2\n", 1, 13, "a backslash followed by blanks");
	BAD("// c \\\t\r\n", 1, 6, "a backslash followed by blanks");
	BAD("int a; \x1b[0m\n", 1, 8, "the control character 0x1b");
	BAD("?\?=include <cuda_fp16.h>\n", 1, 1, "the trigraph ?\?=");
	BAD("s = \"?\?/\";\n", 1, 6, "the trigraph ?\?/");
	BAD("x = R\"(?\?=)\";\n", 1, 8, "the trigraph");
	BAD("a ?\?( 1 ?\?)\n", 1, 3, "the trigraph ?\?(");
	BAD("#include <a?\?-b>\n", 1, 12, "the trigraph");
	BAD("// is it?\?/\nint a;\n", 1, 9, "the trigraph ?\?/ in a comment");
	BAD("/* *?\?/\n/ #include \"x\" */\n", 1, 5, "in a comment");
	OK("/* what?? ?\?= ?\?! */ int a = b ? c : d; x ?: y; s = \"??\";\n");
	OK("?\\\n?=\n"); /* a splice breaks a trigraph (phase 1 first) */
	BAD("\t#include \"x\"\n", 1, 2, "only <name>");
	/* A byte-order mark or a no-break space may be blank to a compiler. */
	BAD("\xef\xbb\xbf#include \"x\"\n", 1, 4, "only <name>");
	BAD("\xc2\xa0#include \"x\"\n", 1, 3, "only <name>");
	OK("\xef\xbb\xbf#include <cuda_fp16.h>\n");
	BAD("#include\xc2\xa0<cuda_fp16.h>\n", 1, 1, "only the directives");
}

/* Messages quote at most ~60 bytes of the candidate and only printable
 * ASCII; a NULL diagnostic is allowed. */
static void test_messages(void **state)
{
	const fixture *fx = *state;
	krl_diag d;
	char src[300] = "#include \"";
	memset(src + 10, 'x', 200);
	strcpy(src + 210, "\"\n");
	assert_int_equal(check_n(src, strlen(src), fx->dirs, 2, &d),
	                 KRL_ECOMPILE);
	assert_non_null(strstr(d.msg, "xxx...: only <name>"));
	assert_true(strlen(d.msg) < 300);
	const char *u = "#include \"\xc3\xa9\xff\t.h\"\n";
	assert_int_equal(check_n(u, strlen(u), fx->dirs, 2, &d),
	                 KRL_ECOMPILE);
	assert_string_equal(d.msg, "#include \"??? .h\": only <name> includes "
	                    "of CUDA toolkit headers are allowed (a quoted "
	                    "include searches host directories)");
	assert_int_equal(krl_srccheck(u, strlen(u), NULL, fx->dirs, 2, NULL),
	                 KRL_ECOMPILE);
	assert_int_equal(krl_srccheck(NULL, 0, k_name, NULL, 0, &d), KRL_OK);
}

/* ==== Real candidates ==== */

/* Checks every .cu file of dir and asserts that exactly those that
 * must_refuse(name, arg) names are refused; returns how many were. */
static int check_dir(const char *dir, const char *const *dirs, int ndirs,
                     int (*must_refuse)(const char *, const void *),
                     const void *arg)
{
	DIR *dp = opendir(dir);
	assert_non_null(dp);
	int bad = 0, total = 0, wrong = 0;
	for (struct dirent *e; (e = readdir(dp));) {
		size_t n = strlen(e->d_name);
		if (n < 4 || strcmp(e->d_name + n - 3, ".cu"))
			continue;
		char path[512], buf[1400];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t len;
		char *src = krl_test_read(path, &len);
		assert_non_null(src);
		krl_diag d;
		krl_err r = krl_srccheck(src, len, path, dirs, ndirs, &d);
		int want = must_refuse(e->d_name, arg);
		total++;
		bad += r != KRL_OK;
		if (r != KRL_OK)
			print_message("refused: %s\n",
			              krl_diag_format(&d, buf, sizeof buf));
		if ((r != KRL_OK) != want) {
			print_error("%s: expected %s\n", path,
			            want ? "a refusal" : "OK");
			wrong++;
		}
		free(src);
	}
	closedir(dp);
	assert_true(total > 0);
	assert_int_equal(wrong, 0);
	return bad;
}

static int refuse_none(const char *name, const void *arg)
{
	(void)name;
	(void)arg;
	return 0;
}

/* 1 when tests/adversarial/EXPECTED (text arg) gives `name` the verdict
 * compile_error with reason include ("<file> <task> <verdict> <reason>"). */
static int refuse_expected(const char *name, const void *arg)
{
	for (const char *line = arg; line && *line;) {
		char file[256], task[128], verdict[64], reason[64] = "";
		if (*line != '#' &&
		    sscanf(line, "%255s %127s %63s %63[a-z_]", file, task,
		           verdict, reason) >= 3 &&
		    !strcmp(file, name))
			return !strcmp(verdict, "compile_error") &&
			       !strcmp(reason, "include");
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return 0;
}

/* The real toolkit's include directories, as src/runtime/nvrtc.c passes
 * them; 0 when there are none. */
static int toolkit_dirs(const char **dirs)
{
	struct stat st;
	int n = 0;
	if (stat("/usr/local/cuda/include", &st) == 0 && S_ISDIR(st.st_mode))
		dirs[n++] = "/usr/local/cuda/include";
	if (n && stat("/usr/local/cuda/include/cccl", &st) == 0 &&
	    S_ISDIR(st.st_mode))
		dirs[n++] = "/usr/local/cuda/include/cccl";
	return n;
}

static void test_examples(void **state)
{
	(void)state;
	const char *dirs[2];
	int n = toolkit_dirs(dirs);
	if (!n) {
		print_message("SKIP: test_examples needs the CUDA toolkit's "
		              "headers in /usr/local/cuda/include\n");
		skip();
	}
	assert_int_equal(check_dir("examples/level1", dirs, n, refuse_none,
	                           NULL), 0);
	/* The adversarial corpus: exactly those whose expected verdict is a
	 * compile error for the include rule, among them the one that
	 * includes <stdio.h> (not a toolkit header). */
	char *expected = krl_test_read("tests/adversarial/EXPECTED", NULL);
	assert_non_null(expected);
	assert_true(refuse_expected("host_read_reference_relu.cu", expected));
	assert_false(refuse_expected("race_softmax.cu", expected));
	assert_true(check_dir("tests/adversarial", dirs, n, refuse_expected,
	                      expected) >= 1);
	free(expected);
}

/* The toolkit's macros that could hand a candidate __has_include,
 * __has_embed, __pragma or _Pragma, found by reading every #define of the
 * headers: a function-like macro holding __has_include or __has_embed, or
 * _Pragma with an operand other than a string literal (its parameters may
 * reach the operand), and any macro that names one of them bare (an alias).
 * A candidate that calls one must be refused: the checker expands no macro,
 * so it refuses their names. */
static struct {
	int nmacros, nrefused;
	char missed[1024];
} g_wrap;

/* The first occurrence of word w in text at or after p, or NULL. */
static const char *word(const char *p, const char *w)
{
	size_t n = strlen(w);
	for (; (p = strstr(p, w)); p += n)
		if (!(p[n] == '_' || (p[n] >= 'a' && p[n] <= 'z') ||
		      (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9')))
			return p;
	return NULL;
}

static int wraps_pragma(const char *body, int function_like)
{
	static const char *const ops[] = { "__has_include", "__has_embed",
	                                   "__pragma", "_Pragma" };
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		for (const char *p = body; (p = word(p, ops[i]));) {
			p += strlen(ops[i]);
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != '(')
				return 1; /* an alias */
			if (!function_like || i == 2)
				continue; /* fixed operands; __pragma is MSVC's */
			if (i < 2)
				return 1;
			p++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != '"')
				return 1;
		}
	return 0;
}

static int scan_header(const char *path, const struct stat *st, int flag,
                       struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag != FTW_F)
		return 0;
	char *text = krl_test_read(path, NULL);
	if (!text)
		return 0;
	/* Splices first, as the preprocessor does. */
	for (char *p = text; (p = strstr(p, "\\\n"));)
		p[0] = p[1] = ' ';
	for (char *line = text; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		char name[128], *p = line;
		int n = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' &&
		    sscanf(p + 1, " define %127[A-Za-z0-9_]%n", name, &n) == 1 &&
		    n > 0 && wraps_pragma(p + 1 + n, p[1 + n] == '(')) {
			char src[160];
			krl_diag d;
			snprintf(src, sizeof src, "%s(x)\n", name);
			g_wrap.nmacros++;
			if (krl_srccheck(src, strlen(src), k_name, NULL, 0, &d) ==
			    KRL_ECOMPILE)
				g_wrap.nrefused++;
			else if (strlen(g_wrap.missed) + strlen(name) + 2 <
			         sizeof g_wrap.missed)
				strcat(strcat(g_wrap.missed, name), " ");
		}
		line = end ? end + 1 : NULL;
	}
	free(text);
	return 0;
}

static void test_toolkit_wrappers(void **state)
{
	(void)state;
	const char *dirs[2];
	int n = toolkit_dirs(dirs);
	if (!n) {
		print_message("SKIP: test_toolkit_wrappers needs the CUDA "
		              "toolkit's headers in /usr/local/cuda/include\n");
		skip();
	}
	for (int i = 0; i < n; i++)
		assert_int_equal(nftw(dirs[i], scan_header, 16, FTW_PHYS), 0);
	print_message("%d wrapping macro definitions in the toolkit, %d "
	              "refused; missed: %s\n", g_wrap.nmacros,
	              g_wrap.nrefused, g_wrap.missed);
	assert_true(g_wrap.nmacros > 0);
	assert_int_equal(g_wrap.nrefused, g_wrap.nmacros);
}

/* ==== Size, time and threads ==== */

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* 64 MiB of ordinary code with includes passes in linear time; 16 MiB of
 * line splices inside one directive name are read once. */
static void test_large(void **state)
{
	const fixture *fx = *state;
	const char chunk[] = "#include <cuda_fp16.h>\n"
	                     "__device__ float f(float x) { return x * 2.f; "
	                     "} // \"'/* x\n/* block */ int a = 1'000 + 'c';\n";
	size_t n = (size_t)64 << 20, k = sizeof chunk - 1;
	char *big = malloc(n);
	assert_non_null(big);
	size_t used = 0;
	while (used + k <= n) {
		memcpy(big + used, chunk, k);
		used += k;
	}
	memset(big + used, ' ', n - used);
	krl_diag d;
	double t0 = now_ms();
	krl_err r = krl_srccheck(big, n, k_name, fx->dirs, 2, &d);
	double ms = now_ms() - t0;
	KRL_ASSERT_OK(r, &d);
	print_message("64 MiB checked in %.0f ms\n", ms);

	size_t splices = (size_t)8 << 20;
	memcpy(big, "#", 1);
	for (size_t i = 0; i < splices; i++)
		memcpy(big + 1 + 2 * i, "\\\n", 2);
	size_t m = 1 + 2 * splices;
	memcpy(big + m, "import \"x\"\n", 11);
	m += 11;
	t0 = now_ms();
	r = krl_srccheck(big, m, k_name, fx->dirs, 2, &d);
	ms = now_ms() - t0;
	assert_int_equal(r, KRL_ECOMPILE);
	assert_int_equal(d.pos.line, 1);
	assert_int_equal(d.pos.col, 1);
	assert_non_null(strstr(d.msg, "only the directives"));
	print_message("%zu splices checked in %.0f ms\n", splices, ms);
	free(big);
}

typedef struct job {
	const fixture *fx;
	int bad;
} job;

static void *worker(void *arg)
{
	job *j = arg;
	const char *good = "#include <cuda/std/cstdint>\n_Pragma(\"unroll\")\n";
	const char *bad = "int a;\n#include \"x\"\n";
	for (int i = 0; i < 2000; i++) {
		krl_diag d;
		if (krl_srccheck(good, strlen(good), k_name, j->fx->dirs, 2,
		                 &d) != KRL_OK)
			j->bad++;
		if (krl_srccheck(bad, strlen(bad), k_name, j->fx->dirs, 2,
		                 &d) != KRL_ECOMPILE || d.pos.line != 2)
			j->bad++;
	}
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th[4];
	job jobs[4];
	for (int i = 0; i < 4; i++) {
		jobs[i] = (job){ *state, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, worker, &jobs[i]),
		                 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(jobs[i].bad, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_include_allowed),
		cmocka_unit_test(test_include_refused),
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_pragma),
		cmocka_unit_test(test_pragma_operator),
		cmocka_unit_test(test_forbidden_identifiers),
		cmocka_unit_test(test_lexing),
		cmocka_unit_test(test_characters),
		cmocka_unit_test(test_messages),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_toolkit_wrappers),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
