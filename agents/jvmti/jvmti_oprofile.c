/**
 * @file jvmti_oprofile.c
 * libjvmti_oprofile.so: a JVMTI agent that writes what HotSpot compiles
 * as jitdump (jit-PID.dump, for perf inject --jit and, later, our daemon)
 * and, on request, as a perf map (/tmp/perf-PID.map, which our daemon
 * keeps in the session).
 *
 *   java -agentpath:/usr/lib/oprofile/libjvmti_oprofile.so[=OPTIONS] ...
 *   jcmd PID JVMTI.agent_load /usr/lib/oprofile/libjvmti_oprofile.so '"OPTIONS"'
 *
 * OPTIONS, comma-separated: perfmap (also write /tmp/perf-PID.map),
 * nojitdump (no jit-PID.dump), dir=DIR (the jitdump's directory; default
 * $JITDUMPDIR, else /tmp). See doc/jvmti.md.
 *
 * Names are "Class.method(descriptor)": the class in Java's dotted form,
 * the JVM's method descriptor kept as is so overloads stay apart, e.g.
 * "Hot.hotA(I)J". Stubs keep the name the JVM gives them.
 */
#include "jitdump.h"

#include <jvmti.h>
#include <jvmticmlr.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct jd_writer jd = { .fd = -1 };
static struct pm_writer pm = { .fd = -1 };
/* the compiler threads call back concurrently; a debug-info record must
 * sit just before its code's load record, and timestamps must not go back */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int closed;

/* Stubs written before VMInit's replay (GenerateEvents) ends: the replay
 * posts again, on the VMInit thread, every stub still in the code cache,
 * most of them already written live since Agent_OnLoad (at times under a
 * less precise name). Replayed code at an address and size already
 * written is not written twice; the replay is still wanted for the
 * buffers HotSpot posts only through it. */
struct seen {
	uint64_t addr, size;
	int used;
};
static struct seen *seen;
static size_t seen_cap, seen_nr;
static int seen_on = 1;
static __thread int replaying;

static size_t seen_slot(const struct seen *tab, size_t cap, uint64_t addr, uint64_t size)
{
	size_t i = (size_t)((addr >> 4) ^ (addr >> 20) ^ size) & (cap - 1);

	while (tab[i].used && !(tab[i].addr == addr && tab[i].size == size))
		i = (i + 1) & (cap - 1);
	return i;
}

/* Under the lock: was this code written already (and is this the replay)?
 * Records it while the replay is still to come or under way. */
static int already_written(uint64_t addr, uint64_t size)
{
	size_t i;

	if (!seen_on)
		return 0;
	if (seen_cap && seen[seen_slot(seen, seen_cap, addr, size)].used)
		return replaying;
	if (2 * (seen_nr + 1) > seen_cap) {
		size_t cap = seen_cap ? 2 * seen_cap : 1024;
		struct seen *tab = calloc(cap, sizeof(*tab));
		if (!tab) {
			/* without the table a replay writes duplicates: harmless */
			seen_on = 0;
			return 0;
		}
		for (size_t j = 0; j < seen_cap; j++)
			if (seen[j].used)
				tab[seen_slot(tab, cap, seen[j].addr, seen[j].size)] = seen[j];
		free(seen);
		seen = tab;
		seen_cap = cap;
	}
	i = seen_slot(seen, seen_cap, addr, size);
	seen[i] = (struct seen){ addr, size, 1 };
	seen_nr++;
	return 0;
}

static void say(const char *fmt, const char *what)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), fmt, what);

	if (n > 0) {
		ssize_t r = write(STDERR_FILENO, buf,
				  (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
		(void)r;
	}
}

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void deallocate(jvmtiEnv *jvmti, void *p)
{
	if (p)
		(*jvmti)->Deallocate(jvmti, (unsigned char *)p);
}

/* "Ljava/lang/String;" -> "java/lang/String" (slashes kept), in @c out. */
static void class_path(char *out, size_t len, const char *sig)
{
	size_t n;

	if (!sig) {
		snprintf(out, len, "?");
		return;
	}
	if (sig[0] == 'L')
		sig++;
	n = strlen(sig);
	if (n && sig[n - 1] == ';')
		n--;
	snprintf(out, len, "%.*s", (int)n, sig);
}

static void method_name(jvmtiEnv *jvmti, jmethodID m, char *out, size_t len)
{
	jclass cls = NULL;
	char *csig = NULL, *name = NULL, *sig = NULL;
	char path[1024];

	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE)
		(*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL);
	(*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL);
	class_path(path, sizeof(path), csig);
	for (char *p = path; *p; p++)
		if (*p == '/')
			*p = '.';
	snprintf(out, len, "%s.%s%s", path, name ? name : "?", sig ? sig : "");
	deallocate(jvmti, csig);
	deallocate(jvmti, name);
	deallocate(jvmti, sig);
}

