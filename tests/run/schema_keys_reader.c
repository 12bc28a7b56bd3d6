/* SPDX-License-Identifier: Apache-2.0 */
/* schema_keys_reader.c - the flopcount command's verbs (report, merge) run
 * in this process, recording every key path they ask a report for; the
 * half of the schema-keys test (schema_keys.py) that measures the readers.
 *
 * Nothing in the readers is changed for it: this program defines json-c's
 * lookups itself, so the readers' calls (analysis/io, linked statically)
 * bind here, are recorded and go on to json-c (dlsym RTLD_NEXT):
 *   json_tokener_parse(_ex)      a report's tree: each object's and array's
 *                                path, by pointer ("" the top, "a.b", "a[]")
 *   json_object_object_get_ex    a key asked for: "path.key" (present or not)
 *   json_object_get_object       an object walked member by member (the
 *                                json_object_object_foreach macro): "path.*"
 * and the fast path (report_fast.c) names the keys its tables ask for
 * through its weak hook fc_report_fast_asked.
 *
 * merge reads its reports on several threads: one lock over both tables.
 * A verb keeps state for one run of the command (merge's sums): one run of
 * this program a verb.
 *
 * usage: schema_keys_reader OUT.keys STEP... with STEP one of
 *   tree FILE             the whole report through json-c alone (the
 *                         reference reader; the verbs take the fast path)
 *   VERB ARG... ;         a verb of the command (report, merge, run), its
 *                         output thrown away, up to a lone ";"
 * OUT.keys: the paths asked for appended, one a line. Exit 0, or 1 when a
 * step fails (a verb's nonzero status, a report the tree reader refuses). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_fast.h"
#include "report_read.h"
#include "tools.h"

/* Open addressing, by pointer (the tree's nodes) and by string (the keys
 * asked for); both only grow. */
typedef struct slot {
    const void *ptr;
    char *path;
} slot;

static slot *nodes;
static size_t n_nodes, cap_nodes;
static char **asked;
static size_t n_asked, cap_asked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t hash_ptr(const void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return (size_t)(x ^ (x >> 33));
}

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void *zalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (p == NULL) {
        fprintf(stderr, "schema_keys_reader: out of memory\n");
        exit(2);
    }
    return p;
}

static void node_put(const void *ptr, char *path);

static void node_grow(void)
{
    slot *old = nodes;
    size_t n = cap_nodes;
    cap_nodes = cap_nodes ? cap_nodes * 2 : 4096;
    nodes = zalloc(cap_nodes, sizeof *nodes);
    n_nodes = 0;
    for (size_t i = 0; i < n; i++)
        if (old[i].ptr != NULL)
            node_put(old[i].ptr, old[i].path);
    free(old);
}

/* A node's path; a pointer seen before (a freed tree's node reused) takes
 * the new one. */
static void node_put(const void *ptr, char *path)
{
    if (2 * (n_nodes + 1) > cap_nodes)
        node_grow();
    size_t i = hash_ptr(ptr) & (cap_nodes - 1);
    while (nodes[i].ptr != NULL && nodes[i].ptr != ptr)
        i = (i + 1) & (cap_nodes - 1);
    if (nodes[i].ptr == NULL)
        n_nodes++;
    else
        free(nodes[i].path);
    nodes[i].ptr = ptr;
    nodes[i].path = path;
}

static const char *node_path(const void *ptr)
{
    if (cap_nodes == 0)
        return NULL;
    size_t i = hash_ptr(ptr) & (cap_nodes - 1);
    for (; nodes[i].ptr != NULL; i = (i + 1) & (cap_nodes - 1))
        if (nodes[i].ptr == ptr)
            return nodes[i].path;
    return NULL;
}

static void asked_put(char *path);

static void asked_grow(void)
{
    char **old = asked;
    size_t n = cap_asked;
    cap_asked = cap_asked ? cap_asked * 2 : 1024;
    asked = zalloc(cap_asked, sizeof *asked);
    n_asked = 0;
    for (size_t i = 0; i < n; i++)
        if (old[i] != NULL)
            asked_put(old[i]);
    free(old);
}

/* Takes path (malloc'd): kept, or freed when already there. */
static void asked_put(char *path)
{
    if (2 * (n_asked + 1) > cap_asked)
        asked_grow();
    size_t i = hash_str(path) & (cap_asked - 1);
    for (; asked[i] != NULL; i = (i + 1) & (cap_asked - 1))
        if (strcmp(asked[i], path) == 0) {
            free(path);
            return;
        }
    asked[i] = path;
    n_asked++;
}

static char *join(const char *parent, const char *key, const char *suffix)
{
    size_t a = strlen(parent), b = strlen(key), c = strlen(suffix);
    char *p = zalloc(a + b + c + 2, 1);
    size_t o = a;
    memcpy(p, parent, a);
    if (a != 0 && b != 0)
        p[o++] = '.';
    memcpy(p + o, key, b);
    memcpy(p + o + b, suffix, c + 1);
    return p;
}

static void asked_key(const void *obj, const char *key)
{
    pthread_mutex_lock(&lock);
    const char *at = node_path(obj);
    if (at != NULL)
        asked_put(join(at, key, ""));
    pthread_mutex_unlock(&lock);
}

