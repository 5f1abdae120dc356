// An LD_PRELOAD shim that logs every statement SQLite runs in a process,
// trigger bodies included (sqlite3_trace_v2, SQLITE_TRACE_STMT), to the file
// named by SQLITE_TRACE_FILE: how bench/limits/README.md's list of one
// contact create's statements on SQLite was observed in rapportd.
//
//   cc -shared -fPIC -O2 -o sqlite_trace.so bench/limits/sqlite_trace.c -ldl
//   SQLITE_TRACE_FILE=/tmp/trace.txt LD_PRELOAD=$PWD/sqlite_trace.so rapportd ...
//
// Each line: the connection, then the statement's text as prepared (a
// trigger's statements appear as "-- TRIGGER name" and then its body's
// statements). A diagnostic tool: never for a measured run.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static FILE* out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int traced(unsigned type, void* context, void* statement, void* text) {
  (void)type;
  (void)statement;
  pthread_mutex_lock(&lock);
  if (out != NULL) {
    fprintf(out, "%p %s\n", context, (const char*)text);
    fflush(out);
  }
  pthread_mutex_unlock(&lock);
  return 0;
}

static void watch(sqlite3* db) {
  pthread_mutex_lock(&lock);
  if (out == NULL && getenv("SQLITE_TRACE_FILE") != NULL)
    out = fopen(getenv("SQLITE_TRACE_FILE"), "a");
  pthread_mutex_unlock(&lock);
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT, traced, db);
}

int sqlite3_open_v2(const char* name, sqlite3** db, int flags, const char* vfs) {
  int (*real)(const char*, sqlite3**, int, const char*) =
      (int (*)(const char*, sqlite3**, int, const char*))dlsym(RTLD_NEXT, "sqlite3_open_v2");
  int rc = real(name, db, flags, vfs);
  if (rc == SQLITE_OK && *db != NULL) watch(*db);
  return rc;
}

int sqlite3_open(const char* name, sqlite3** db) {
  int (*real)(const char*, sqlite3**) =
      (int (*)(const char*, sqlite3**))dlsym(RTLD_NEXT, "sqlite3_open");
  int rc = real(name, db);
  if (rc == SQLITE_OK && *db != NULL) watch(*db);
  return rc;
}