/* A method's line table and source file, looked up once per load. */
struct method_lines {
	jmethodID method;
	jvmtiLineNumberEntry *table;
	jint nr;
	char file[1024];	/* "" when the class has no SourceFile */
};

#define LINE_CACHE 16

static struct method_lines *lines_of(jvmtiEnv *jvmti, struct method_lines *cache,
				     int *used, jmethodID m)
{
	struct method_lines *ml;
	jclass cls = NULL;
	char *csig = NULL, *src = NULL;
	char path[1024];

	for (int i = 0; i < *used; i++)
		if (cache[i].method == m)
			return &cache[i];
	if (*used == LINE_CACHE)
		return NULL;
	ml = &cache[(*used)++];
	memset(ml, 0, sizeof(*ml));
	ml->method = m;
	if ((*jvmti)->GetLineNumberTable(jvmti, m, &ml->nr, &ml->table) != JVMTI_ERROR_NONE) {
		ml->table = NULL;
		ml->nr = 0;
	}
	if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &cls) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetSourceFileName(jvmti, cls, &src) == JVMTI_ERROR_NONE &&
	    (*jvmti)->GetClassSignature(jvmti, cls, &csig, NULL) == JVMTI_ERROR_NONE) {
		/* the package's directory and the source file: java/lang/String.java */
		class_path(path, sizeof(path), csig);
		char *slash = strrchr(path, '/');
		if (slash)
			snprintf(ml->file, sizeof(ml->file), "%.*s/%s",
				 (int)(slash - path), path, src);
		else
			snprintf(ml->file, sizeof(ml->file), "%s", src);
	}
	deallocate(jvmti, csig);
	deallocate(jvmti, src);
	return ml;
}

/* The line of bytecode index @c bci: the entry that starts last at or before it. */
static int line_at(const struct method_lines *ml, jint bci)
{
	int line = -1;
	jlocation best = -1;

	for (jint i = 0; i < ml->nr; i++)
		if (ml->table[i].start_location <= bci && ml->table[i].start_location > best) {
			best = ml->table[i].start_location;
			line = ml->table[i].line_number;
		}
	return line;
}

static int by_addr(const void *a, const void *b)
{
	const struct jd_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Lines for the code HotSpot describes: each pc's innermost frame (the
 * method inlined deepest is where the code came from), else the old
 * address-location map of the method itself. */
static size_t collect_lines(jvmtiEnv *jvmti, jmethodID method, const void *code_addr,
			    jint code_size, jint map_length, const jvmtiAddrLocationMap *map,
			    const void *compile_info, struct jd_line **out,
			    struct method_lines *cache, int *used)
{
	const jvmtiCompiledMethodLoadRecordHeader *h;
	struct jd_line *lines = NULL;
	size_t nr = 0, cap = 0;
	uintptr_t lo = (uintptr_t)code_addr, hi = lo + (uintptr_t)code_size;

#define ADD_LINE(pc, m, bci)							\
	do {									\
		struct method_lines *ml_ = lines_of(jvmti, cache, used, (m));	\
		int line_ = ml_ && ml_->file[0] ? line_at(ml_, (bci)) : -1;	\
		uintptr_t pc_ = (uintptr_t)(pc);				\
		if (line_ > 0 && pc_ >= lo && pc_ < hi) {			\
			if (nr == cap) {					\
				cap = cap ? cap * 2 : 64;			\
				struct jd_line *n_ = realloc(lines, cap * sizeof(*lines)); \
				if (!n_)					\
					goto done;				\
				lines = n_;					\
			}							\
			lines[nr].addr = pc_;					\
			lines[nr].line = (uint32_t)line_;			\
			lines[nr].file = ml_->file;				\
			nr++;							\
		}								\
	} while (0)

