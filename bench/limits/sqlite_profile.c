// An LD_PRELOAD shim that sums the time SQLite spends in each statement of a
// process (sqlite3_trace_v2, SQLITE_TRACE_PROFILE: trigger bodies counted in
// the statement that fires them) and writes the sums when the process exits,
// to $SQLITE_PROFILE_FILE.<pid>: how docs/performance.md's "Issue 25: creates
// with 20 custom fields" timed the statements of rapportd's creates.
//
//   cc -shared -fPIC -O2 -o sqlite_profile.so bench/limits/sqlite_profile.c -ldl
//   SQLITE_PROFILE_FILE=/tmp/profile LD_PRELOAD=$PWD/sqlite_profile.so bench/run.sh ...
//   sort -rn /tmp/profile.<pid> | head   # nanoseconds, runs, statement
//
// SQLite measures a statement in whole milliseconds (its VFS clock), so only
// sums over many runs mean anything. A diagnostic tool: never for a measured
// rate.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 4096

static struct {
  char* sql;
  unsigned long long nanoseconds, runs;
} slots[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int registered;

static unsigned long hash(const char* text) {
  unsigned long h = 5381;
  while (*text) h = h * 33 + (unsigned char)*text++;
  return h;
}

static int profiled(unsigned type, void* context, void* statement, void* elapsed) {
  (void)type;
  (void)context;
  const char* sql = sqlite3_sql((sqlite3_stmt*)statement);
  if (sql == NULL) return 0;
  pthread_mutex_lock(&lock);
  unsigned long at = hash(sql) % SLOTS;
  for (int probe = 0; probe < SLOTS; ++probe, at = (at + 1) % SLOTS) {
    if (slots[at].sql == NULL) slots[at].sql = strdup(sql);
    if (slots[at].sql != NULL && strcmp(slots[at].sql, sql) == 0) {
      slots[at].nanoseconds += (unsigned long long)*(sqlite3_int64*)elapsed;
      slots[at].runs++;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return 0;
}

static void report(void) {
  const char* prefix = getenv("SQLITE_PROFILE_FILE");
  if (prefix == NULL) return;
  char name[512];
  snprintf(name, sizeof name, "%s.%d", prefix, (int)getpid());
  FILE* out = fopen(name, "w");
  if (out == NULL) return;
  for (int i = 0; i < SLOTS; ++i) {
    if (slots[i].sql == NULL) continue;
    char line[301];
    strncpy(line, slots[i].sql, 300);
    line[300] = '\0';
    for (char* c = line; *c; ++c) {
      if (*c == '\n' || *c == '\t') *c = ' ';
    }
    fprintf(out, "%llu\t%llu\t%s\n", slots[i].nanoseconds, slots[i].runs, line);
  }
  fclose(out);
}

int sqlite3_open_v2(const char* name, sqlite3** db, int flags, const char* vfs) {
  int (*real)(const char*, sqlite3**, int, const char*) =
      (int (*)(const char*, sqlite3**, int, const char*))dlsym(RTLD_NEXT, "sqlite3_open_v2");
  int rc = real(name, db, flags, vfs);
  if (rc == SQLITE_OK && *db != NULL && getenv("SQLITE_PROFILE_FILE") != NULL) {
    pthread_mutex_lock(&lock);
    if (!registered) {
      registered = 1;
      atexit(report);
    }
    pthread_mutex_unlock(&lock);
    sqlite3_trace_v2(*db, SQLITE_TRACE_PROFILE, profiled, *db);
  }
  return rc;
}