static json_bool (*real_get_ex)(const json_object *, const char *, json_object **);
static struct lh_table *(*real_get_object)(const json_object *);
static json_object *(*real_parse)(const char *);
static json_object *(*real_parse_ex)(json_tokener *, const char *, int);

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (f == NULL) {
        fprintf(stderr, "schema_keys_reader: no %s in json-c\n", name);
        exit(2);
    }
    return f;
}

/* Every object and array below o, with their paths (path is o's, kept). */
static void walk(json_object *o, char *path)
{
    node_put(o, path);
    if (json_object_is_type(o, json_type_object)) {
        struct lh_entry *e = lh_table_head(real_get_object(o));
        for (; e != NULL; e = lh_entry_next(e)) {
            json_object *v = (json_object *)lh_entry_v(e);
            if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
                walk(v, join(path, (const char *)lh_entry_k(e), ""));
        }
    } else {
        size_t n = json_object_array_length(o);
        for (size_t i = 0; i < n; i++) {
            json_object *v = json_object_array_get_idx(o, i);
            if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
                walk(v, join(path, "", "[]"));
        }
    }
}

/* A report (an object with "schema"): its nodes' paths. Other JSON the
 * command reads (a Hugging Face config) is not recorded. */
static json_object *seen_tree(json_object *root)
{
    json_object *v;
    if (root != NULL && json_object_is_type(root, json_type_object) &&
        real_get_ex(root, "schema", &v)) {
        pthread_mutex_lock(&lock);
        walk(root, join("", "", ""));
        pthread_mutex_unlock(&lock);
    }
    return root;
}

json_object *json_tokener_parse_ex(json_tokener *tok, const char *str, int len)
{
    if (real_parse_ex == NULL)
        real_parse_ex = real("json_tokener_parse_ex");
    return seen_tree(real_parse_ex(tok, str, len));
}

json_object *json_tokener_parse(const char *str)
{
    if (real_parse == NULL)
        real_parse = real("json_tokener_parse");
    return seen_tree(real_parse(str));
}

json_bool json_object_object_get_ex(const json_object *o, const char *key, json_object **value)
{
    if (real_get_ex == NULL)
        real_get_ex = real("json_object_object_get_ex");
    if (o != NULL && key != NULL)
        asked_key(o, key);
    return real_get_ex(o, key, value);
}

struct lh_table *json_object_get_object(const json_object *o)
{
    if (real_get_object == NULL)
        real_get_object = real("json_object_get_object");
    if (o != NULL)
        asked_key(o, "*");
    return real_get_object(o);
}

void fc_report_fast_asked(const char *entry, const char *key)
{
    pthread_mutex_lock(&lock);
    asked_put(join(entry, key, ""));
    pthread_mutex_unlock(&lock);
}

/* The report at path through json-c alone. */
static int tree(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    char chunk[65536];
    size_t got;
    while (m != NULL && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, got, m);
    fclose(f);
    if (m == NULL || fclose(m) != 0)
        return 1;
    fc_report r;
    char err[256];
    int rc = fc_report_parse_tree(buf, len, &r, err, sizeof err);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "schema_keys_reader: %s: %s\n", path, err);
        return 1;
    }
    fc_report_free(&r);
    return 0;
}

/* argv[0..argc) a verb and its arguments, its stdout thrown away. */
static int verb(int argc, char **argv)
{
    fflush(stdout);
    int keep = dup(1), null = open("/dev/null", O_WRONLY);
    if (keep < 0 || null < 0 || dup2(null, 1) < 0)
        return 1;
    close(null);
    int rc = strcmp(argv[0], "report") == 0  ? fc_cmd_report(argc, argv)
             : strcmp(argv[0], "merge") == 0 ? fc_cmd_merge(argc, argv)
             : strcmp(argv[0], "run") == 0   ? fc_cmd_run(argc, argv)
                                             : (fprintf(stderr, "unknown verb %s\n", argv[0]), 1);
    fflush(stdout);
    dup2(keep, 1);
    close(keep);
    if (rc != 0)
        fprintf(stderr, "schema_keys_reader: %s: exit %d\n", argv[0], rc);
    return rc != 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: schema_keys_reader OUT.keys STEP...\n");
        return 2;
    }
    /* all four before any verb: merge's reading threads only read them */
    real_get_ex = real("json_object_object_get_ex");
    real_get_object = real("json_object_get_object");
    real_parse = real("json_tokener_parse");
    real_parse_ex = real("json_tokener_parse_ex");
    int failed = 0;
    for (int i = 2; i < argc;) {
        if (strcmp(argv[i], "tree") == 0 && i + 1 < argc) {
            failed |= tree(argv[i + 1]);
            i += 2;
            continue;
        }
        int j = i;
        while (j < argc && strcmp(argv[j], ";") != 0)
            j++;
        if (j < argc)
            argv[j] = NULL; /* argv[argc] is NULL already */
        failed |= verb(j - i, argv + i);
        i = j + 1;
    }
    char **list = zalloc(n_asked + 1, sizeof *list);
    size_t n = 0;
    for (size_t i = 0; i < cap_asked; i++)
        if (asked[i] != NULL)
            list[n++] = asked[i];
    qsort(list, n, sizeof *list, by_name);
    FILE *out = fopen(argv[1], "a");
    if (out == NULL) {
        perror(argv[1]);
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s\n", list[i]);
    return fclose(out) != 0 ? 2 : failed;
}