	for (h = compile_info; h; h = h->next) {
		if (h->kind != JVMTI_CMLR_INLINE_INFO)
			continue;
		const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
		for (jint i = 0; r->pcinfo && i < r->numpcs; i++) {
			const PCStackInfo *pc = &r->pcinfo[i];
			if (pc->numstackframes > 0 && pc->methods && pc->bcis)
				ADD_LINE(pc->pc, pc->methods[0], pc->bcis[0]);
		}
	}
	if (!nr && map)
		for (jint i = 0; i < map_length; i++)
			ADD_LINE(map[i].start_address, method, (jint)map[i].location);
#undef ADD_LINE
done:
	if (nr) {
		/* ascending addresses, one line per address (the first given) */
		qsort(lines, nr, sizeof(*lines), by_addr);
		size_t k = 0;
		for (size_t i = 0; i < nr; i++)
			if (!k || lines[i].addr != lines[k - 1].addr)
				lines[k++] = lines[i];
		nr = k;
	}
	*out = lines;
	return nr;
}

static void JNICALL compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
					 const void *code_addr, jint map_length,
					 const jvmtiAddrLocationMap *map,
					 const void *compile_info)
{
	char name[2048];
	struct method_lines cache[LINE_CACHE];
	struct jd_line *lines = NULL;
	size_t nr = 0;
	int used = 0;

	if (code_size <= 0)
		return;
	method_name(jvmti, method, name, sizeof(name));
	/* a hint read without the lock: lines are not looked up for a dump
	 * already off */
	if (__atomic_load_n(&jd.fd, __ATOMIC_RELAXED) >= 0)
		nr = collect_lines(jvmti, method, code_addr, code_size, map_length, map,
				   compile_info, &lines, cache, &used);

	pthread_mutex_lock(&lock);
	if (!closed) {
		jd_debug_info(&jd, (uintptr_t)code_addr, lines, nr);
		jd_code_load(&jd, (uint32_t)getpid(), tid(), name, (uintptr_t)code_addr,
			     (uint64_t)code_size);
		pm_write(&pm, (uintptr_t)code_addr, (uint64_t)code_size, name);
	}
	pthread_mutex_unlock(&lock);

	free(lines);
	for (int i = 0; i < used; i++)
		deallocate(jvmti, cache[i].table);
}

static void JNICALL dynamic_code_generated(jvmtiEnv *jvmti, const char *name,
					   const void *address, jint length)
{
	(void)jvmti;
	if (length <= 0)
		return;
	if (!name)
		name = "stub";
	pthread_mutex_lock(&lock);
	if (!closed && !already_written((uintptr_t)address, (uint64_t)length)) {
		jd_code_load(&jd, (uint32_t)getpid(), tid(), name,
			     (uintptr_t)address, (uint64_t)length);
		pm_write(&pm, (uintptr_t)address, (uint64_t)length, name);
	}
	pthread_mutex_unlock(&lock);
}

/* Stubs HotSpot posts only when asked. Compiled methods are not replayed:
 * with the agent loaded at start every one is posted live (those compiled
 * before VMInit by the service thread, later), and a replay would write
 * each of them twice. */
static void JNICALL vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread)
{
	(void)env;
	(void)thread;
	replaying = 1;
	(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
	replaying = 0;
	/* from now on every load is new, even at an address seen before */
	pthread_mutex_lock(&lock);
	seen_on = 0;
	free(seen);
	seen = NULL;
	seen_cap = seen_nr = 0;
	pthread_mutex_unlock(&lock);
}

static void finish_files(void)
{
	pthread_mutex_lock(&lock);
	if (!closed) {
		closed = 1;
		jd_close(&jd);
		pm_close(&pm);
	}
	pthread_mutex_unlock(&lock);
}

/* No event comes after VMDeath: the dump is closed there. */
static void JNICALL vm_death(jvmtiEnv *jvmti, JNIEnv *env)
{
	(void)jvmti;
	(void)env;
	finish_files();
}

struct options {
	int jitdump, perfmap;
	char dir[4096];
};

/* Set the dump's directory, or, when it does not fit, say so and write
 * no dump: a name cut short would be another directory. */
static void set_dir(struct options *o, const char *dir, size_t len, const char *from)
{
	if (len >= sizeof(o->dir)) {
		char what[64];
		snprintf(what, sizeof(what), "%s", from);
		say("jvmti_oprofile: the directory of %s is too long: no jitdump\n", what);
		o->jitdump = 0;
		return;
	}
	memcpy(o->dir, dir, len);
	o->dir[len] = '\0';
}

static void parse_options(const char *s, struct options *o)
{
	const char *env = getenv("JITDUMPDIR");

	o->jitdump = 1;
	o->perfmap = 0;
	if (env && *env)
		set_dir(o, env, strlen(env), "JITDUMPDIR");
	else
		set_dir(o, "/tmp", 4, "/tmp");
	while (s && *s) {
		size_t n = strcspn(s, ",");
		if (n == 7 && !strncmp(s, "perfmap", 7))
			o->perfmap = 1;
		else if (n == 9 && !strncmp(s, "nojitdump", 9))
			o->jitdump = 0;
		else if (n > 4 && !strncmp(s, "dir=", 4))
			set_dir(o, s + 4, n - 4, "dir=");
		else if (n) {
			char opt[256];
			snprintf(opt, sizeof(opt), "%.*s", (int)n, s);
			jd_clean_name(opt, sizeof(opt), opt);
			say("jvmti_oprofile: unknown option '%s' ignored "
			    "(options: perfmap, nojitdump, dir=DIR)\n", opt);
		}
		s += n;
		if (*s == ',')
			s++;
	}
}

/* Loaded at the JVM's start (Agent_OnLoad) or into a running JVM
 * (Agent_OnAttach, jcmd PID JVMTI.agent_load): @c live for the latter,
 * where what was compiled before is asked for at once. */
static jint start(JavaVM *vm, const char *options, int live)
{
	jvmtiEnv *jvmti = NULL;
	jvmtiCapabilities caps;
	jvmtiEventCallbacks cb;
	struct options o;

	parse_options(options, &o);
	if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_0) != JNI_OK || !jvmti) {
		say("jvmti_oprofile: %s\n", "no JVMTI environment: nothing written");
		return JNI_OK;	/* the program runs, unprofiled by name */
	}

	memset(&caps, 0, sizeof(caps));
	caps.can_generate_compiled_method_load_events = 1;
	caps.can_get_source_file_name = 1;
	caps.can_get_line_numbers = 1;
	if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
		/* lines are a bonus; the compiled-method events are not */
		memset(&caps, 0, sizeof(caps));
		caps.can_generate_compiled_method_load_events = 1;
		if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
			say("jvmti_oprofile: %s\n",
			    "the JVM gives no compiled-method events: nothing written");
			return JNI_OK;
		}
	}

	pthread_mutex_lock(&lock);
	if (jd.fd >= 0 || pm.fd >= 0 || closed) {
		pthread_mutex_unlock(&lock);
		say("jvmti_oprofile: %s\n", "already loaded: loaded once only");
		return JNI_OK;
	}
	if (o.jitdump)
		jd_open(&jd, o.dir, getpid());
	if (o.perfmap)
		pm_open(&pm, "/tmp", getpid());
	if (live)
		seen_on = 0;	/* nothing written before: no replay to sort out */
	pthread_mutex_unlock(&lock);
	if (jd.fd < 0 && pm.fd < 0)
		return JNI_OK;

	memset(&cb, 0, sizeof(cb));
	cb.CompiledMethodLoad = compiled_method_load;
	cb.DynamicCodeGenerated = dynamic_code_generated;
	cb.VMInit = vm_init;
	cb.VMDeath = vm_death;
	(*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
					   JVMTI_EVENT_DYNAMIC_CODE_GENERATED, NULL);
	(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
	if (live) {
		(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
		(*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD);
	} else {
		(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
						   JVMTI_EVENT_VM_INIT, NULL);
	}
	return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 0);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
	(void)reserved;
	return start(vm, options, 1);
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
	(void)vm;
	finish_files();
}
